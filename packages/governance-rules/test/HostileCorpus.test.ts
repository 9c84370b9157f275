import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Files, Policy, Rule, ShellParser } from "../src/index.js"
import { Parser, tempWorkspace } from "./helpers.js"

// The shared red-team corpus (issue 12): every case's decision must be one of its `want`s, and
// every ask or deny must cite the rule (or engine guard) that made it.
interface Case {
  readonly tool: "shell" | "read" | "write" | "fetch"
  readonly input: string
  readonly level: "read_only" | "assist" | "execute" | "autonomous"
  readonly grantAll: boolean
  readonly want: ReadonlyArray<"allow" | "ask" | "deny">
  readonly class: string
}

const cases: ReadonlyArray<Case> = fs
  .readFileSync(path.join(import.meta.dirname, "fixtures/hostile-commands.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim().length > 0)
  .map((line) => JSON.parse(line) as Case)

// The workspace the corpus is written against: a git repository holding `.env`, `.env.example`
// and `src/index.ts`; `{OUTSIDE}` is a directory outside it.
const workspace = tempWorkspace()
const home = tempWorkspace()
const outside = tempWorkspace()
execFileSync("git", ["init", "-q", workspace])
fs.mkdirSync(path.join(workspace, "src"))
fs.writeFileSync(path.join(workspace, ".env"), "SECRET=1\n")
fs.writeFileSync(path.join(workspace, ".env.example"), "SECRET=\n")
fs.writeFileSync(path.join(workspace, "src/index.ts"), "export {}\n")

const grantAll = [Rule.make({ id: "all", action: "*", resource: "*", effect: "allow" })]

const callOf = (c: Case, outsideDir: string): Policy.ToolCall => {
  const input = c.input.replaceAll("{OUTSIDE}", outsideDir)
  switch (c.tool) {
    case "shell":
      return { tool: "shell", command: input }
    case "read":
      return { tool: "read", paths: [input] }
    case "write":
      return { tool: "write", paths: [input] }
    case "fetch":
      return { tool: "fetch", url: input }
  }
}

// The same workspace as an in-memory tree (issue 18: the suite also runs without a real disk).
const memory = Files.memory({
  "/mem/ws/.git/HEAD": "file",
  "/mem/ws/.env": "file",
  "/mem/ws/.env.example": "file",
  "/mem/ws/src/index.ts": "file",
  "/mem/home": "directory",
  "/mem/outside": "directory"
})

const setups = [
  { name: "real filesystem", workspace, home, outside, files: Files.node },
  { name: "in-memory filesystem", workspace: "/mem/ws", home: "/mem/home", outside: "/mem/outside", files: memory }
] as const

describe.each(setups)("hostile-commands corpus ($name)", (setup) => {
  layer(Parser)((it) => {
    cases.forEach((c, index) => {
      it.effect(`#${index + 1} [${c.class}] ${JSON.stringify(c.input.slice(0, 80))} → ${c.want.join("|")}`, () =>
        Effect.gen(function*() {
          const parser = yield* ShellParser.ShellParser
          yield* parser.ready
          const compiled = yield* Policy.compile({
            level: c.level,
            workspace: setup.workspace,
            home: setup.home,
            files: setup.files,
            rules: c.grantAll ? grantAll : []
          })
          const decision = Policy.decideSync(compiled, parser, callOf(c, setup.outside))
          assert.include(c.want, decision.decision, decision.reasons.join("\n"))
          if (decision.decision !== "allow") {
            // The citation names the rule or engine guard that decided (or, for a destination no
            // rule grants, the default: authority is never granted by silence) and what it matched.
            const citation = decision.citation
            assert.strictEqual(citation.effect, decision.decision)
            if (citation.layer === "default") assert.include(citation.reason, "never granted by silence")
            else assert.isNotNull(citation.ruleId, citation.reason)
            assert.isAbove(citation.resource.length, 0)
          }
        }))
    })
  })
})
