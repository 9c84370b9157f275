import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Params from "../src/Params.js"
import * as Reflexes from "../src/Reflexes.js"
import * as ReflexLedger from "../src/ReflexLedger.js"
import { routeReference, settleReference } from "./reference.js"

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, "fixtures", name), "utf8")
const vectors = JSON.parse(fixture("reflex-test-vectors.json"))

const engine = (options: Reflexes.Options = {}) =>
  Reflexes.layer(options).pipe(Layer.provideMerge(ReflexLedger.layerMemory))

const closeTo = (a: number, b: number, eps: number) => Math.abs(a - b) <= eps
/** The vectors and v0 files come from xcb, which names settle's stopped_short head `unfinished` (ADR 0414). */
const current = (head: string) => Params.formerHeads["settle"]![head] ?? head

describe("shipped priors", () => {
  it("the program params input of generation 0 equals the shipped encoding", () => {
    assert.deepStrictEqual(
      Params.programInput(Params.routePrior),
      JSON.parse(fixture("program-params-input.route.v0.json"))
    )
    const v0 = JSON.parse(fixture("program-params-input.settle.v0.json"))
    assert.deepStrictEqual(
      Params.programInput(Params.settlePrior),
      Object.fromEntries(Object.entries(v0).map(([head, input]) => [current(head), input]))
    )
    // a program written against the former name finds the same head there too
    const both = Params.programInput(Params.settlePrior, Params.formerHeads["settle"])
    assert.deepStrictEqual(both["unfinished"], v0.unfinished)
    assert.deepStrictEqual(both["stopped_short"], v0.unfinished)
  })

  it("the priors equal the shipped params files", () => {
    assert.deepStrictEqual(Params.routePrior, JSON.parse(fixture("route.params.v0.json")))
    // the v0 file names the head `unfinished`: the stored-document Schema reads it under the current name
    const v0 = JSON.parse(fixture("settle.params.v0.json"))
    assert.property(v0.heads, "unfinished")
    assert.deepStrictEqual(Params.settlePrior, Schema.decodeUnknownSync(Params.ParamsFromStored)(v0))
    assert.deepStrictEqual(Params.decodeJsonOption(JSON.stringify(v0)), Params.settlePrior)
  })

  it("judged threshold logit is -0.619 and the plain head is frontier iff complex cue", () => {
    assert.isTrue(closeTo(Params.thresholdLogit(0.35), -0.619, 0.0005))
    const plain = Params.routePrior.heads["plain"]!
    assert.isTrue(Params.probability(plain, { complex_cue: 1 }) >= plain.threshold)
    assert.isFalse(Params.probability(plain, { complex_cue: 0, routine_cue: 1, imperative: 1 }) >= plain.threshold)
  })

  it("params reject foreign heads and unbounded weights", () => {
    assert.isDefined(
      Params.validate(
        { ...Params.settlePrior, heads: { stopped_short: Params.settlePrior.heads["stopped_short"]! } },
        "settle",
        ["stopped_short", "confirm"]
      )
    )
    const wild = { ...Params.routePrior.heads["plain"]!, weights: { complex_cue: 65 } }
    assert.isDefined(
      Params.validate({ ...Params.routePrior, heads: { ...Params.routePrior.heads, plain: wild } }, "route", [
        "judged",
        "plain"
      ])
    )
    assert.isUndefined(Params.validate(Params.routePrior, "route", ["judged", "plain"]))
  })
})

describe("settle decisions run the shipped organism", () => {
  for (const v of vectors.settle) {
    it.effect(`${JSON.stringify(v.text).slice(0, 50)} (${v.tool_calls} calls, ${v.state})`, () =>
      Effect.gen(function*() {
        const reflexes = yield* Reflexes.Reflexes
        const result = yield* reflexes.decide("settle", {
          text: v.text,
          toolCalls: v.tool_calls,
          state: v.state,
          facts: {
            effects: v.effects_settled ? "settled" : "uncertain",
            terminal: v.terminal_limit ? "token_limit" : "completed"
          }
        }, { subject: `t#${v.text.length}` })
        assert.isFalse(result.skipped)
        if (result.skipped) return
        const d = v.derived_decision
        assert.deepStrictEqual(result.decision, {
          category: d.category,
          gate: d.gate,
          head: current(d.head),
          score: d.score
        })
        if (v.expected_category !== null) assert.strictEqual(result.decision["category"], v.expected_category)
        assert.match(result.receipt, /^sha256:[0-9a-f]{64}$/)
        assert.match(result.program, /^sha256:[0-9a-f]{64}$/)
        assert.strictEqual(result.paramsVersion, 0)
        // cross-check against the pure TypeScript reference of the organism arithmetic
        const ref = settleReference(
          result.features,
          Params.programInput(Params.settlePrior) as any,
          result.evidence as any
        )
        assert.deepStrictEqual(result.decision, ref)
        const pu = Params.probability(Params.settlePrior.heads["stopped_short"]!, result.features)
        const pc = Params.probability(Params.settlePrior.heads["confirm"]!, result.features)
        assert.isTrue(closeTo(pu, v.derived_p_unfinished, 1e-6))
        assert.isTrue(closeTo(pc, v.derived_p_confirm, 1e-6))
      }).pipe(Effect.provide(engine())))
  }

  it.effect("a turn with unknown tool calls is skipped and records nothing", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ledger = yield* ReflexLedger.ReflexLedger
      const result = yield* reflexes.decide("settle", { text: "Next, I'll do it:", toolCalls: undefined }, {
        subject: "s"
      })
      assert.isTrue(result.skipped)
      assert.deepStrictEqual(yield* ledger.counts("settle"), { observed: 0, labeled: 0 })
    }).pipe(Effect.provide(engine())))
})

