import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Admission from "../src/Admission.js"
import * as Canonical from "../src/Canonical.js"
import * as Expr from "../src/Expr.js"
import * as Manifest from "../src/Manifest.js"
import * as Organism from "../src/Organism.js"
import * as Program from "../src/Program.js"
import * as Runtime from "../src/Runtime.js"
import { parseOk, settleArgs, xcb } from "./helpers.js"
import { settle } from "./settle.organism.js"

describe("Organism (typed authoring API)", () => {
  it.effect("the settle program rebuilt with the API has the shipped manifest digest", () =>
    Effect.gen(function*() {
      const built = yield* Organism.manifest(settle)
      assert.strictEqual(
        Manifest.digest(built),
        "sha256:e56d7a734116095eab80f2f7b8ca854e2f7fa5d76c84a4b0bd345ab0f5ba4a00"
      )
      assert.strictEqual(Manifest.digest(built), Manifest.digest(parseOk(xcb("settle"))))
      const admitted = yield* Admission.pure(settle.build())
      assert.strictEqual(admitted.digest, Manifest.digest(built))
    }))

  it.effect("build() emits normalized JSON that round-trips through parse unchanged", () =>
    Effect.gen(function*() {
      const json = settle.build()
      const parsed = yield* Manifest.parse(JSON.parse(JSON.stringify(json)))
      assert.strictEqual(Canonical.encodeUnsafe(parsed), Canonical.encodeUnsafe(json))
      const small = Organism.make({ key: "organism:small", name: "Small" })
        .input("in", { t: "text", r: "json" })
        .agent("ask", {
          kind: "classifier",
          inputs: { t: "text" },
          prompt: "p",
          output: { kind: "choice", labels: ["a", "b"] }
        })
        .fn("tag", "tag.v1")
        .store("pin")
        .load("get")
        .readSlot("mem", "seen", 0)
        .writeSlot("save", "seen")
        .const("k", { v: { type: "text", value: "A" } })
        .edge("in.t", "ask.t")
        .edge("ask.out", "tag.tag", { guard: Organism.equals("a") })
        .edge("in.r", "tag.value", { guard: Organism.field("ok", "yes") })
        .edge("in.r", "pin.data")
        .edge("pin.ref", "get.ref")
        .edge("mem.data", "save.data")
        .build()
      const again = yield* Manifest.parse(small)
      assert.strictEqual(Canonical.encodeUnsafe(again), Canonical.encodeUnsafe(small))
      assert.deepStrictEqual((again.cells[1] as Manifest.AgentCell).view, { inputs: "*" })
      const compiled = yield* Program.compile(again)
      assert.strictEqual(compiled.cells.length, 8)
    }))

  it("a built organism runs like the shipped one", () => {
    const compiled = Program.compileSync(parseOk(settle.build()))
    assert.isTrue(compiled.ok)
    if (!compiled.ok) return
    const result = Runtime.runSync(compiled.program, settleArgs({ limit: 2 }))
    assert.isTrue(result.ok && (result.result.outputs.decision as any).category === "interrupted")
  })

  it.effect("guards written with Expr run as expr guards", () =>
    Effect.gen(function*() {
      const json = Organism.make({ key: "organism:double", name: "Double", budgets: { maxAgentCalls: 0 } })
        .input("src", { n: "json" })
        .expr("calc", {
          inputs: { n: "json" },
          program: Expr.mul(Expr.get("n"), 2),
          output: { kind: "json", schema: { type: "number" } }
        })
        .fn("sink", "echo.v1")
        .edge("src.n", "calc.n")
        .edge("calc.out", "sink.value", { guard: Organism.when(Expr.gt(Expr.get("value"), 100)) })
        .interface({ inputs: { n: "src.n" }, outputs: { doubled: "calc.out" } })
        .build()
      const program = yield* Program.compile(yield* Manifest.parse(json))
      const high = Runtime.runSync(program, { src: { n: 60 } })
      const low = Runtime.runSync(program, { src: { n: 10 } })
      assert.isTrue(high.ok && high.result.receipt.cells.sink!.status === "committed")
      assert.isTrue(low.ok && low.result.receipt.cells.sink!.status === "skipped" && low.result.outputs.doubled === 20)
    }))

  it.effect("what the type checker cannot see (an invalid program) still fails parse with a typed error", () =>
    Effect.gen(function*() {
      const bad = Organism.make({ key: "organism:bad", name: "Bad" })
        .input("src", { n: "json" })
        .expr("calc", { inputs: { n: "json" }, program: Expr.get("m"), output: { kind: "text" } })
      const error = yield* Effect.flip(Organism.manifest(bad))
      assert.strictEqual(error.code, "PARSE_FAILED")
      assert.include(error.message, "EXPR_PATH")
    }))

  it("unknown endpoints and duplicate ids are type errors (checked by tsc) and also rejected at run time", () => {
    const b = Organism.make({ key: "organism:t", name: "T" }).input("src", { n: "json" }).fn("sink", "echo.v1")
    const rejected = (json: unknown) => {
      const parsed = Manifest.parseSync(json)
      return parsed.ok
        ? (Program.compileSync(parsed.manifest) as { ok: boolean; error?: { code: string } }).error?.code
        : parsed.error.code
    }
    // @ts-expect-error "src.m" is not a producer port
    assert.strictEqual(rejected(b.edge("src.m", "sink.value").build()), "MANIFEST_INVALID")
    // @ts-expect-error "sink.nope" is not a consumer port
    assert.strictEqual(rejected(b.edge("src.n", "sink.nope").build()), "MANIFEST_INVALID")
    // @ts-expect-error duplicate cell id
    assert.strictEqual(rejected(b.input("src", { x: "json" }).build()), "MANIFEST_INVALID")
    // @ts-expect-error interface inputs must name input cell ports
    assert.strictEqual(rejected(b.interface({ inputs: { x: "sink.value" } }).build()), "INTERFACE_MISMATCH")
  })
})
