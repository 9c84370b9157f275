/**
 * The `steward` command tree. Each area lives in `commands/<area>` and is registered here with a
 * loader: a command loads only its own area's modules (a dynamic import), so `steward doctor`
 * never compiles the governance engine or the shell grammar.
 *
 * @since 0.1.0
 */
import type * as CliApp from "@effect/cli/CliApp"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import type * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as nodePath from "node:path"
import { cannotRun, type CommandFailure } from "./CliError.js"
import * as CommandSpec from "./CommandSpec.js"
import * as Completion from "./Completion.js"
import * as Grammar from "./Grammar.js"
import * as Help from "./Help.js"
import { cliVersion } from "./internal/versions.js"
import * as Output from "./Output.js"
import * as Version from "./Version.js"

type AnyCommand = Command.Command<any, any, any, any>

/**
 * The services commands run with (what `bin.ts` provides: `NodeContext.layer` without its worker manager).
 *
 * @since 0.1.0
 * @category models
 */
export type Environment = CliApp.CliApp.Environment | CommandExecutor.CommandExecutor

/**
 * One area of the CLI: its name, the one-line description the root help lists, and its loader.
 *
 * @since 0.1.0
 * @category models
 */
export interface Area {
  readonly name: string
  readonly description: string
  readonly load: () => Promise<AnyCommand>
}

/**
 * Every area, in `steward --help` order.
 *
 * @since 0.1.0
 * @category commands
 */
export const areas: ReadonlyArray<Area> = [
  {
    name: "algal",
    description: "ALGAL organisms: check, digest, canonical, explain, run, resume, verify, replay, expr, suite",
    load: () => import("./commands/algal/index.js").then((m) => m.command)
  },
  {
    name: "audit",
    description: "The xcheck audit state machine: findings, passes, verbs, next, events, views, metrics",
    load: () => import("./commands/audit/index.js").then((m) => m.command)
  },
  {
    name: "config",
    description: "Read and change config.json in the state directory (validated)",
    load: () => import("./commands/config.js").then((m) => m.command)
  },
  {
    name: "db",
    description: "Databases: move the embedded SQLite state into a shared PostgreSQL database",
    load: () => import("./commands/db.js").then((m) => m.command)
  },
  {
    name: "demo",
    description: "Steward end to end in a fresh state directory: reflexes certify, a governed session, replay, verify",
    load: () => import("./commands/demo.js").then((m) => m.command)
  },
  {
    name: "doctor",
    description: "Show Node and package versions, the state directory, and whether SQLite opens and migrates",
    load: () => import("./commands/doctor.js").then((m) => m.command)
  },
  {
    name: "hooks",
    description: "Steward's hooks in Claude Code, Codex and Gemini CLI: install, uninstall, status, approve",
    load: () => import("./commands/hooks.js").then((m) => m.command)
  },
  {
    name: "policy",
    description: "Governance rules: decide tool calls (allow / ask / deny) with citations",
    load: () => import("./commands/policy.js").then((m) => m.command)
  },
  {
    name: "reflex",
    description: "Route and settle reflexes that prove themselves before they act",
    load: () => import("./commands/reflex/index.js").then((m) => m.command)
  },
  {
    name: "sandbox",
    description: "Run one command inside the OS boundary and exit with its status",
    load: () => import("./commands/sandbox.js").then((m) => m.command)
  },
  {
    name: "session",
    description: "Governed agent sessions: run, list, show, events, continue, approve, reject, verify, tools",
    load: () => import("./commands/session/index.js").then((m) => m.command)
  }
]

const rootDescription = "Steward: reflexes, bounded agent programs, audits and governance for coding agents"

const stub = (area: Area): CommandSpec.CommandSpec => ({
  name: area.name,
  path: ["steward", area.name],
  description: area.description,
  options: [],
  args: [],
  children: []
})

/**
 * The root's description with the given areas described in full and the rest by name only.
 *
 * @since 0.1.0
 * @category constructors
 */
export const rootSpec = (loaded: ReadonlyMap<string, AnyCommand>): CommandSpec.CommandSpec => ({
  name: "steward",
  path: ["steward"],
  description: rootDescription,
  options: [],
  args: [],
  children: areas.map((area) => {
    const command = loaded.get(area.name)
    return command === undefined ? stub(area) : CommandSpec.describe(command, ["steward"])
  })
})

