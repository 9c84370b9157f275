import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const fixtures = path.join(import.meta.dirname, "fixtures", "algal")
const fixture = (name: string) => path.join(fixtures, name)
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-algal-"))
const writeJson = (dir: string, name: string, value: unknown) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value))
  return file
}
const read = (name: string) => JSON.parse(fs.readFileSync(fixture(name), "utf8"))
const settleArgs = {
  src: {
    features: { a: 1, b: 0.5 },
    params: {
      unfinished: { bias: -0.2, cut: 0.5, terms: [{ f: "a", w: 0.7 }, { f: "b", w: 0.1 }] },
      confirm: { bias: -1, cut: 0.3, terms: [{ f: "b", w: 0.4 }] }
    },
    evidence: { state: "idle", limit: 0, blocked: 0, done_claim: 1 }
  }
}
const tiny = (extra: Record<string, unknown> = {}) => ({
  contract: "algal.organism.v1",
  key: "organism:tiny",
  name: "Tiny",
  cells: [{ id: "in", kind: "input", outputs: { v: "json" } }, { id: "out", kind: "fn", fn: "echo.v1" }],
  edges: [{ from: { cell: "in", port: "v" }, to: { cell: "out", port: "value" } }],
  ...extra
})

describe("steward algal digest/check/canonical/explain", () => {
  it.live("digest reproduces the embedded digests: inbox → triage, swarm → swarm-inner, refine → refine-inner, bundle file name", () =>
    Effect.gen(function*() {
      const pairs: ReadonlyArray<readonly [string, string]> = [["triage", "inbox"], ["swarm-inner", "swarm"], [
        "refine-inner",
        "refine"
      ]]
      for (const [inner, outer] of pairs) {
        const run = yield* runCli(["algal", "digest", fixture(`${inner}.algal.json`)])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.strictEqual(run.stdout, read(`${outer}.algal.json`).cells[1].manifest)
      }
      const bundleName = fs.readdirSync(fixtures).find((f) => f.endsWith(".bundle.json"))!
      const bundle = read(bundleName)
      const file = writeJson(tempDir(), "remote-inner.algal.json", Object.values(bundle.manifests)[0])
      const run = yield* runCli(["algal", "digest", "--json", file])
      assert.strictEqual(run.exitCode, 0)
      assert.deepStrictEqual(run.json(), {
        digest: `sha256:${bundleName.replace(".bundle.json", "")}`,
        key: "organism:remote-inner"
      })
      assert.strictEqual(run.json().digest, bundle.root)
    }))

  it.live("check compiles organisms with embedded manifests resolved from sibling files", () =>
    Effect.gen(function*() {
      for (const name of ["inbox", "swarm", "refine", "settle", "stash", "counter"]) {
        const run = yield* runCli(["algal", "check", "--json", fixture(`${name}.algal.json`)])
        assert.strictEqual(run.exitCode, 0, `${name}: ${run.stderr}`)
        assert.isTrue(run.json().ok)
        assert.match(run.json().digest, /^sha256:[0-9a-f]{64}$/)
      }
      const missing = yield* runCli(["algal", "check", "--json", "--manifests", tempDir(), fixture("inbox.algal.json")])
      assert.strictEqual(missing.exitCode, 2)
      assert.strictEqual(missing.errorJson().error.reason, "STORE_MISS")
    }))

  it.live("check of an invalid program exits 2 with the ALGAL code, message and path; text mode prints one line", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const cycle = writeJson(
        dir,
        "cycle.json",
        tiny({
          cells: [{ id: "a", kind: "fn", fn: "echo.v1" }, { id: "b", kind: "fn", fn: "echo.v1" }],
          edges: [
            { from: { cell: "a", port: "value" }, to: { cell: "b", port: "value" } },
            { from: { cell: "b", port: "value" }, to: { cell: "a", port: "value" } }
          ]
        })
      )
      const run = yield* runCli(["algal", "check", "--json", cycle])
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stdout, "")
      const error = run.errorJson().error
      assert.strictEqual(error.reason, "GRAPH_CYCLE")
      assert.include(error.message, "manifest graph contains a cycle; organisms must be acyclic")
      assert.include(error.message, cycle)
      const text = yield* runCli(["algal", "check", cycle])
      assert.strictEqual(text.exitCode, 2)
      assert.match(text.stderr, /^steward: .*cycle\.json: GRAPH_CYCLE manifest graph contains a cycle/)
    }))

  it.live("check --profile pure admits the settle reflex and refuses an agent program with every violated rule (exit 1)", () =>
    Effect.gen(function*() {
      const ok = yield* runCli(["algal", "check", "--json", "--profile", "pure", fixture("settle.algal.json")])
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
      assert.strictEqual(ok.json().profile, "pure")
      const rejected = yield* runCli(["algal", "check", "--json", "--profile", "pure", fixture("stash.algal.json")])
      assert.strictEqual(rejected.exitCode, 1)
      const error = rejected.errorJson().error
      assert.strictEqual(error.reason, "MANIFEST_INVALID")
      assert.deepStrictEqual(error.details.violations.map((v: any) => v.rule), [
        "cell-kinds",
        "max-agent-calls",
        "interface-inputs",
        "interface-decision",
        "budget-caps",
        "interface-signature",
        "interface-coverage"
      ])
    }))

  it.live("canonical prints canonical JSON of the file, or of the normalized manifest", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = writeJson(dir, "x.json", `{ "b": [1.0, -0, 1e21], "a": "é", "10": 1, "2": 2 }`)
      const run = yield* runCli(["algal", "canonical", file])
      assert.strictEqual(run.stdout, `{"2":2,"10":1,"a":"é","b":[1,0,1e+21]}`)
      const normalized = yield* runCli(["algal", "canonical", "--normalized", writeJson(dir, "t.json", tiny())])
      const doc = JSON.parse(normalized.stdout)
      assert.deepStrictEqual(doc.cells[0].outputs, { v: { type: "json" } })
      assert.strictEqual(doc.budgets.maxSteps, 256)
    }))

  it.live("explain lists resolved cells, ports and edges", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["algal", "explain", "--json", fixture("inbox.algal.json")])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const doc = run.json()
      assert.deepStrictEqual(doc.cells.map((c: any) => c.id), ["ticket", "triage", "sink"])
      assert.deepStrictEqual(doc.cells[1].inputs, { ticket: { type: "text" } })
      assert.deepStrictEqual(doc.edges[0], { from: "ticket.text", to: "triage.ticket" })
      const text = yield* runCli(["algal", "explain", fixture("settle.algal.json")])
      assert.include(text.stdout, "head [expr] in(features: json, params: json, evidence: json)")
    }))
})