describe("route decisions run the shipped organism", () => {
  for (const v of vectors.route.filter((x: any) => x.evidence !== undefined)) {
    it.effect(`${JSON.stringify(v.task)} complex=${v.complex_cue} substantial=${v.evidence.substantial}`, () =>
      Effect.gen(function*() {
        const reflexes = yield* Reflexes.Reflexes
        const def = yield* reflexes.definition("route")
        // The vector fixes the cue flags and evidence; run the program on exactly those inputs.
        const features = {
          ...(yield* reflexes.features("route", { task: v.task }))!,
          complex_cue: v.complex_cue ? 1 : 0,
          routine_cue: v.routine_cue ? 1 : 0
        }
        const reference = routeReference(features, Params.programInput(Params.routePrior) as any, v.evidence)
        for (const [k, x] of Object.entries(v.expected)) assert.strictEqual((reference as any)[k], x)
        assert.strictEqual(def.name, "route")
      }).pipe(Effect.provide(engine())))
  }

  it.effect("judged task: refactor kind ⇒ frontier via judged; question/probe ⇒ standard by kind with the same score", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const task = "migrate the session store to the new envelope format and update every caller"
      const judge = { difficulty: 3.9, scope: 3.8, ambiguity: 2.4, stakes: 2.9, frontier: 0.62 }
      const a = yield* reflexes.decide("route", { task, judge: { ...judge, kind: "refactor" } }, { subject: "r1" })
      const b = yield* reflexes.decide("route", { task, judge: { ...judge, kind: "question" } }, { subject: "r2" })
      const c = yield* reflexes.decide("route", { task, judge: { ...judge, kind: "probe" } }, { subject: "r3" })
      if (a.skipped || b.skipped || c.skipped) return assert.fail("skipped")
      assert.deepStrictEqual([a.decision["route"], a.decision["head"], a.decision["gate"]], [
        "frontier",
        "judged",
        "score"
      ])
      assert.deepStrictEqual([b.decision["route"], b.decision["gate"]], ["standard", "kind"])
      assert.strictEqual(c.decision["gate"], "kind")
      assert.strictEqual(a.decision["score"], b.decision["score"])
      const ref = routeReference(a.features, Params.programInput(Params.routePrior) as any, a.evidence as any)
      assert.strictEqual(ref.score, a.decision["score"])
    }).pipe(Effect.provide(engine())))

  it.effect("plain head: frontier iff complex cue; substantial prompts always route frontier", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const complex = yield* reflexes.decide("route", { task: "refactor the auth layer" }, { subject: "a" })
      const plain = yield* reflexes.decide("route", { task: "fix the thing" }, { subject: "b" })
      const big = yield* reflexes.decide("route", { task: "typo ".repeat(400) }, { subject: "c" })
      if (complex.skipped || plain.skipped || big.skipped) return assert.fail("skipped")
      assert.strictEqual(complex.decision["route"], "frontier")
      assert.strictEqual(plain.decision["route"], "standard")
      assert.deepStrictEqual([big.decision["route"], big.decision["gate"]], ["frontier", "substantial"])
      assert.isTrue(plain.acts, "route is active by default")
    }).pipe(Effect.provide(engine())))

  it.effect("routes only among eligible tiers", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const r = yield* reflexes.decide("route", { task: "refactor the auth layer" }, {
        subject: "e",
        eligible: ["standard"]
      })
      if (r.skipped) return assert.fail("skipped")
      assert.strictEqual(r.programValue, "frontier")
      assert.strictEqual(r.decision["route"], "standard")
      const none = yield* reflexes.decide("route", { task: "refactor the auth layer" }, { subject: "f", eligible: [] })
      if (none.skipped) return assert.fail("skipped")
      assert.isFalse(none.acts)
    }).pipe(Effect.provide(engine())))
})

describe("replay", () => {
  it.effect("any recorded observation replays to the same decision and receipt digest", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ids: Array<string> = []
      for (const v of vectors.settle) {
        const r = yield* reflexes.decide("settle", { text: v.text, toolCalls: v.tool_calls, state: v.state }, {
          subject: `x${ids.length}`
        })
        if (!r.skipped) ids.push(r.observation)
      }
      const r = yield* reflexes.decide("route", {
        task: "refactor the auth layer",
        judge: { difficulty: 1, scope: 2, ambiguity: 0, stakes: 0, frontier: 0.3 }
      }, { subject: "route-1" })
      if (!r.skipped) ids.push(r.observation)
      for (const id of ids) {
        const replayed = yield* reflexes.replay(id)
        assert.isTrue(replayed.matches, id)
        assert.deepStrictEqual(replayed.recorded, replayed.replayed)
      }
      const missing = yield* Effect.flip(reflexes.replay("obs_00000000000000000000000000000000"))
      assert.strictEqual(missing.code, "not-found")
    }).pipe(Effect.provide(engine())))
})
