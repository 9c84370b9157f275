import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Cli from "../src/Cli.js"
import * as CliError from "../src/CliError.js"
import * as CommandSpec from "../src/CommandSpec.js"
import * as ErrorCodes from "../src/ErrorCodes.js"
import * as Examples from "../src/Examples.js"
import * as Grammar from "../src/Grammar.js"
import * as Help from "../src/Help.js"
import { runCli } from "./harness.js"

// The whole command tree, every verb: help a person can read, examples that parse, and no
// misspelled option ever accepted.

const load = () => Effect.runPromise(Cli.loadAll)

const groupsOf = (spec: CommandSpec.CommandSpec): ReadonlyArray<CommandSpec.CommandSpec> =>
  spec.children.length === 0 ? [] : [spec, ...spec.children.flatMap(groupsOf)]

/** A typo of an option name: two letters swapped, or a letter dropped for short names. */
const misspell = (name: string): string => {
  const bare = name.replace(/^-+/, "")
  if (bare.length <= 3) return `--${bare}x`
  return `--${bare.slice(0, 1)}${bare.slice(2, 3)}${bare.slice(1, 2)}${bare.slice(3)}`
}

describe("the command tree", () => {
  it.effect("every verb's help fits 100 columns, has no escapes, no filler, and an example", () =>
    Effect.gen(function*() {
      const { spec } = yield* Effect.promise(load)
      const all = [...groupsOf(spec), ...CommandSpec.leaves(spec)]
      assert.isAbove(CommandSpec.leaves(spec).length, 40)
      for (const node of all) {
        const where = node.path.join(" ")
        const text = Help.render(node)
        for (const line of text.split("\n")) assert.isAtMost(line.length, 100, `${where}: ${line}`)
        assert.notMatch(text, /\u001b/, where)
        assert.notMatch(text, /A user-defined piece of text|A true or false value|This setting is optional/, where)
        assert.include(text, `Usage: ${where}`, where)
        const usage = text.split("\n")[0]!.split(/\s+/)
        assert.isTrue(usage.every((word, i) => i === 0 || word !== usage[i - 1]), `${where}: duplicated prefix`)
        assert.isAtLeast(Examples.of(node.path).length, 1, `${where} has no example`)
        assert.isAbove(node.description.length, 10, `${where} has no description`)
        for (const option of node.options) assert.isAbove(option.description.length, 5, `${where} ${option.names[0]}`)
        // a label and its text are two columns: never one space apart
        for (const option of node.options) {
          const label = Help.optionLabel(option)
          const row = text.split("\n").find((l) => l.startsWith(`  ${label}`))
          if (row === undefined) continue
          const after = row.slice(2 + label.length)
          assert.isTrue(after === "" || after.startsWith("  "), `${where}: '${row}'`)
        }
        for (const arg of node.args) assert.isAbove(arg.description.length, 5, `${where} ${arg.name}`)
      }
    }))

  it.effect("every verb's --help as printed (stdout not a terminal) fits 100 columns with no escapes", () =>
    Effect.gen(function*() {
      const { spec } = yield* Effect.promise(load)
      for (const node of [...groupsOf(spec), ...CommandSpec.leaves(spec)]) {
        const where = node.path.join(" ")
        const run = yield* runCli([...node.path.slice(1), "--help"])
        assert.strictEqual(run.exitCode, 0, where)
        assert.include(run.stdout, `Usage: ${where}`, where)
        assert.include(run.stdout, "Examples:", where)
        assert.notMatch(run.stdout, /\u001b/, where)
        for (const line of run.stdout.split("\n")) assert.isAtMost(line.length, 100, `${where}: ${line}`)
      }
    }))

  it.effect("every example passes the grammar of the verb it belongs to", () =>
    Effect.gen(function*() {
      const { spec } = yield* Effect.promise(load)
      for (const node of [...groupsOf(spec), ...CommandSpec.leaves(spec)]) {
        for (const example of Examples.of(node.path)) {
          // split like a shell would for these simple lines: quotes group words
          const words = [...example.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(1)
          const globals = Grammar.splitGlobals(words)
          assert.isTrue("rest" in globals, example)
          const parsed = Grammar.analyze(spec, globals as Grammar.Globals)
          assert.isFalse(
            parsed instanceof CliError.CommandFailure,
            `${example}: ${(parsed as { message?: string }).message}`
          )
        }
      }
    }))

  it.effect("every verb refuses a misspelled option with exit 2, naming it and the nearest valid one", () =>
    Effect.gen(function*() {
      const { spec } = yield* Effect.promise(load)
      for (const leaf of CommandSpec.leaves(spec)) {
        const own = leaf.options.find((o) => !o.names.includes("--json") && !o.names.includes("--state-dir"))
        const target = own?.names[0] ?? "--json"
        const typo = misspell(target)
        const text = yield* runCli([...leaf.path.slice(1), typo])
        assert.strictEqual(text.exitCode, 2, `${leaf.path.join(" ")} ${typo}: ${text.stderr}`)
        assert.include(text.stderr, `unknown option ${typo}`)
        assert.include(text.stderr, `did you mean ${target}?`, leaf.path.join(" "))
        const json = yield* runCli([...leaf.path.slice(1), typo, "--json"])
        assert.strictEqual(json.exitCode, 2)
        assert.strictEqual(json.errorJson().error.code, "usage")
        // a code of the documented closed set, with that code's exit
        assert.isTrue(Object.hasOwn(ErrorCodes.codes, json.errorJson().error.code))
        assert.strictEqual(ErrorCodes.codes[json.errorJson().error.code as ErrorCodes.Code].exit, json.exitCode)
        assert.strictEqual(json.errorJson().error.details.option, typo)
        assert.strictEqual(json.stdout, "")
      }
    }))

  it.effect("every verb with a required argument, given none, names the argument and its usage line", () =>
    Effect.gen(function*() {
      const { spec } = yield* Effect.promise(load)
      const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-tree-args-"))
      let checked = 0
      for (const leaf of CommandSpec.leaves(spec)) {
        const first = leaf.args[0]
        if (first === undefined || first.optional) continue
        const where = leaf.path.join(" ")
        // required options too, so the missing argument is the one error
        const required = leaf.options.filter((o) => !o.optional && o.takesValue).flatMap((o) => [o.names[0]!, "x"])
        const run = yield* runCli([...leaf.path.slice(1), ...required, "--json", "--state-dir", state])
        assert.strictEqual(run.exitCode, 2, `${where}: ${run.stderr}`)
        const error = run.errorJson().error
        assert.strictEqual(error.code, "usage", where)
        assert.include(error.message, `missing argument ${first.name} for ${where} (`, where)
        assert.include(error.message, `(usage: ${where} `, where)
        if (first.choices !== undefined) assert.deepStrictEqual(error.details.choices, first.choices, where)
        assert.notInclude(error.message, "Missing argument <", where)
        assert.strictEqual(error.details.argument, first.name, where)
        checked++
      }
      assert.isAbove(checked, 20)
      const option = yield* runCli(["reflex", "decide", "settle", "--json", "--state-dir", state])
      assert.strictEqual(option.exitCode, 2)
      assert.include(option.errorJson().error.message, "missing option --text for steward reflex decide settle")
      assert.strictEqual(option.errorJson().error.details.option, "--text")
    }))

  it.effect("every verb whose argument has choices names the argument, the value and the choices", () =>
    Effect.gen(function*() {
      const { spec } = yield* Effect.promise(load)
      const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-tree-choices-"))
      let checked = 0
      for (const leaf of CommandSpec.leaves(spec)) {
        const first = leaf.args[0]
        if (first?.choices === undefined) continue
        const where = leaf.path.join(" ")
        const rest = leaf.args.slice(1).filter((a) => !a.optional).map(() => "x")
        const required = leaf.options.filter((o) => !o.optional && o.takesValue).flatMap((o) => [o.names[0]!, "x"])
        const run = yield* runCli([
          ...leaf.path.slice(1),
          "bogus",
          ...rest,
          ...required,
          "--json",
          "--state-dir",
          state
        ])
        assert.strictEqual(run.exitCode, 2, `${where}: ${run.stderr}`)
        const error = run.errorJson().error
        assert.strictEqual(error.code, "usage", where)
        assert.include(error.message, `${first.name}: 'bogus' is not one of ${first.choices.join(", ")}`, where)
        assert.notInclude(error.message, "Expected one of the following cases", where)
        assert.deepStrictEqual(error.details.choices, first.choices, where)
        assert.strictEqual(error.details.value, "bogus", where)
        checked++
      }
      assert.isAtLeast(checked, 3)
    }))

  it.effect("every verb given one argument too many names the extra word and what it takes", () =>
    Effect.gen(function*() {
      const { spec } = yield* Effect.promise(load)
      const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-tree-extra-"))
      let checked = 0
      for (const leaf of CommandSpec.leaves(spec)) {
        if (leaf.args.some((a) => a.repeated)) continue
        const where = leaf.path.join(" ")
        const words = [...leaf.args.map((a) => a.choices?.[0] ?? "x"), "zzextra"]
        const run = yield* runCli([...leaf.path.slice(1), ...words, "--json", "--state-dir", state])
        assert.strictEqual(run.exitCode, 2, `${where}: ${run.stderr}`)
        const error = run.errorJson().error
        assert.strictEqual(error.code, "usage", where)
        assert.include(error.message, `unexpected argument 'zzextra' (${where} takes `, where)
        assert.deepStrictEqual(error.details.arguments, ["zzextra"], where)
        checked++
      }
      assert.isAbove(checked, 30)
    }))

  it.effect("an unknown verb is reported by its own level, listing that level's verbs", () =>
    Effect.gen(function*() {
      const { spec } = yield* Effect.promise(load)
      for (const group of groupsOf(spec)) {
        const run = yield* runCli([...group.path.slice(1), "frobnicate", "--json"])
        assert.strictEqual(run.exitCode, 2, group.path.join(" "))
        const error = run.errorJson().error
        assert.strictEqual(error.code, "usage")
        assert.include(error.message, `for ${group.path.join(" ")};`)
        assert.deepStrictEqual(error.details.commands, group.children.map((c) => c.name))
      }
      const typo = yield* runCli(["algal", "chek"])
      assert.include(typo.stderr, "did you mean 'check'?")
    }))

  it.effect("policy check never judges a misspelled flag as part of the command", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["policy", "check", "--levle", "read_only", "--", "echo hi > out.txt", "--json"])
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stdout, "")
      assert.include(run.stderr, "unknown option --levle (did you mean --level?)")
      const words = yield* runCli(["policy", "check", "git", "status", "--json"])
      assert.strictEqual(words.exitCode, 2)
      assert.include(words.errorJson().error.message, "COMMAND must be one argument")
      const bad = yield* runCli(["policy", "check", "--level", "readonly", "--json", "git status"])
      assert.strictEqual(bad.exitCode, 2)
      assert.include(bad.errorJson().error.message, "read_only, assist, execute, autonomous")
    }))

  it.effect("--json and --state-dir are accepted at any level", () =>
    Effect.gen(function*() {
      const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-tree-"))
      for (
        const args of [
          ["--json", "doctor", "--state-dir", state],
          ["--state-dir", state, "--json", "doctor"],
          ["doctor", `--state-dir=${state}`, "--json"]
        ]
      ) {
        const run = yield* runCli(args)
        assert.strictEqual(run.exitCode, 0, `${args.join(" ")}: ${run.stderr}`)
        assert.strictEqual(run.json().stateDir.path, state)
      }
      const policy = yield* runCli(["--json", "policy", "check", "--state-dir", state, "--", "ls --json"])
      assert.strictEqual(policy.exitCode, 0, policy.stderr)
      assert.strictEqual(policy.json().call.command, "ls --json")
    }))

  it.effect("help is printed by every level, and the root lists every area", () =>
    Effect.gen(function*() {
      const root = yield* runCli(["--help"])
      assert.strictEqual(root.exitCode, 0)
      for (const area of Cli.areas) assert.include(root.stdout, `  ${area.name} `)
      const { spec } = yield* Effect.promise(load)
      for (const area of spec.children) {
        const listed = Cli.areas.find((a) => a.name === area.name)!
        assert.strictEqual(listed.description, area.description, `the registry describes ${area.name} as it does`)
      }
      const leaf = yield* runCli(["algal", "check", "--help"])
      assert.include(leaf.stdout, "Usage: steward algal check [OPTIONS] FILE")
      const bare = yield* runCli(["algal"])
      assert.strictEqual(bare.exitCode, 0)
      assert.include(bare.stdout, "Commands:")
    }))
})