describe("steward algal run/verify", () => {
  it.live("run --json prints the receipt; verify reproduces it; a tampered receipt exits 1 with mismatches", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const state = path.join(dir, "state")
      fs.mkdirSync(state, { recursive: true })
      const args = writeJson(dir, "args.json", settleArgs)
      const run = yield* runCli([
        "algal",
        "run",
        "--json",
        "--state-dir",
        state,
        "--args",
        args,
        fixture("settle.algal.json")
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const receipt = run.json()
      assert.strictEqual(receipt.contract, "algal.run.v1")
      assert.strictEqual(receipt.outcome, "complete")
      assert.strictEqual(receipt.cells.decide.outputs.out.category, "stopped_short")
      const receiptFile = writeJson(dir, "receipt.json", receipt)
      const verified = yield* runCli([
        "algal",
        "verify",
        "--json",
        "--state-dir",
        state,
        receiptFile,
        "--manifest",
        fixture("settle.algal.json")
      ])
      assert.strictEqual(verified.exitCode, 0, verified.stderr)
      assert.deepStrictEqual(verified.json(), { ok: true, digest: receipt.digest, outcome: "complete", mismatches: [] })
      receipt.cells.decide.outputs.out.category = "done"
      const tampered = writeJson(dir, "tampered.json", receipt)
      const bad = yield* runCli([
        "algal",
        "verify",
        "--json",
        "--state-dir",
        state,
        tampered,
        "--manifest",
        fixture("settle.algal.json")
      ])
      assert.strictEqual(bad.exitCode, 1)
      assert.isFalse(bad.json().ok)
      assert.isTrue(bad.json().mismatches.some((m: string) => m.startsWith("cells.decide.outputs")))
      const text = yield* runCli(["algal", "run", "--state-dir", state, "--args", args, fixture("settle.algal.json")])
      assert.match(text.stdout, /^outcome {2}complete\ndigest {3}sha256:/)
      assert.include(text.stdout, `decision = {"category":"stopped_short"`)
    }))

  it.live("run exits 1 (after printing) when the outcome is not complete", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const args = writeJson(dir, "args.json", { src: { doc: { a: 1 } } })
      const run = yield* runCli([
        "algal",
        "run",
        "--json",
        "--state-dir",
        dir,
        "--args",
        args,
        fixture("stash.algal.json")
      ])
      assert.strictEqual(run.exitCode, 1)
      const receipt = run.json()
      assert.strictEqual(receipt.outcome, "failed")
      assert.deepStrictEqual(receipt.failure, {
        code: "EFFECT_UNBOUND",
        message: "no host-admitted executor for this request",
        path: "writer"
      })
      assert.deepStrictEqual(receipt.cells.get.outputs, { data: { a: 1 } })
    }))

  // `steward algal run` of a fixture with the given flags, state directory and args file
  const runFixture = (name: string, state: string, args: string, ...flags: ReadonlyArray<string>) =>
    runCli(["algal", "run", ...flags, "--state-dir", state, "--args", args, fixture(name)])

  it.live("run --no-receipt prints the decision only: the run's outcome, outputs and work", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const state = path.join(dir, "state")
      fs.mkdirSync(state, { recursive: true })
      const args = writeJson(dir, "args.json", settleArgs)
      const receipt = (yield* runFixture("settle.algal.json", state, args, "--json")).json()
      const decided = yield* runFixture("settle.algal.json", state, args, "--no-receipt", "--json")
      assert.strictEqual(decided.exitCode, 0, decided.stderr)
      assert.deepStrictEqual(decided.json(), {
        outcome: "complete",
        outputs: { decision: receipt.cells.decide.outputs.out },
        work: receipt.work
      })
      const text = yield* runFixture("settle.algal.json", state, args, "--no-receipt")
      assert.match(text.stdout, /^outcome {2}complete \(no receipt\)\nwork {5}steps=3 /)
      assert.include(text.stdout, `decision = {"category":"stopped_short"`)
      // a failed run: the failure, and exit 1
      const failedArgs = writeJson(dir, "failed.json", { src: { doc: { a: 1 } } })
      const failed = yield* runFixture("stash.algal.json", state, failedArgs, "--no-receipt", "--json")
      assert.strictEqual(failed.exitCode, 1)
      assert.deepStrictEqual(failed.json().failure, {
        code: "EFFECT_UNBOUND",
        message: "no host-admitted executor for this request",
        path: "writer"
      })
    }))

  it.live("run --no-receipt refuses --store (exit 2, nothing written) and bad args (exit 2)", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const state = path.join(dir, "state")
      fs.mkdirSync(state, { recursive: true })
      const store = path.join(dir, "receipts")
      const args = writeJson(dir, "args.json", settleArgs)
      const both = yield* runFixture("settle.algal.json", state, args, "--no-receipt", "--store", store)
      assert.strictEqual(both.exitCode, 2)
      assert.isFalse(fs.existsSync(store))
      const bad = writeJson(dir, "bad.json", { src: 3 })
      const refused = yield* runFixture("settle.algal.json", state, bad, "--no-receipt", "--json")
      assert.strictEqual(refused.exitCode, 2)
      assert.include(refused.stderr, "args")
    }))

  it.live("slots persist in the state directory's SQLite between runs", () =>
    Effect.gen(function*() {
      const state = tempDir()
      yield* runCli(["algal", "run", "--state-dir", state, fixture("counter.algal.json")])
      const second = yield* runCli(["algal", "run", "--json", "--state-dir", state, fixture("counter.algal.json")])
      assert.strictEqual(second.exitCode, 0, second.stderr)
      assert.deepStrictEqual(second.json().cells.note.outputs, { value: "SEEN: 2" })
    }))

  it.live("concurrent runs against one state directory all complete and their receipts verify", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const runs = yield* Effect.all(
        Array.from(
          { length: 4 },
          () => runCli(["algal", "run", "--json", "--state-dir", state, fixture("counter.algal.json")])
        ),
        { concurrency: 4 }
      )
      for (const run of runs) {
        assert.strictEqual(run.exitCode, 0, run.stderr)
        const file = writeJson(state, `receipt-${run.json().digest.slice(7, 15)}.json`, run.json())
        const verified = yield* runCli([
          "algal",
          "verify",
          "--json",
          "--state-dir",
          state,
          file,
          "--manifest",
          fixture("counter.algal.json")
        ])
        assert.strictEqual(verified.exitCode, 0, verified.stdout)
      }
    }))

  it.live("interface-named args with --interface", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const args = writeJson(dir, "args.json", settleArgs.src)
      const run = yield* runCli([
        "algal",
        "run",
        "--json",
        "--interface",
        "--state-dir",
        dir,
        "--args",
        args,
        fixture("settle.algal.json")
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.strictEqual(run.json().outcome, "complete")
    }))
})

