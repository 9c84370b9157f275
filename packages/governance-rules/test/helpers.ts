import { assert } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type Autonomy, Files, Policy, Rule, ShellParser } from "../src/index.js"

export const Parser = ShellParser.layer.pipe(Layer.orDie)

export interface Setup {
  readonly level?: Autonomy.Level
  readonly workspace?: string
  readonly home?: string
  readonly rules?: ReadonlyArray<Rule.RuleInput>
}

/**
 * Decide a tool call under a configuration (needs `ShellParser`). A workspace that is not on the
 * disk (the default `/srv/app`) is decided twice — through the real filesystem and through an
 * in-memory tree holding the workspace and home — and both verdicts must agree, so the suites
 * that decide through here run against both `Files` layers (issue 18 item 4).
 */
export const decide = (call: Policy.ToolCall, setup: Setup = {}) =>
  Effect.gen(function*() {
    const parser = yield* ShellParser.ShellParser
    yield* parser.ready
    const workspace = setup.workspace ?? "/srv/app"
    const home = setup.home ?? "/home/dev"
    const config = {
      level: setup.level ?? "execute",
      workspace,
      home,
      rules: (setup.rules ?? []).map(Rule.make)
    }
    const onDisk = yield* Policy.compile({ ...config, files: Files.node })
    const decision = Policy.decideSync(onDisk, parser, call)
    if (!fs.existsSync(workspace) && !fs.existsSync(home)) {
      const inMemory = yield* Policy.compile({
        ...config,
        files: Files.memory({ [workspace]: "directory", [home]: "directory" })
      })
      // the verdict and the rule that decided agree (reasons may list what a glob over the real
      // root matched, which the tree does not hold)
      const other = Policy.decideSync(inMemory, parser, call)
      const verdict = (d: Policy.Decision) => [d.decision, d.citation.layer, d.citation.ruleId]
      assert.deepStrictEqual(verdict(other), verdict(decision), "in-memory Files layer")
    }
    return decision
  })

export const shell = (command: string, setup: Setup = {}) => decide({ tool: "shell", command }, setup)

/** A fresh temporary workspace (real path). */
export const tempWorkspace = (): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-gov-")))
