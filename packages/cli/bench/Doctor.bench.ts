import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { bench, describe } from "vitest"
import { runCli } from "../test/harness.js"

// In-process `steward doctor --json` against a warm state directory: argument parsing, state
// directory checks, config load, opening SQLite (WAL) and checking migrations.
const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-bench-"))

describe("cli", () => {
  bench("steward doctor --json (in-process, warm state dir)", async () => {
    const run = await Effect.runPromise(runCli(["doctor", "--json", "--state-dir", state]))
    if (run.exitCode !== 0) throw new Error(run.stderr)
  }, { time: 1000 })
})
