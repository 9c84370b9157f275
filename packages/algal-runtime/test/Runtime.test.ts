import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as BlobStore from "../src/BlobStore.js"
import * as Canonical from "../src/Canonical.js"
import * as Expr from "../src/Expr.js"
import * as Receipt from "../src/Receipt.js"
import * as Runtime from "../src/Runtime.js"
import * as SlotStore from "../src/SlotStore.js"
import { compileOk, edge, example, exampleArgs, organism, settleArgs, xcb } from "./helpers.js"

const run = (json: unknown, args: unknown, options?: Runtime.RunOptions) => {
  const result = Runtime.runSync(compileOk(json), args, options)
  if (!result.ok) throw new Error(result.error.message)
  return result.result
}
const exprCell = (
  id: string,
  inputs: Record<string, unknown>,
  program: unknown,
  output: unknown = { kind: "json", schema: { type: ["number", "string", "boolean", "null", "array", "object"] } }
) => ({
  id,
  kind: "expr",
  inputs,
  expr: { contract: "algal.expr.v1", program },
  output
})
const input = (outputs: Record<string, unknown>) => ({ id: "in", kind: "input", outputs })

/** The settle decision written by hand in TypeScript (the reference for the organism). */
export const settleByHand = (args: ReturnType<typeof settleArgs>["src"]): Record<string, unknown> => {
  const score = (h: { bias: number; terms: ReadonlyArray<{ f: string; w: number }> }) =>
    h.terms.reduce((acc, t) => {
      const v = (args.features as Record<string, unknown>)[t.f]
      return acc + t.w * (typeof v === "number" ? v : 0)
    }, h.bias)
  const u = score(args.params.unfinished)
  const c = score(args.params.confirm)
  const round = (x: number) => Math.round(x * 1000)
  const e = args.evidence as Record<string, any>
  const states: Record<string, string> = {
    working: "uncertain",
    needs_answer: "question",
    needs_action: "needs_action",
    needs_approval: "needs_approval",
    limited: "limited",
    failed: "failed",
    cancelled: "cancelled",
    uncertain: "uncertain"
  }
  if (e.state !== "idle") {
    return { category: states[e.state] ?? null, gate: "state", head: "unfinished", score: round(u) }
  }
  if (e.limit >= 1) return { category: "interrupted", gate: "limit", head: "unfinished", score: round(u) }
  if (e.blocked >= 1 && e.done_claim < 1) {
    return { category: "blocked", gate: "blocked", head: "unfinished", score: round(u) }
  }
  if (c >= args.params.confirm.cut) return { category: "confirm", gate: "head", head: "confirm", score: round(c) }
  return {
    category: u >= args.params.unfinished.cut ? "stopped_short" : "done",
    gate: "head",
    head: "unfinished",
    score: round(u)
  }
}