const loadAreas = (names: ReadonlyArray<string>) =>
  Effect.forEach(names, (name) => {
    const area = areas.find((a) => a.name === name)!
    return Effect.promise(() => area.load()).pipe(Effect.map((command) => [name, command] as const))
  }).pipe(Effect.map((entries) => new Map(entries)))

/**
 * Every area loaded: the whole tree (for tests and generated references).
 *
 * @since 0.1.0
 * @category constructors
 */
export const loadAll = loadAreas(areas.map((area) => area.name)).pipe(
  Effect.map((loaded) => ({ spec: rootSpec(loaded), commands: loaded }))
)

const firstWord = (tokens: ReadonlyArray<string>): string | undefined =>
  tokens.find((token) => token === "--" || !token.startsWith("-") || token === "-")

// @effect/cli's own words for what is missing ("Missing argument <FILE>", "Expected to find
// option: '--text'") said as the rest of the CLI says them: what is missing, for which verb, and
// the verb's usage line.
const rephrase = (text: string, spec: CommandSpec.CommandSpec, args: ReadonlyArray<string>) => {
  const verb = spec.path.join(" ")
  const usage = Help.usageLine(spec)
  const cases = /^Expected one of the following cases: (.+)$/.exec(text.trim())
  const arg = cases === null ? undefined : spec.args.find((a) => a.choices?.join(", ") === cases[1])
  if (cases !== null && arg !== undefined) {
    const given = positionals(spec, args).find((word) => !arg.choices!.includes(word))
    return {
      message: `${arg.name}: ${given === undefined ? "" : `'${given}' is `}not one of ${cases[1]}`,
      details: { argument: arg.name, choices: arg.choices, ...(given === undefined ? {} : { value: given }) }
    }
  }
  const number = /^'(.*)' is not a (integer|float)$/.exec(text.trim())
  if (number !== null) {
    const at = positionals(spec, args).indexOf(number[1]!)
    const name = spec.args[at]?.name
    const kind = number[2] === "integer" ? "an integer" : "a number"
    return {
      message: `${name === undefined ? "" : `${name}: `}'${number[1]}' is not ${kind}`,
      details: { ...(name === undefined ? {} : { argument: name }), value: number[1] }
    }
  }
  const path = /^Path '(.*)' must exist$/.exec(text.trim())
  if (path !== null) {
    const given = path[1]!
    const at = args.indexOf(given)
    const before = at > 0 ? args[at - 1]! : undefined
    const flag = before !== undefined && before.startsWith("--") ? before : undefined
    const relative = nodePath.isAbsolute(given) ? "" : ` (${given} is relative to ${process.cwd()})`
    return {
      code: "not-found",
      message: `${flag === undefined ? "" : `${flag} `}${
        nodePath.resolve(given)
      }: no such file or directory${relative}`,
      details: { ...(flag === undefined ? {} : { option: flag }), path: nodePath.resolve(given) }
    }
  }
  return missing(text, verb, usage)
}

/** The positional words after the verb's path: options and their values skipped. */
const positionals = (spec: CommandSpec.CommandSpec, args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  const rest = args.slice(spec.path.length - 1)
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (word === "--") return [...out, ...rest.slice(i + 1)]
    if (word.startsWith("-") && word !== "-") {
      const option = spec.options.find((o) => o.names.includes(word.split("=")[0]!))
      if (option?.takesValue === true && !word.includes("=")) i++
      continue
    }
    out.push(word)
  }
  return out
}

const missing = (text: string, verb: string, usage: string) => {
  const arg = /^Missing argument <([^>]+)>(?: with choices (.+))?$/.exec(text.trim())
  if (arg !== null) {
    const choices = arg[2]?.split(" | ")
    return {
      message: `missing argument ${arg[1]} for ${verb}${
        choices === undefined ? "" : ` (one of ${choices.join(", ")})`
      } (usage: ${usage})`,
      details: { argument: arg[1], ...(choices === undefined ? {} : { choices }) }
    }
  }
  const option = /^Expected to find option: '([^']+)'$/.exec(text.trim())
  if (option !== null) {
    return {
      message: `missing option ${option[1]} for ${verb}, which is required (usage: ${usage})`,
      details: { option: option[1] }
    }
  }
  return { message: text, details: {} }
}