describe("steward algal: hostile input gets a typed error and exit 2, never a crash or hang", () => {
  const expectRejected = (args: ReadonlyArray<string>, code: string) =>
    Effect.gen(function*() {
      const run = yield* runCli(args)
      assert.strictEqual(run.exitCode, 2, run.stderr)
      assert.strictEqual(run.stdout, "")
      const error = run.errorJson().error
      assert.strictEqual(error.reason ?? error.code, code)
      return run
    })

  it.live("deep nesting, 10k cells, unknown keys, float budgets, a 1 MB+ manifest, invalid UTF-8, lone surrogates", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const deep = writeJson(dir, "deep.json", "[".repeat(100_000) + "]".repeat(100_000))
      yield* expectRejected(["algal", "check", "--json", deep], "PARSE_FAILED")
      const cells = Array.from({ length: 10_000 }, (_, i) => ({ id: `c${i}`, kind: "input", outputs: {} }))
      yield* expectRejected(
        ["algal", "check", "--json", writeJson(dir, "many.json", tiny({ cells }))],
        // over 64 cells is a parse error in the original (issue 14 conformance)
        "PARSE_FAILED"
      )
      const unknown = yield* expectRejected([
        "algal",
        "check",
        "--json",
        writeJson(dir, "unknown.json", tiny({ extra: 1 }))
      ], "PARSE_FAILED")
      assert.include(unknown.errorJson().error.message, "unknown key extra")
      const float = yield* expectRejected([
        "algal",
        "digest",
        "--json",
        writeJson(dir, "float.json", `${JSON.stringify(tiny()).slice(0, -1)},"budgets":{"maxSteps":6.5}}`)
      ], "PARSE_FAILED")
      assert.strictEqual(float.errorJson().error.details.path, "$.budgets.maxSteps")
      yield* expectRejected([
        "algal",
        "check",
        "--json",
        writeJson(dir, "big.json", tiny({ note: "x".repeat(1_100_000) }))
      ], "BUDGET_EXHAUSTED")
      const utf8 = path.join(dir, "utf8.json")
      fs.writeFileSync(utf8, Buffer.concat([Buffer.from(`{"name":"`), Buffer.from([0xff, 0xfe]), Buffer.from(`"}`)]))
      const bad = yield* expectRejected(["algal", "check", "--json", utf8], "PARSE_FAILED")
      assert.include(bad.errorJson().error.message, "not valid UTF-8")
      const lone = writeJson(dir, "lone.json", JSON.stringify(tiny()).replace(`"Tiny"`, `"T\\ud800"`))
      yield* expectRejected(["algal", "digest", "--json", lone], "PARSE_FAILED")
      yield* expectRejected(["algal", "check", "--json", path.join(dir, "absent.json")], "IO_FAILED")
      yield* expectRejected([
        "algal",
        "run",
        "--json",
        "--state-dir",
        dir,
        "--args",
        writeJson(dir, "args.json", [1]),
        writeJson(dir, "t.json", tiny())
      ], "PARSE_FAILED")
      yield* expectRejected([
        "algal",
        "verify",
        "--json",
        "--state-dir",
        dir,
        writeJson(dir, "r.json", { contract: "algal.run.v1" }),
        "--manifest",
        writeJson(dir, "t2.json", tiny())
      ], "PARSE_FAILED")
    }))

  it.live("a fuel bomb fails the run with BUDGET_EXHAUSTED (exit 1, receipt printed) instead of hanging", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const bomb = tiny({
        cells: [
          { id: "in", kind: "input", outputs: { v: "json" } },
          {
            id: "e",
            kind: "expr",
            inputs: { v: "json" },
            expr: {
              contract: "algal.expr.v1",
              program: ["map", ["get", "v"], "x", ["map", ["get", "v"], "y", ["map", ["get", "v"], "z", 1]]]
            },
            output: { kind: "json", schema: { type: "array" } }
          }
        ],
        edges: [{ from: { cell: "in", port: "v" }, to: { cell: "e", port: "v" } }]
      })
      const args = writeJson(dir, "args.json", { in: { v: Array.from({ length: 1000 }, (_, i) => i) } })
      const run = yield* runCli([
        "algal",
        "run",
        "--json",
        "--state-dir",
        dir,
        "--args",
        args,
        writeJson(dir, "bomb.json", bomb)
      ])
      assert.strictEqual(run.exitCode, 1)
      assert.deepStrictEqual(run.json().failure, {
        code: "BUDGET_EXHAUSTED",
        message: "expr fuel exhausted",
        path: "e"
      })
    }))
})