describe("Runtime.runSync: the shipped settle and route reflexes", () => {
  const settle = compileOk(xcb("settle"))

  it("decides every settle branch like the hand-written function", () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{ state: "working" }, "uncertain"],
      [{ state: "needs_answer" }, "question"],
      [{ state: "mystery" }, "null"],
      [{ limit: 1 }, "interrupted"],
      [{ blocked: 2, done_claim: 0 }, "blocked"],
      [{}, "stopped_short"]
    ]
    for (const [evidence, category] of cases) {
      const args = settleArgs(evidence)
      const result = Runtime.runSync(settle, args)
      assert.isTrue(result.ok)
      if (!result.ok) continue
      assert.strictEqual(result.result.outcome, "complete")
      assert.deepStrictEqual(result.result.outputs.decision, settleByHand(args.src) as any)
      assert.strictEqual(String((result.result.outputs.decision as any).category), category)
    }
    const confirm = settleArgs({}, { a: 0, b: 5 })
    const r = Runtime.runSync(settle, confirm)
    assert.isTrue(r.ok && (r.result.outputs.decision as any).category === "confirm")
  })

  it("property: for any numeric features and evidence the organism equals the hand-written decision", () => {
    fc.assert(
      fc.property(
        fc.record({
          a: fc.double({ min: -10, max: 10, noNaN: true }),
          b: fc.double({ min: -10, max: 10, noNaN: true })
        }),
        fc.record({
          state: fc.constantFrom("idle", "working", "failed", "other"),
          limit: fc.integer({ min: 0, max: 2 }),
          blocked: fc.integer({ min: 0, max: 2 }),
          done_claim: fc.integer({ min: 0, max: 2 })
        }),
        (features, evidence) => {
          const args = settleArgs(evidence, features)
          const result = Runtime.runSync(settle, args)
          return result.ok && result.result.outcome === "complete" &&
            Canonical.encodeUnsafe(result.result.outputs.decision) ===
              Canonical.encodeUnsafe(settleByHand(args.src) as any)
        }
      ),
      { numRuns: 100 }
    )
  })

  it("the receipt has the exact §3.2 shape, a ledger of 100 + fuel per expr cell, and a fingerprint over the receipt without digest", () => {
    const args = settleArgs({})
    const result = Runtime.runSync(settle, args)
    assert.isTrue(result.ok)
    if (!result.ok) return
    const receipt = result.result.receipt
    assert.deepStrictEqual(Object.keys(receipt).sort(), [
      "args",
      "cells",
      "contract",
      "digest",
      "effects",
      "events",
      "manifestDigest",
      "manifestKey",
      "outcome",
      "runtime",
      "work"
    ])
    assert.deepStrictEqual(receipt.runtime, { name: "algal", version: "0.1.0" })
    assert.strictEqual(receipt.manifestDigest, settle.digest)
    assert.strictEqual(receipt.manifestKey, "organism:xcb-settle-reflex")
    assert.deepStrictEqual(receipt.events.map((e) => e.kind), [
      "run.start",
      "cell.commit",
      "cell.commit",
      "cell.commit",
      "run.end"
    ])
    assert.deepStrictEqual(receipt.events[0], { seq: 0, kind: "run.start", digest: settle.digest })
    assert.deepStrictEqual(receipt.events[4], { seq: 4, kind: "run.end", outcome: "complete" })
    const headFuel = Expr.evaluate(xcb("settle").cells[1].expr.program, args.src as any, 100_000)
    assert.isTrue(headFuel.ok)
    assert.strictEqual(receipt.cells.head!.work, 100 + headFuel.fuel)
    assert.strictEqual(receipt.cells.src!.work, 100)
    assert.strictEqual(
      receipt.work.units,
      receipt.cells.src!.work + receipt.cells.head!.work + receipt.cells.decide!.work
    )
    assert.deepStrictEqual(receipt.work, { steps: 3, agentCalls: 0, units: receipt.work.units })
    assert.strictEqual(receipt.digest, Receipt.fingerprint(receipt))
    const { digest: _, ...body } = receipt
    assert.strictEqual(receipt.digest, Canonical.digestText(Canonical.encodeUnsafe(body)))
    // deterministic: same inputs → byte-identical receipt
    const again = Runtime.runSync(settle, settleArgs({}))
    assert.isTrue(again.ok && again.result.digest === receipt.digest)
    // the runtime stamp is configurable and part of the fingerprint
    const stamped = Runtime.runSync(settle, args, { runtime: { name: "algal", version: "0.2.0" } })
    assert.isTrue(
      stamped.ok && stamped.result.digest !== receipt.digest && stamped.result.receipt.runtime.version === "0.2.0"
    )
  })

  it("route decides frontier/standard", () => {
    const args = {
      src: {
        features: { x: 2 },
        params: {
          judged: { bias: 0, cut: 1, terms: [{ f: "x", w: 1 }] },
          plain: { bias: 0, cut: 5, terms: [{ f: "x", w: 1 }] }
        },
        evidence: { judged: false, substantial: false, kind: "task" }
      }
    }
    const out = run(xcb("route"), args)
    assert.strictEqual(out.outcome, "complete")
    assert.deepStrictEqual(
      out.outputs.decision,
      { route: "standard", gate: "score", head: "plain", score: 2000 } as any
    )
    const substantial = run(xcb("route"), {
      src: { ...args.src, evidence: { judged: true, substantial: true, kind: "task" } }
    })
    assert.strictEqual((substantial.outputs.decision as any).route, "frontier")
  })

  it("a non-boolean evidence flag fails the expr cell (strict if) with EXPR_FAILED and the run fails", () => {
    const out = run(xcb("route"), {
      src: {
        features: {},
        params: { judged: { bias: 0, cut: 0, terms: [] }, plain: { bias: 0, cut: 0, terms: [] } },
        evidence: { judged: "yes" }
      }
    })
    assert.strictEqual(out.outcome, "failed")
    assert.strictEqual(out.receipt.failure?.code, "EXPR_FAILED")
    assert.strictEqual(out.receipt.failure?.path, "head")
    assert.match(out.receipt.failure!.message, /^expr \{.*"code":"EXPR_TYPE"/)
    assert.deepStrictEqual(out.outputs, {})
  })

  it("managed transition echoes its record", () => {
    const out = run(xcb("managed-transition"), { src: { record: { id: "t1", revision: 1 } } })
    assert.deepStrictEqual(out.outputs.record, { id: "t1", revision: 1 } as any)
    assert.strictEqual(out.receipt.cells.accepted!.work, 110)
  })
})