// @effect/cli prints its own help text on a parse error before any handler runs; that text is
// dropped (the error becomes one usage line naming the verb), while a running command's own
// stderr output is kept.
const parseAndRun = (area: AnyCommand, outcome: Extract<Grammar.Parsed, { readonly _tag: "Run" }>) =>
  Effect.gen(function*() {
    const console = yield* Effect.console
    let parsing = true
    const quiet: Console.Console = {
      ...console,
      error: (...args) => parsing ? Effect.void : console.error(...args),
      unsafe: { ...console.unsafe, error: (...args) => parsing ? undefined : console.unsafe.error(...args) }
    }
    const root = Command.make("steward").pipe(
      Command.withSubcommands([area]),
      Command.transformHandler((effect) => Effect.zipRight(Effect.sync(() => void (parsing = false)), effect))
    )
    const execute = Command.run(root, { name: "steward", version: cliVersion() }) as (
      args: ReadonlyArray<string>
    ) => Effect.Effect<void, unknown, Environment>
    return yield* execute(["node", "steward", ...outcome.args])
      .pipe(
        Effect.provide(CliConfig.layer({ showBuiltIns: false })),
        Effect.withConsole(quiet),
        Effect.catchIf(ValidationError.isValidationError, (error) => {
          const text = "error" in error ? CommandSpec.docText(error.error as HelpDoc.HelpDoc) : "invalid usage"
          const { details, message, ...rest } = rephrase(text, outcome.spec, outcome.args)
          return Effect.fail(
            cannotRun("code" in rest ? rest.code : "usage", `${message}; see '${outcome.spec.path.join(" ")} --help'`, {
              command: outcome.spec.path.join(" "),
              ...details
            })
          )
        })
      )
  })

/**
 * The root's own words besides the areas: listed in its help and completed.
 *
 * @since 0.4.0
 * @category models
 */
export const rootWords = ["help", "completion", "--version", "-V"] as const

const completion = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const shell = args[0]
    const usage = "usage: steward completion bash|zsh|fish"
    if (args.length !== 1 || !(Completion.shells as ReadonlyArray<string>).includes(shell!)) {
      return yield* Effect.fail(
        cannotRun(
          "usage",
          shell === undefined ? `completion needs a shell (${usage})` : `unknown shell '${args.join(" ")}' (${usage})`,
          { argument: "SHELL", choices: [...Completion.shells] }
        )
      )
    }
    const { spec } = yield* loadAll
    yield* Console.log(Completion.script(shell as Completion.Shell, spec, rootWords).trimEnd())
  })

/**
 * Check `argv` (as `process.argv`: node, script, then arguments) against the grammar and run the
 * matching command; help and version are printed here, on stdout.
 *
 * @since 0.1.0
 * @category runners
 */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<void, unknown, Environment> =>
  Effect.gen(function*() {
    const split = Grammar.splitGlobals(argv.slice(2))
    if (!("rest" in split)) return yield* Effect.fail(split)
    // `steward help [CMD…]` is `steward CMD… --help`, as in git and cargo.
    const helpWord = firstWord(split.rest) === "help" && split.rest[0] === "help"
    const globals = helpWord ? { ...split, rest: [...split.rest.slice(1), "--help"] } : split
    const word = firstWord(globals.rest)
    if (word === "completion" && globals.rest[0] === "completion") return yield* completion(globals.rest.slice(1))
    const area = areas.find((a) => a.name === word)
    const loaded = area === undefined ? new Map<string, AnyCommand>() : yield* loadAreas([area.name])
    const parsed = Grammar.analyze(rootSpec(loaded), globals)
    if ("_tag" in parsed && parsed._tag === "CommandFailure") return yield* Effect.fail(parsed as CommandFailure)
    const outcome = parsed as Grammar.Parsed
    switch (outcome._tag) {
      case "Version":
        return yield* Output.result(globals.json, Version.report(), Version.render)
      case "Help":
        return yield* Console.log(Help.render(outcome.spec, { color: Help.colorAllowed() }))
      case "Run": {
        if (area === undefined) return yield* Effect.fail(cannotRun("internal", "no command resolved"))
        return yield* parseAndRun(loaded.get(area.name)!, outcome)
      }
    }
  })
