import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-algal-fns-"))
const write = (dir: string, name: string, value: unknown) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value))
  return file
}
const expr = (program: unknown) => ({ contract: "algal.expr.v1", program })
const port = (cell: string, p: string) => ({ cell, port: p })
const wire = (from: string, to: string, extra: Record<string, unknown> = {}) => {
  const [fc, fp] = from.split(".")
  const [tc, tp] = to.split(".")
  return { from: port(fc!, fp!), to: port(tc!, tp!), ...extra }
}
/** An organism: one input cell `in` with json ports feeding fn cell `f`, and a fail edge to `why`. */
const fnOrganism = (fn: string, inputs: ReadonlyArray<string>) => ({
  contract: "algal.organism.v1",
  key: "organism:fn-demo",
  name: "Fn demo",
  cells: [
    { id: "in", kind: "input", outputs: Object.fromEntries(inputs.map((p) => [p, "json"])) },
    { id: "f", kind: "fn", fn },
    { id: "why", kind: "fn", fn: "echo.v1" }
  ],
  edges: [
    ...inputs.map((p) => wire(`in.${p}`, `f.${p}`)),
    wire(`f.${fn === "manifest.compile.v1" ? "manifest" : fn === "memory.query.v1" ? "result" : "view"}`, "why.value", {
      on: "fail"
    })
  ]
})
const organisms = {
  "memory.query.v1": fnOrganism("memory.query.v1", ["snapshot", "program"]),
  "context.compact.v1": fnOrganism("context.compact.v1", ["source", "policy"]),
  "manifest.compile.v1": fnOrganism("manifest.compile.v1", ["plan"])
}

describe("steward algal with memory.query.v1, context.compact.v1, manifest.compile.v1", () => {
  it.live("check accepts a manifest using each fn (no more FN_UNKNOWN); explain shows the costs", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const costs: Record<string, number> = {}
      for (const [name, organism] of Object.entries(organisms)) {
        const file = write(dir, `${name}.algal.json`, organism)
        const check = yield* runCli(["algal", "check", "--json", file])
        assert.strictEqual(check.exitCode, 0, `${name}: ${check.stderr}`)
        assert.isTrue(check.json().ok)
        assert.match(check.json().digest, /^sha256:[0-9a-f]{64}$/)
        const explain = yield* runCli(["algal", "explain", "--json", file])
        costs[name] = explain.json().cells.find((c: any) => c.id === "f").cost
      }
      assert.deepStrictEqual(costs, { "memory.query.v1": 10, "context.compact.v1": 10, "manifest.compile.v1": 50 })
    }))

  it.live("run: a memory query charges 10 + result.work; a failed compaction is routed by its fail edge", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const query = write(dir, "query.algal.json", organisms["memory.query.v1"])
      const args = write(dir, "query.args.json", {
        in: { snapshot: { notes: ["a", "b", "c"] }, program: expr(["len", ["get", "snapshot", "notes"]]) }
      })
      const run = yield* runCli(["algal", "run", "--json", "--state-dir", dir, query, "--args", args])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const receipt = run.json()
      assert.strictEqual(receipt.outcome, "complete")
      const record = receipt.cells.f
      assert.strictEqual(record.outputs.result.value, 3)
      assert.strictEqual(record.work, 100 + 10 + record.outputs.result.work)

      const compact = write(dir, "compact.algal.json", organisms["context.compact.v1"])
      const bad = write(dir, "compact.args.json", { in: { source: ["x"], policy: { keep: 0.5 } } })
      const routed = yield* runCli(["algal", "run", "--json", "--state-dir", dir, compact, "--args", bad])
      assert.strictEqual(routed.exitCode, 0, routed.stderr)
      assert.deepStrictEqual(routed.json().cells.why.outputs.value, {
        code: "FN_FAILED",
        message: "context.compact.v1: policy.keep must be an integer in [0, 1024]"
      })
    }))

  it.live("a manifest compiled by manifest.compile.v1 in one run checks and runs on its own", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const compiler = write(dir, "compiler.algal.json", organisms["manifest.compile.v1"])
      const plan = { steps: [{ id: "twice", fn: "double.v1" }, { id: "label", expr: expr({ n: ["get", "value"] }) }] }
      const args = write(dir, "compiler.args.json", { in: { plan } })
      const run = yield* runCli(["algal", "run", "--json", "--state-dir", dir, compiler, "--args", args])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const compiled = write(dir, "compiled.algal.json", run.json().cells.f.outputs.manifest)
      const check = yield* runCli(["algal", "check", "--json", compiled])
      assert.strictEqual(check.exitCode, 0, check.stderr)
      const childArgs = write(dir, "compiled.args.json", { input: { value: 21 } })
      const child = yield* runCli(["algal", "run", "--json", "--state-dir", dir, compiled, "--args", childArgs])
      assert.strictEqual(child.exitCode, 0, child.stderr)
      assert.deepStrictEqual(child.json().cells.label.outputs.out, { n: 42 })
    }))
})

