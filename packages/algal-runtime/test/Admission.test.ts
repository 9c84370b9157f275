import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Admission from "../src/Admission.js"
import * as Manifest from "../src/Manifest.js"
import { edge, xcb } from "./helpers.js"

describe("Admission.pure (xcb reflex profile)", () => {
  it.effect("admits the shipped settle and route programs, with the manifest digest", () =>
    Effect.gen(function*() {
      for (const name of ["settle", "route"]) {
        const admitted = yield* Admission.pure(xcb(name))
        assert.strictEqual(admitted.digest, Manifest.digest(admitted.manifest))
        assert.strictEqual(admitted.program.digest, admitted.digest)
      }
    }))

  it.effect("rejects with every violated rule, not just the first", () =>
    Effect.gen(function*() {
      const json = xcb("settle")
      json.cells.push({ id: "echo", kind: "fn", fn: "echo.v1" })
      json.edges.push(edge("decide.out", "echo.value"))
      delete json.budgets.maxAgentCalls
      json.budgets.maxSteps = 128
      json.budgets.maxOutputBytes = 65536
      delete json.interface.inputs.params
      json.interface.outputs.extra = { cell: "head", port: "out" }
      const error = yield* Effect.flip(Admission.pure(json))
      assert.strictEqual(error.code, "MANIFEST_INVALID")
      assert.match(error.message, /^reflex program rejected: /)
      const rules = (error.detail as { violations: ReadonlyArray<Admission.Violation> }).violations.map((v) => v.rule)
      assert.deepStrictEqual(rules, [
        "cell-kinds",
        "max-agent-calls",
        "interface-inputs",
        "budget-caps",
        "interface-signature",
        "interface-coverage"
      ])
    }))

  it("a non-integer maxAgentCalls, a parse failure and an oversize program are reported together", () => {
    const json = xcb("route")
    json.budgets.maxAgentCalls = 0.5
    json.note = "x".repeat(70_000)
    const verdict = Admission.pureSync(json)
    assert.isFalse(verdict.ok)
    if (verdict.ok) return
    assert.deepStrictEqual(verdict.violations.map((v) => v.rule), ["size", "max-agent-calls", "parse"])
  })

  it("interface ports must be plain json and every required input port supplied", () => {
    const json = xcb("settle")
    json.cells[0].outputs.features = { type: "json", optional: true }
    json.cells[0].outputs.extra = "json"
    const verdict = Admission.pureSync(json)
    assert.isFalse(verdict.ok)
    if (verdict.ok) return
    assert.deepStrictEqual(verdict.violations.map((v) => v.rule), ["interface-signature", "interface-coverage"])
    assert.include(verdict.violations[1]!.message, "src.extra")
  })

  it("a program whose graph does not compile is rejected by the compile rule", () => {
    const json = xcb("settle")
    json.edges.push(edge("decide.out", "head.features"))
    const verdict = Admission.pureSync(json)
    assert.isFalse(verdict.ok)
    if (verdict.ok) return
    assert.deepStrictEqual(verdict.violations.map((v) => v.rule), ["compile"])
    assert.match(verdict.violations[0]!.message, /^MANIFEST_INVALID: input is single-assignment/)
  })
})
