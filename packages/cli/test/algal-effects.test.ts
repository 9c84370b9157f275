import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const fixtures = path.join(import.meta.dirname, "fixtures", "algal")
const fixture = (name: string) => path.join(fixtures, name)
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-algal2-"))
/** A state directory inside `dir` (an explicit --state-dir must exist). */
const stateIn = (dir: string) => {
  const state = path.join(dir, "state")
  fs.mkdirSync(state, { recursive: true })
  return state
}
const writeJson = (dir: string, name: string, value: unknown) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value))
  return file
}

describe("steward algal run --responses / --store, replay", () => {
  it.live("runs triage with scripted responses, stores the receipt by digest, verifies and replays it identically", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const args = writeJson(dir, "args.json", { ticket: { text: "it crashes" } })
      const store = path.join(dir, "store")
      const run = yield* runCli([
        "algal",
        "run",
        fixture("triage.algal.json"),
        "--args",
        args,
        "--responses",
        fixture("triage.responses.json"),
        "--store",
        store,
        "--json",
        "--state-dir",
        stateIn(dir)
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const receipt = run.json()
      assert.strictEqual(receipt.outcome, "complete")
      assert.strictEqual(receipt.effects[0].executor, "scripted")
      assert.strictEqual(receipt.cells["as-bug"].outputs.value, "BUG: it crashes")
      const stored = path.join(store, `${receipt.digest.slice(7)}.receipt.json`)
      assert.isTrue(fs.existsSync(stored))
      const replay = yield* runCli([
        "algal",
        "replay",
        stored,
        "--manifest",
        fixture("triage.algal.json"),
        "--json",
        "--state-dir",
        stateIn(dir)
      ])
      assert.strictEqual(replay.exitCode, 0, replay.stderr)
      assert.deepStrictEqual(replay.json().verdict, "identical")
      const verify = yield* runCli([
        "algal",
        "verify",
        stored,
        "--manifest",
        fixture("triage.algal.json"),
        "--state-dir",
        stateIn(dir)
      ])
      assert.strictEqual(verify.exitCode, 0, verify.stdout)
      // a tampered effect output diverges (exit 1) and names the field
      const forged = JSON.parse(fs.readFileSync(stored, "utf8"))
      forged.effects[0].output = "feature"
      const bad = yield* runCli([
        "algal",
        "replay",
        writeJson(dir, "forged.json", forged),
        "--manifest",
        fixture("triage.algal.json"),
        "--json",
        "--state-dir",
        stateIn(dir)
      ])
      assert.strictEqual(bad.exitCode, 1)
      assert.strictEqual(bad.json().verdict, "diverged")
      assert.isTrue(bad.json().mismatches.some((m: string) => m.startsWith("cells.route.outputs")))
    }))

  it.live("without responses every effect cell fails EFFECT_UNBOUND (exit 1, receipt printed)", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const args = writeJson(dir, "args.json", { ticket: { text: "x" } })
      const run = yield* runCli([
        "algal",
        "run",
        fixture("triage.algal.json"),
        "--args",
        args,
        "--json",
        "--state-dir",
        dir
      ])
      assert.strictEqual(run.exitCode, 1)
      assert.strictEqual(run.json().failure.code, "EFFECT_UNBOUND")
      assert.strictEqual(run.json().effects[0].executor, "unbound")
    }))

  it.live("swarm: each over three questions served by a per-cell queue", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const run = yield* runCli([
        "algal",
        "run",
        fixture("swarm.algal.json"),
        "--args",
        fixture("swarm.args.json"),
        "--responses",
        fixture("swarm.responses.json"),
        "--json",
        "--state-dir",
        dir
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.strictEqual(run.json().cells.map.items, 3)
    }))

  it.live("bad responses files exit 2 naming the file and path; nothing is written", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const args = writeJson(dir, "args.json", { ticket: { text: "x" } })
      const store = path.join(dir, "store")
      for (const bad of [[1, 2], { route: { $error: { code: "NOPE", message: "x" } } }]) {
        const run = yield* runCli([
          "algal",
          "run",
          fixture("triage.algal.json"),
          "--args",
          args,
          "--responses",
          writeJson(dir, "bad.json", bad),
          "--store",
          store,
          "--state-dir",
          dir
        ])
        assert.strictEqual(run.exitCode, 2)
        assert.include(run.stderr, "PARSE_FAILED")
        assert.include(run.stderr, "bad.json")
      }
      assert.isFalse(fs.existsSync(store))
    }))

  it.live("replay of a receipt from another manifest could not replay (exit 1); a non-receipt too", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const args = writeJson(dir, "args.json", { ticket: { text: "x" } })
      const run = yield* runCli([
        "algal",
        "run",
        fixture("triage.algal.json"),
        "--args",
        args,
        "--responses",
        fixture("triage.responses.json"),
        "--json",
        "--state-dir",
        dir
      ])
      const receipt = writeJson(dir, "r.json", run.json())
      const other = yield* runCli([
        "algal",
        "replay",
        receipt,
        "--manifest",
        fixture("counter.algal.json"),
        "--json",
        "--state-dir",
        dir
      ])
      assert.strictEqual(other.exitCode, 1)
      assert.strictEqual(other.json().verdict, "could-not-replay")
      const junk = yield* runCli([
        "algal",
        "replay",
        writeJson(dir, "junk.json", { hello: 1 }),
        "--manifest",
        fixture("triage.algal.json"),
        "--json",
        "--state-dir",
        dir
      ])
      assert.strictEqual(junk.json().verdict, "could-not-replay")
    }))
})

