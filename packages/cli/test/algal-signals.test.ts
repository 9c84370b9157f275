import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

/** Sixty expr cells of real (admitted) work each: a run of a second or more, all synchronous. */
const heavy = () => {
  const body = ["fold", ["take", ["get", "l"], 700], 0, "a", "x", [
    "fold",
    ["take", ["get", "l"], 5],
    ["get", "a"],
    "b",
    "y",
    ["add", ["get", "b"], ["len", ["reverse", ["take", ["get", "l"], 40]]]]
  ]]
  const cells = Array.from({ length: 60 }, (_, i) => ({
    id: `e${i}`,
    kind: "expr",
    inputs: { l: "json" },
    expr: { contract: "algal.expr.v1", program: body },
    output: { kind: "json", schema: { type: "number" } }
  }))
  return {
    contract: "algal.organism.v1",
    key: "organism:heavy",
    name: "Heavy",
    budgets: { maxWork: 100_000_000 },
    cells: [{ id: "in", kind: "input", outputs: { l: "json" } }, ...cells],
    edges: cells.map((c) => ({ from: { cell: "in", port: "l" }, to: { cell: c.id, port: "l" } }))
  }
}

const setup = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "steward-signals-"))
  const manifest = path.join(dir, "heavy.algal.json")
  fs.writeFileSync(manifest, JSON.stringify(heavy()))
  const args = path.join(dir, "args.json")
  fs.writeFileSync(args, JSON.stringify({ in: { l: Array.from({ length: 1000 }, (_, i) => i) } }))
  return { dir, manifest, args }
}

/**
 * Run `steward algal run` in-process and deliver `signal` 50 ms after the run has begun. `process.exit` is recorded
 * instead of taken, so the test sees the code the CLI chose and whether it chose it mid-run.
 */
const interrupted = (signal: "SIGINT" | "SIGTERM", extra: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const { args, dir, manifest } = setup()
    const exits: Array<{ code: number; at: number }> = []
    const exit = process.exit
    process.exit = ((code?: number) => void exits.push({ code: code ?? 0, at: performance.now() })) as never
    // deliver the signal once the command has installed its handler (the run has begun), then
    // wait: it is handled only when the run gives the event loop a turn between steps
    const before = process.listenerCount(signal)
    const timer = setInterval(() => {
      if (process.listenerCount(signal) > before) {
        clearInterval(timer)
        setTimeout(() => process.emit(signal as never), 50)
      }
    }, 5)
    try {
      const run = yield* runCli(["algal", "run", manifest, "--args", args, "--state-dir", dir, ...extra])
      return { run, exits, finished: performance.now() }
    } finally {
      clearInterval(timer)
      process.exit = exit
    }
  })

describe("steward algal run honours SIGINT and SIGTERM between steps", () => {
  it.live("SIGTERM during a long synchronous run stops it with 143 before the run ends", () =>
    Effect.gen(function*() {
      const { exits, finished } = yield* interrupted("SIGTERM")
      assert.strictEqual(exits.length, 1, "the signal was handled while the run was in progress")
      assert.strictEqual(exits[0]!.code, 143)
      assert.isBelow(exits[0]!.at, finished)
    }), { timeout: 120_000 })

  it.live("SIGINT stops it with 130, also without a receipt", () =>
    Effect.gen(function*() {
      const { exits } = yield* interrupted("SIGINT", ["--no-receipt"])
      assert.strictEqual(exits.length, 1)
      assert.strictEqual(exits[0]!.code, 130)
    }), { timeout: 120_000 })

  it.live("with no signal the same run completes and exits 0; no handler outlives it", () =>
    Effect.gen(function*() {
      const { args, dir, manifest } = setup()
      const before = process.listenerCount("SIGTERM")
      const run = yield* runCli(["algal", "run", manifest, "--args", args, "--state-dir", dir, "--json"])
      assert.strictEqual(run.exitCode, 0, run.stdout.slice(0, 2000) + run.stderr)
      assert.strictEqual(run.json().outcome, "complete")
      assert.strictEqual(process.listenerCount("SIGTERM"), before)
    }), { timeout: 120_000 })
})
