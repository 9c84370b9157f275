import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

describe("steward doctor", () => {
  it.live("reports a resolved version for every package a session uses, harness-sessions and @effect/ai among them", () =>
    Effect.gen(function*() {
      const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-doctor-"))
      const run = yield* runCli(["doctor", "--json", "--state-dir", state])
      assert.strictEqual(run.exitCode, 0)
      const packages: Record<string, string> = run.json().packages
      for (const name of ["@steward/harness-sessions", "@effect/ai", "@effect/sql-pg", "@steward/governance-rules"]) {
        assert.match(packages[name] ?? "missing", /^\d+\.\d+\.\d+/, `${name}: ${packages[name]}`)
      }
    }))
})