describe("steward algal run --managed / resume", () => {
  it.live("the project controller suspends at each agent cell and resumes to completion", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const manifest = fixture("project-controller.algal.json")
      const first = yield* runCli(["algal", "run", manifest, "--managed", "--json", "--state-dir", dir])
      assert.strictEqual(first.exitCode, 1)
      assert.strictEqual(first.json().outcome, "suspended")
      assert.strictEqual(first.json().cells.inspect.status, "suspended")
      const cp1 = writeJson(dir, "cp1.json", first.stdout)
      const second = yield* runCli([
        "algal",
        "resume",
        cp1,
        "--manifest",
        manifest,
        "--managed",
        "--response",
        "inspected",
        "--json",
        "--state-dir",
        dir
      ])
      assert.strictEqual(second.json().outcome, "suspended")
      assert.strictEqual(second.json().cells.act.status, "suspended")
      const cp2 = writeJson(dir, "cp2.json", second.stdout)
      const third = yield* runCli([
        "algal",
        "resume",
        cp2,
        "--manifest",
        manifest,
        "--managed",
        "--response",
        "acted",
        "--json",
        "--state-dir",
        dir
      ])
      assert.strictEqual(third.exitCode, 0, third.stderr)
      assert.strictEqual(third.json().outcome, "complete")
      assert.deepStrictEqual(third.json().cells.act.outputs, { out: "acted" })
      const again = yield* runCli([
        "algal",
        "resume",
        cp2,
        "--manifest",
        manifest,
        "--managed",
        "--response",
        "acted",
        "--json",
        "--state-dir",
        dir
      ])
      assert.strictEqual(again.json().digest, third.json().digest)
    }))

  it.live("resume refuses a complete receipt or a tampered checkpoint with exit 2", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const manifest = fixture("project-controller.algal.json")
      const first = yield* runCli(["algal", "run", manifest, "--managed", "--json", "--state-dir", dir])
      const forged = first.json()
      forged.work.units += 1
      const bad = yield* runCli([
        "algal",
        "resume",
        writeJson(dir, "f.json", forged),
        "--manifest",
        manifest,
        "--managed",
        "--response",
        "x",
        "--state-dir",
        dir
      ])
      assert.strictEqual(bad.exitCode, 2)
      assert.include(bad.stderr, "RECEIPT_MISMATCH")
      const done = { ...first.json(), outcome: "complete" }
      const notSuspended = yield* runCli([
        "algal",
        "resume",
        writeJson(dir, "d.json", done),
        "--manifest",
        manifest,
        "--state-dir",
        dir
      ])
      assert.strictEqual(notSuspended.exitCode, 2)
    }))

  it.live("check --profile managed admits the controller and refuses a tool-using program listing the rules", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const ok = yield* runCli([
        "algal",
        "check",
        fixture("project-controller.algal.json"),
        "--profile",
        "managed",
        "--json"
      ])
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
      assert.strictEqual(ok.json().profile, "managed")
      const bad = JSON.parse(fs.readFileSync(fixture("project-controller.algal.json"), "utf8"))
      bad.cells[0].retry = { attempts: 2 }
      bad.budgets = { maxDepth: 2 }
      const refused = yield* runCli([
        "algal",
        "check",
        writeJson(dir, "bad.algal.json", bad),
        "--profile",
        "managed",
        "--state-dir",
        dir
      ])
      assert.strictEqual(refused.exitCode, 1)
      assert.include(refused.stderr, "agent-cells")
      assert.include(refused.stderr, "budget-caps")
    }))
})
