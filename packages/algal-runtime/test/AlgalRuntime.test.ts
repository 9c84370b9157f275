import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as BlobStore from "../src/BlobStore.js"
import * as FnRegistry from "../src/FnRegistry.js"
import * as Receipt from "../src/Receipt.js"
import * as SlotStore from "../src/SlotStore.js"
import { edge, example, exampleArgs, organism, parseOk, settleArgs, xcb } from "./helpers.js"

const withRuntime = <A, E>(f: (runtime: AlgalRuntime.Shape) => Effect.Effect<A, E>) =>
  Effect.flatMap(AlgalRuntime.AlgalRuntime, f).pipe(Effect.provide(AlgalRuntime.layer))

const sqlite = SqliteClient.layer({ filename: ":memory:" })
const sqlRuntime = AlgalRuntime.layerWith().pipe(
  Layer.provideMerge(Layer.mergeAll(FnRegistry.layer, BlobStore.layerSql, SlotStore.layerSql)),
  Layer.provide(sqlite),
  Layer.orDie // an in-memory SQLite that cannot migrate is a broken test environment
)

describe("AlgalRuntime", () => {
  it.effect("check and digest a manifest; invalid programs fail with typed errors", () =>
    withRuntime((runtime) =>
      Effect.gen(function*() {
        const checked = yield* runtime.check(xcb("settle"))
        assert.strictEqual(checked.digest, "sha256:e56d7a734116095eab80f2f7b8ca854e2f7fa5d76c84a4b0bd345ab0f5ba4a00")
        assert.strictEqual(
          yield* runtime.digest(example("triage")),
          "sha256:56f247870a72b3f1bfef6978c56ea9ce27906b91565bb68f19a60244295f7022"
        )
        const cycle = yield* Effect.flip(
          runtime.check(organism([{ id: "x", kind: "fn", fn: "echo.v1" }], [edge("x.value", "x.value")]))
        )
        assert.strictEqual(cycle.code, "GRAPH_CYCLE")
        const bad = yield* Effect.flip(runtime.digest({ contract: "nope" }))
        assert.strictEqual(bad.code, "PARSE_FAILED")
      })
    ))

  it.effect("run returns outcome, interface outputs, receipt and the fingerprint; verify reproduces it", () =>
    withRuntime((runtime) =>
      Effect.gen(function*() {
        const manifest = xcb("settle")
        const result = yield* runtime.run(manifest, settleArgs({ limit: 1 }))
        assert.strictEqual(result.outcome, "complete")
        assert.strictEqual((result.outputs.decision as any).category, "interrupted")
        assert.strictEqual(result.digest, result.receipt.digest)
        const verified = yield* runtime.verify(JSON.parse(JSON.stringify(result.receipt)), manifest)
        assert.deepStrictEqual(verified, { ok: true, digest: result.digest, outcome: "complete", mismatches: [] })
        const named = yield* runtime.run(manifest, settleArgs({ limit: 1 }).src, { interface: true })
        assert.strictEqual(named.digest, result.digest)
        const notObject = yield* Effect.flip(runtime.run(manifest, [1], { interface: true }))
        assert.deepStrictEqual([notObject.code, notObject.message], [
          "PARSE_FAILED",
          "interface args must be an object"
        ])
        const badArgs = yield* Effect.flip(runtime.run(manifest, { src: 1 }))
        assert.deepStrictEqual([badArgs.code, badArgs.path], ["PARSE_FAILED", "args.src"])
        const badManifest = yield* Effect.flip(runtime.run({ contract: "algal.organism.v1" }, {}))
        assert.strictEqual(badManifest.code, "PARSE_FAILED")
      })
    ))

  it.effect("verify reports every tampered field and a wrong manifest", () =>
    withRuntime((runtime) =>
      Effect.gen(function*() {
        const manifest = xcb("settle")
        const result = yield* runtime.run(manifest, settleArgs({}))
        const tampered = JSON.parse(JSON.stringify(result.receipt))
        tampered.cells.decide.outputs.out.category = "done"
        tampered.work.units += 1
        const verified = yield* runtime.verify(tampered, manifest)
        assert.isFalse(verified.ok)
        assert.strictEqual(verified.digest, result.digest)
        assert.isTrue(verified.mismatches.some((m) => m.startsWith("digest: recorded")))
        assert.isTrue(verified.mismatches.some((m) => m.startsWith("cells.decide.outputs: recorded")))
        assert.isTrue(verified.mismatches.some((m) => m.startsWith("work.units: recorded")))
        // a re-signed forgery still fails on recomputation
        const { digest: _, ...body } = tampered
        const forged = { ...body, digest: Receipt.fingerprint(body) }
        const again = yield* runtime.verify(forged, manifest)
        assert.isFalse(again.ok)
        assert.isFalse(again.mismatches.some((m) => m.startsWith("digest:")))
        const other = yield* runtime.verify(result.receipt, xcb("route"))
        assert.isFalse(other.ok)
        assert.match(other.mismatches[0]!, /^manifestDigest: receipt names sha256:e56d/)
      })
    ))

  it.effect("verify replays recorded slot reads instead of reading the store", () =>
    withRuntime((runtime) =>
      Effect.gen(function*() {
        const first = yield* runtime.run(example("counter"), {})
        const second = yield* runtime.run(example("counter"), {})
        assert.deepStrictEqual(second.receipt.cells.note!.outputs, { value: "SEEN: 2" })
        const v1 = yield* runtime.verify(first.receipt, example("counter"))
        const v2 = yield* runtime.verify(second.receipt, example("counter"))
        assert.isTrue(v1.ok && v2.ok)
        const third = yield* runtime.run(example("counter"), {})
        assert.deepStrictEqual(third.receipt.cells.note!.outputs, { value: "SEEN: 3" }, "verify does not write slots")
      })
    ))

  it.effect("verify rejects a structurally invalid receipt with PARSE_FAILED naming the path", () =>
    withRuntime((runtime) =>
      Effect.gen(function*() {
        const result = yield* runtime.run(example("expr-guard"), exampleArgs("expr-guard"))
        const extra = yield* Effect.flip(runtime.verify({ ...result.receipt, extra: 1 }, example("expr-guard")))
        assert.strictEqual(extra.code, "PARSE_FAILED")
        assert.include(extra.message, "unknown key extra")
        const badStatus = JSON.parse(JSON.stringify(result.receipt))
        badStatus.cells.calc.status = "done"
        const error = yield* Effect.flip(runtime.verify(badStatus, example("expr-guard")))
        assert.strictEqual(error.path, "$.cells.calc.status")
        const events = JSON.parse(JSON.stringify(result.receipt))
        events.events[1].seq = 7
        assert.strictEqual((yield* Effect.flip(runtime.verify(events, example("expr-guard")))).path, "$.events[1].seq")
        assert.strictEqual((yield* Effect.flip(runtime.verify("nope", example("expr-guard")))).code, "PARSE_FAILED")
      })
    ))

  it.effect("runs against SQL stores (SQLite): slots persist, blobs are content-addressed, verify replays", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const first = yield* runtime.run(example("counter"), {})
      const second = yield* runtime.run(example("counter"), {})
      assert.deepStrictEqual(second.receipt.cells.note!.outputs, { value: "SEEN: 2" })
      const slots = yield* SlotStore.SlotStore
      assert.deepStrictEqual(yield* slots.get("counter-seen"), Option.some(2))
      assert.isTrue((yield* runtime.verify(first.receipt, example("counter"))).ok)
      const stash = yield* runtime.run(example("stash"), { src: { doc: { a: 1 } } })
      const ref = stash.receipt.cells.pin!.outputs!.ref as string
      const blobs = yield* BlobStore.BlobStore
      assert.deepStrictEqual(yield* blobs.get(ref), Option.some({ a: 1 }))
      assert.isTrue(yield* blobs.has(ref))
      assert.strictEqual(yield* blobs.put({ a: 1 }), ref)
      assert.isTrue((yield* runtime.verify(stash.receipt, example("stash"))).ok)
    }).pipe(Effect.provide(sqlRuntime)))

  it.effect("host fns extend the registry", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const result = yield* runtime.run(
        organism([{ id: "in", kind: "input", outputs: { t: "text" } }, { id: "s", kind: "fn", fn: "shout.v1" }], [
          edge("in.t", "s.value")
        ]),
        { in: { t: "hi" } }
      )
      assert.deepStrictEqual(result.receipt.cells.s, { status: "committed", work: 107, outputs: { value: "hi!" } })
    }).pipe(
      Effect.provide(
        AlgalRuntime.layerWith().pipe(
          Layer.provide(Layer.mergeAll(
            FnRegistry.layerWith({
              "shout.v1": {
                inputs: { value: { type: "text" } },
                outputs: { value: { type: "text" } },
                cost: 7,
                invoke: (inputs) => ({ ok: true, outputs: { value: `${inputs.value}!` } })
              }
            }),
            BlobStore.layerMemory,
            SlotStore.layerMemory
          ))
        )
      )
    ))

  it.effect("embedded manifests resolve through the layer options; an inner effect failure surfaces with its inner path", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const checked = yield* runtime.check(example("inbox"))
      assert.deepStrictEqual(checked.program.byId.get("triage")!.inputs, { ticket: { type: "text" } })
      const result = yield* runtime.run(example("inbox"), { ticket: { text: "it crashes" } })
      assert.strictEqual(result.outcome, "failed")
      assert.deepStrictEqual(result.receipt.failure, {
        code: "EFFECT_UNBOUND",
        message: "no host-admitted executor for this request",
        path: "triage/route"
      })
      assert.deepStrictEqual(result.receipt.cells["triage/ticket"]!.outputs, { text: "it crashes" })
      assert.deepStrictEqual(result.receipt.cells.triage!.failure, {
        code: "EFFECT_UNBOUND",
        message: "no host-admitted executor for this request"
      })
    }).pipe(
      Effect.provide(Layer.suspend(() => {
        const manifests = new Map([[example("inbox").cells[1].manifest as string, parseOk(example("triage"))]])
        return AlgalRuntime.layerMemory({ manifests: (d) => manifests.get(d) })
      }))
    ))
})