describe("Runtime.runSync: examples and scheduling rules", () => {
  it("expr-guard: guard fuel is added to work units but to no cell; a false guard skips the consumer", () => {
    const out = run(example("expr-guard"), exampleArgs("expr-guard"))
    assert.strictEqual(out.outcome, "complete")
    assert.deepStrictEqual(out.receipt.cells.sink!.outputs, { value: 120 })
    const guardFuel = Expr.evaluate(["gt", ["get", "value"], 100], { value: 120 }, 100_000).fuel
    const cells = Object.values(out.receipt.cells).reduce((n, c) => n + c.work, 0)
    assert.strictEqual(out.receipt.work.units, cells + guardFuel)
    const low = run(example("expr-guard"), { in: { n: 40 } })
    assert.strictEqual(low.outcome, "complete")
    assert.deepStrictEqual(low.receipt.cells.sink, { status: "skipped", work: 0 })
    assert.strictEqual(low.receipt.events.at(-2)?.kind, "cell.skip")
  })

  it("expr-rate: interface outputs carry the committed choice", () => {
    const out = run(example("expr-rate"), exampleArgs("expr-rate"))
    assert.deepStrictEqual(out.outputs, { rating: "high" })
    assert.deepStrictEqual(run(example("expr-rate"), { in: { ticket: { amount: 1 }, base: 5 } }).outputs, {
      rating: "std"
    })
  })

  it("guard: an fn failure with a fail edge is handled and delivers {code, message}", () => {
    const ok = run(example("guard"), { src: { v: "ready" } })
    assert.strictEqual(ok.outcome, "complete")
    assert.strictEqual(ok.receipt.cells.hold!.status, "skipped")
    const bad = run(example("guard"), { src: { v: "nope" } })
    assert.strictEqual(bad.outcome, "complete")
    assert.deepStrictEqual(bad.receipt.cells.check!.failure, {
      code: "FN_FAILED",
      message: `assert.v1: value "nope" != expect "ready"`
    })
    assert.deepStrictEqual(bad.receipt.cells.hold!.outputs, { value: "FN_FAILED" })
    assert.isUndefined(bad.receipt.failure)
  })

  it("stash: store → load round-trips through the blob store; effect cells fail EFFECT_UNBOUND and fail the run", () => {
    const blobs = BlobStore.makeMemory().sync!
    const doc = { title: "hello", n: [1, 2] }
    const out = run(example("stash"), { src: { doc } }, { blobs })
    const ref = Canonical.digestText(Canonical.encodeUnsafe(doc))
    assert.deepStrictEqual(out.receipt.cells.pin!.outputs, { ref })
    assert.strictEqual(out.receipt.cells.pin!.work, 100 + Canonical.encodeUnsafe(doc).length)
    assert.deepStrictEqual(out.receipt.cells.get!.outputs, { data: doc })
    assert.deepStrictEqual(blobs.get(ref), doc)
    assert.strictEqual(out.outcome, "failed")
    assert.deepStrictEqual(out.receipt.failure, {
      code: "EFFECT_UNBOUND",
      message: "no host-admitted executor for this request",
      path: "writer"
    })
    // the unbound attempt is recorded (ADR 0310): executor "unbound", retryable:false
    assert.deepStrictEqual(out.receipt.effects.map((e: any) => [e.executor, e.retryable, e.error.code]), [[
      "unbound",
      false,
      "EFFECT_UNBOUND"
    ]])
    assert.strictEqual(out.receipt.work.agentCalls, 1)
  })

  it("counter: slots persist across runs; read slots use their default when empty", () => {
    const slots = SlotStore.makeMemory().sync!
    const first = run(example("counter"), {}, { slots })
    assert.strictEqual(first.outcome, "complete")
    assert.deepStrictEqual(first.receipt.cells.mem, {
      status: "committed",
      work: 100,
      outputs: { data: 0 },
      slot: { name: "counter-seen", mode: "read" }
    })
    assert.deepStrictEqual(first.receipt.cells.note!.outputs, { value: "SEEN: 1" })
    assert.deepStrictEqual(first.receipt.cells.sink!.slot, { name: "counter-seen", mode: "write" })
    assert.strictEqual(first.receipt.cells.sink!.work, 101)
    const second = run(example("counter"), {}, { slots })
    assert.deepStrictEqual(second.receipt.cells.note!.outputs, { value: "SEEN: 2" })
    assert.notStrictEqual(first.digest, second.digest)
  })

  it("an empty read slot without default fails INPUT_MISSING with the original's message", () => {
    const out = run(organism([{ id: "s", kind: "slot", name: "x", mode: "read" }]), {})
    assert.deepStrictEqual(out.receipt.failure, {
      code: "INPUT_MISSING",
      message: `slot cell "s": slot "x" is empty and declares no default`,
      path: "s"
    })
  })

  it("a failure edge from an effect cell routes EFFECT_UNBOUND to a fallback", () => {
    const out = run(
      organism([
        input({ t: "text" }),
        { id: "ask", kind: "agent", inputs: { t: "text" }, prompt: "p", output: { kind: "text" } },
        { id: "fallback", kind: "fn", fn: "echo.v1" }
      ], [edge("in.t", "ask.t"), edge("ask.out", "fallback.value", { on: "fail" })]),
      { in: { t: "hi" } }
    )
    assert.strictEqual(out.outcome, "complete")
    const context = "{\"inputs\":{\"t\":\"hi\"},\"turn\":0}"
    assert.strictEqual(out.receipt.effects.length, 1)
    assert.deepStrictEqual(out.receipt.cells.ask, {
      status: "failed",
      work: 100 + 500 + context.length,
      failure: { code: "EFFECT_UNBOUND", message: "no host-admitted executor for this request" }
    })
    assert.deepStrictEqual(out.receipt.cells.fallback!.outputs, {
      value: { code: "EFFECT_UNBOUND", message: "no host-admitted executor for this request" }
    })
  })

  it("intake: an input failing its port schema fails the input cell (TYPE_MISMATCH), and the fail edge handles it", () => {
    const manifest = example("intake")
    manifest.cells[2] = { id: "repair", kind: "fn", fn: "echo.v1" }
    manifest.edges[1] = edge("src.ticket", "repair.value", { on: "fail" })
    const bad = run(manifest, { src: { ticket: { severity: "high" } } })
    assert.strictEqual(bad.outcome, "complete")
    assert.deepStrictEqual(bad.receipt.cells.src!.failure, { code: "TYPE_MISMATCH", message: "missing required field" })
    assert.deepStrictEqual(bad.receipt.cells.handler, { status: "skipped", work: 0 })
    assert.deepStrictEqual(bad.receipt.cells.repair!.outputs, {
      value: { code: "TYPE_MISMATCH", message: "missing required field" }
    })
  })

  it("many ports collect every delivered value in edge order; missing args make input ports absent", () => {
    const out = run(
      organism([
        input({ a: "text", b: "text", c: "text" }),
        { id: "j", kind: "fn", fn: "join.v1" }
      ], [edge("in.a", "j.items"), edge("in.b", "j.items"), edge("in.c", "j.items")]),
      { in: { a: "x", c: "z" } }
    )
    assert.deepStrictEqual(out.receipt.cells.in!.outputs, { a: "x", c: "z" })
    assert.deepStrictEqual(out.receipt.cells.j!.outputs, { value: "x\nz" })
  })

  it("skips propagate; cells are swept in declared order (reverse order needs more sweeps but the same records)", () => {
    const cells = [input({ v: "json" }), { id: "a", kind: "fn", fn: "echo.v1" }, { id: "b", kind: "fn", fn: "echo.v1" }]
    const edges = [edge("in.v", "a.value"), edge("a.value", "b.value")]
    const forward = run(organism(cells, edges), { in: {} })
    assert.deepStrictEqual(forward.receipt.cells.a, { status: "skipped", work: 0 })
    assert.deepStrictEqual(forward.receipt.cells.b, { status: "skipped", work: 0 })
    const reversed = run(organism([...cells].reverse(), edges), { in: { v: 1 } })
    assert.strictEqual(reversed.outcome, "complete")
    assert.deepStrictEqual(reversed.receipt.events.map((e) => "path" in e ? e.path : e.kind), [
      "run.start",
      "in",
      "a",
      "b",
      "run.end"
    ])
  })

  it("maxSteps: the run fails before activating the cell over budget (no record for it)", () => {
    const out = run(
      organism([input({ v: "json" }), { id: "a", kind: "fn", fn: "echo.v1" }], [edge("in.v", "a.value")], {
        budgets: { maxSteps: 1 }
      }),
      { in: { v: 1 } }
    )
    assert.strictEqual(out.outcome, "failed")
    assert.deepStrictEqual(out.receipt.failure, { code: "BUDGET_EXHAUSTED", message: "maxSteps exhausted", path: "a" })
    assert.isUndefined(out.receipt.cells.a)
    assert.strictEqual(out.receipt.work.steps, 1)
  })

  it("maxWork: the run fails after the activation that crossed it (its record stays committed)", () => {
    const out = run(
      organism([input({ v: "json" }), { id: "a", kind: "fn", fn: "echo.v1" }], [edge("in.v", "a.value")], {
        budgets: { maxWork: 150 }
      }),
      { in: { v: 1 } }
    )
    assert.deepStrictEqual(out.receipt.failure, { code: "BUDGET_EXHAUSTED", message: "maxWork exhausted", path: "a" })
    assert.strictEqual(out.receipt.cells.a!.status, "committed")
    assert.strictEqual(out.receipt.work.units, 210)
  })

  it("a fuel bomb (nested map over large lists) fails BUDGET_EXHAUSTED \"expr fuel exhausted\" and burns its fuel", () => {
    const big = ["map", ["get", "v"], "x", ["map", ["get", "v"], "y", ["add", ["get", "x"], ["get", "y"]]]]
    const out = run(organism([input({ v: "json" }), exprCell("e", { v: "json" }, big)], [edge("in.v", "e.v")]), {
      in: { v: Array.from({ length: 1000 }, (_, i) => i) }
    })
    assert.deepStrictEqual(out.receipt.failure, { code: "BUDGET_EXHAUSTED", message: "expr fuel exhausted", path: "e" })
    assert.isAtLeast(out.receipt.cells.e!.work, 100_000)
  })

  it("expr failures record EXPR_FAILED \"expr <canonical error>\"; output contract violations are TYPE_MISMATCH", () => {
    const div = run(
      organism([input({ v: "json" }), exprCell("e", { v: "json" }, ["div", 1, ["get", "v"]])], [edge("in.v", "e.v")]),
      { in: { v: 0 } }
    )
    assert.strictEqual(div.receipt.failure?.code, "EXPR_FAILED")
    assert.match(div.receipt.failure!.message, /^expr \{.*"code":"EXPR_DIV_ZERO"/)
    const label = run(
      organism(
        [input({ v: "json" }), exprCell("e", { v: "json" }, "maybe", { kind: "choice", labels: ["yes", "no"] })],
        [edge("in.v", "e.v")]
      ),
      { in: { v: 0 } }
    )
    assert.deepStrictEqual(label.receipt.failure, {
      code: "TYPE_MISMATCH",
      message: `e.out: "maybe" not in declared labels`,
      path: "e"
    })
  })

  it("a guard expr that returns a non-boolean is a run-level GUARD_INVALID", () => {
    const out = run(
      organism([input({ v: "json" }), { id: "a", kind: "fn", fn: "echo.v1" }], [
        edge("in.v", "a.value", { guard: { expr: { contract: "algal.expr.v1", program: ["get", "value"] } } })
      ]),
      { in: { v: 3 } }
    )
    assert.deepStrictEqual(out.receipt.failure, {
      code: "GUARD_INVALID",
      message: "guard expr must produce boolean, got number",
      path: "a"
    })
    assert.isUndefined(out.receipt.cells.a)
  })

  it("field guards fire only on objects whose field strictly equals the text", () => {
    const manifest = organism([input({ r: "json" }), { id: "a", kind: "fn", fn: "echo.v1" }], [
      edge("in.r", "a.value", { guard: { field: "sev", equals: "high" } })
    ])
    assert.strictEqual(run(manifest, { in: { r: { sev: "high" } } }).receipt.cells.a!.status, "committed")
    assert.strictEqual(run(manifest, { in: { r: { sev: "HIGH" } } }).receipt.cells.a!.status, "skipped")
    assert.strictEqual(run(manifest, { in: { r: ["high"] } }).receipt.cells.a!.status, "skipped")
  })

  it("an input ref port whose token is not in the store fails STORE_MISS", () => {
    const out = run(organism([input({ r: "ref" })]), { in: { r: "sha256:" + "a".repeat(64) } })
    assert.deepStrictEqual(out.receipt.failure, {
      code: "STORE_MISS",
      message: "input/const reference does not resolve",
      path: "in"
    })
  })

  it("invalid args are a typed error and nothing runs", () => {
    const program = compileOk(xcb("settle"))
    for (const args of [null, [], { src: 1 }, { src: { v: Number.NaN } }]) {
      const result = Runtime.runSync(program, args)
      assert.isFalse(result.ok)
      if (!result.ok) assert.strictEqual(result.error.code, "PARSE_FAILED")
    }
    const big = Runtime.runSync(program, { src: { features: "x".repeat(1_100_000) } })
    assert.isTrue(!big.ok && big.error.code === "BUDGET_EXHAUSTED" && big.error.message === "run argument bytes")
  })

  it("interfaceArgs maps interface names to cell ports and ignores undeclared names", () => {
    const program = compileOk(xcb("settle"))
    assert.deepStrictEqual(Runtime.interfaceArgs(program, { features: {}, params: 1, extra: 2 }), {
      src: { features: {}, params: 1 }
    })
  })
})
