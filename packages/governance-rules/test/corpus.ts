// The shared corpora (issues 12, 31, 32) and the workspace they are written against: a git
// repository holding `.env`, `.env.example` and `src/index.ts`; `{OUTSIDE}` is a directory outside.
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Files, Placement, Policy, Rule, ShellParser } from "../src/index.js"

// (not from helpers.ts: this module also runs outside vitest, for quick look-ups)
const tempWorkspace = (): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-gov-")))

export type Verdict = "allow" | "ask" | "deny"

export interface Case {
  readonly tool: "shell" | "read" | "write" | "fetch"
  readonly input: string
  readonly level: "read_only" | "assist" | "execute" | "autonomous"
  readonly grantAll: boolean
  readonly want: ReadonlyArray<Verdict>
  readonly class?: string
  readonly category?: string
}

export const load = (file: string): ReadonlyArray<Case> =>
  fs.readFileSync(path.join(import.meta.dirname, "fixtures", file), "utf8").split("\n")
    .filter((line) => line.trim().length > 0).map((line) => JSON.parse(line) as Case)

export interface Scene {
  readonly workspace: string
  readonly home: string
  readonly outside: string
}

export const scene = (): Scene => {
  const workspace = tempWorkspace()
  execFileSync("git", ["init", "-q", workspace])
  fs.mkdirSync(path.join(workspace, "src"))
  fs.writeFileSync(path.join(workspace, ".env"), "SECRET=1\n")
  fs.writeFileSync(path.join(workspace, ".env.example"), "SECRET=\n")
  fs.writeFileSync(path.join(workspace, "src/index.ts"), "export {}\n")
  return { workspace, home: tempWorkspace(), outside: tempWorkspace() }
}

const grantAll = [Rule.make({ id: "all", action: "*", resource: "*", effect: "allow" })]

export const callOf = (c: Case, outside: string): Policy.ToolCall => {
  const input = c.input.replaceAll("{OUTSIDE}", outside)
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

const STRICTNESS: Record<Verdict, number> = { allow: 0, ask: 1, deny: 2 }

/**
 * How a decision stands against a case's `want`: right, a **miss** (less strict than every
 * right answer: a false negative) or a **nag** (stricter than every right answer: a false
 * positive).
 */
export const judge = (decision: Verdict, want: ReadonlyArray<Verdict>): "right" | "miss" | "nag" => {
  if (want.includes(decision)) return "right"
  return STRICTNESS[decision] < Math.min(...want.map((w) => STRICTNESS[w])) ? "miss" : "nag"
}

export interface Decided {
  readonly case: Case
  readonly gate: Policy.Decision
  /** With the boundary on (contained allows count as allow). */
  readonly placed: Placement.Placed
}

/** Decide every case with the boundary off and on (needs `ShellParser`). */
export const decideAll = (cases: ReadonlyArray<Case>, at: Scene) =>
  Effect.gen(function*() {
    const parser = yield* ShellParser.ShellParser
    yield* parser.ready
    const compiled = new Map<string, Policy.Compiled>()
    const out: Array<Decided> = []
    for (const c of cases) {
      const key = `${c.level}/${c.grantAll}`
      let policy = compiled.get(key)
      if (policy === undefined) {
        policy = yield* Policy.compile({
          level: c.level,
          workspace: at.workspace,
          home: at.home,
          files: Files.node,
          rules: c.grantAll ? grantAll : []
        })
        compiled.set(key, policy)
      }
      const call = callOf(c, at.outside)
      const gate = Policy.decideSync(policy, parser, call)
      const placed = Placement.place(gate, call, {
        state: "on",
        allowDomains: [],
        writable: c.level !== "read_only"
      })
      out.push({ case: c, gate, placed })
    }
    return out
  })
