import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type Autonomy, Policy, Rule, ShellParser } from "../src/index.js"

export const Parser = ShellParser.layer.pipe(Layer.orDie)

export interface Setup {
  readonly level?: Autonomy.Level
  readonly workspace?: string
  readonly home?: string
  readonly rules?: ReadonlyArray<Rule.RuleInput>
}

/** Decide a tool call under a configuration (needs `ShellParser`). */
export const decide = (call: Policy.ToolCall, setup: Setup = {}) =>
  Effect.gen(function*() {
    const parser = yield* ShellParser.ShellParser
    yield* parser.ready
    const compiled = yield* Policy.compile({
      level: setup.level ?? "execute",
      workspace: setup.workspace ?? "/srv/app",
      ...(setup.home === undefined ? {} : { home: setup.home }),
      rules: (setup.rules ?? []).map(Rule.make)
    })
    return Policy.decideSync(compiled, parser, call)
  })

export const shell = (command: string, setup: Setup = {}) => decide({ tool: "shell", command }, setup)

/** A fresh temporary workspace (real path). */
export const tempWorkspace = (): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-gov-")))
