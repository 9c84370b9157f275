/**
 * The subject the audit-loop tests share: a git repository with one file, `src/core.py`, and an
 * audit over it with one norm, dimension and unit and one queued pass — set up through the CLI's
 * own verbs, so every loop test starts from a state the verbs wrote.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { runCli } from "../harness.js"

/** `git` in `cwd` under a throw-away identity (its output, as `execFileSync` returns it). */
export const gitIn = (cwd: string) => (...args: Array<string>) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "pipe" })

/** Writes `src/core.py` into `project` and commits it as the subject (`initArgs` go to `git init`). */
export const commitSubject = (project: string, source: string, initArgs: ReadonlyArray<string> = []) => {
  fs.mkdirSync(path.join(project, "src"))
  fs.writeFileSync(path.join(project, "src/core.py"), source)
  const git = gitIn(project)
  git("init", "-q", ...initArgs)
  git("add", ".")
  git("commit", "-qm", "subject")
  return git
}

/** `steward audit init` in `project`, then one norm, dimension, unit (`src/core.py`) and the queued pass P-01. */
export const queueOnePass = (project: string) =>
  Effect.gen(function*() {
    const at = ["--project", project]
    const unit = ["U01", "--material", "src/core.py", "--size", "1", "--responsibility", "core"]
    const pass = ["P-01", "--dimension", "invariants", "--units", "U01", "--charter", "c", "--stop", "s"]
    for (
      const args of [
        ["audit", "init"],
        ["audit", "update-catalog", "norm", "N1", "--source", "README.md", "--scope", "what it claims"],
        ["audit", "update-catalog", "dimension", "invariants", "--catches", "broken invariants", "--norms", "N1"],
        ["audit", "update-catalog", "unit", ...unit],
        ["audit", "queue-pass", ...pass]
      ]
    ) {
      const run = yield* runCli([...args, ...at])
      assert.strictEqual(run.exitCode, 0, `${args.join(" ")}: ${run.stderr}`)
    }
  })