describe("steward algal: budgets written as fractions", () => {
  const manifest = (maxSteps: string) =>
    `{"contract":"algal.organism.v1","key":"organism:budget","name":"Budget","budgets":{"maxSteps":${maxSteps}},` +
    `"cells":[{"id":"in","kind":"input","outputs":{"v":"json"}},{"id":"c","kind":"const","outputs":{"r":{"type":"json","value":6.0}}}]}`

  it.live("check of \"maxSteps\": 6 succeeds; its digest equals that of the same manifest written with 6 elsewhere", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const check = yield* runCli(["algal", "check", "--json", write(dir, "six.algal.json", manifest("6"))])
      assert.strictEqual(check.exitCode, 0, check.stderr)
      const digest = yield* runCli(["algal", "digest", write(dir, "six-spaced.algal.json", manifest(" 6 "))])
      assert.strictEqual(digest.stdout, check.json().digest)
    }))

  // The CLI reads manifests through `Manifest.parseText`, so the lexical check runs (ADR 0394).
  it.live("check of \"maxSteps\": 6.0 / 6e0 exits 2 naming $.budgets.maxSteps, nothing on stdout", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      for (const lexeme of ["6.0", "6e0"]) {
        const file = write(dir, `frac-${lexeme}.algal.json`, manifest(lexeme))
        for (
          const verb of [["check"], ["digest"], ["explain"], ["run"], ["run", "--managed"], [
            "canonical",
            "--normalized"
          ]]
        ) {
          const run = yield* runCli(["algal", ...verb, "--json", "--state-dir", dir, file])
          assert.strictEqual(run.exitCode, 2, `${verb} ${lexeme}`)
          assert.strictEqual(run.stdout, "")
          const error = run.errorJson().error
          assert.strictEqual(error.reason, "PARSE_FAILED")
          assert.strictEqual(error.details.path, "$.budgets.maxSteps")
          assert.include(error.message, "must be written as an integer literal")
        }
      }
    }))

  // A directory with the inbox organism, whose embedded triage manifest `place` writes (as a
  // sibling file or inside a bundle); `fractional` is the triage text with `"maxSteps": N.0`.
  const inboxWith = (place: (dir: string, triage: string) => void) => {
    const fixtures = path.join(import.meta.dirname, "fixtures", "algal")
    const dir = tempDir()
    const inbox = path.join(dir, "inbox.algal.json")
    fs.copyFileSync(path.join(fixtures, "inbox.algal.json"), inbox)
    const triage = fs.readFileSync(path.join(fixtures, "triage.algal.json"), "utf8")
    const fractional = triage.replace(/"maxSteps":\s*(\d+)/, (_, n) => `"maxSteps": ${n}.0`)
    assert.notStrictEqual(fractional, triage)
    place(dir, triage)
    return { check: () => runCli(["algal", "check", "--json", inbox]), dir, fractional, triage }
  }

  it.live("a sibling manifest written with \"maxSteps\": N.0 is refused like the file itself: its digest no longer resolves", () =>
    Effect.gen(function*() {
      const sibling = (dir: string, text: string) => fs.writeFileSync(path.join(dir, "triage.algal.json"), text)
      const { check, dir, fractional } = inboxWith(sibling)
      const ok = yield* check()
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
      sibling(dir, fractional)
      const refused = yield* check()
      assert.strictEqual(refused.exitCode, 2)
      assert.strictEqual(refused.errorJson().error.reason, "STORE_MISS")
    }))

  it.live("a bundled manifest written with \"maxSteps\": N.0 is refused the same way; the rest of the bundle resolves", () =>
    Effect.gen(function*() {
      const fixture = path.join(import.meta.dirname, "fixtures", "algal", "triage.algal.json")
      const digest = (yield* runCli(["algal", "digest", fixture])).stdout.trim()
      const bundled = (dir: string, text: string) =>
        fs.writeFileSync(
          path.join(dir, "triage.bundle.json"),
          `{"contract":"algal.bundle.v1","manifests":{"${digest}":${text},"other":{"not":"a manifest"}}}`
        )
      const { check, dir, fractional } = inboxWith(bundled)
      const ok = yield* check()
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
      bundled(dir, fractional)
      const refused = yield* check()
      assert.strictEqual(refused.exitCode, 2)
      assert.strictEqual(refused.errorJson().error.reason, "STORE_MISS")
    }))
})
