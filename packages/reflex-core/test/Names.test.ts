/**
 * Names that key reflex-core's records (reflexes, heads, features, weights) are
 * `[a-z0-9_]{1,48}` except `__proto__`: as a plain object's key it sets the prototype, so a record
 * keyed by it could not be stored and read back. Every entry point refuses it by name.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import * as Features from "../src/Features.js"
import * as Learning from "../src/Learning.js"
import * as Params from "../src/Params.js"
import * as Reflex from "../src/Reflex.js"
import * as ReflexConfig from "../src/ReflexConfig.js"
import { review } from "./examples/reviewReflex.js"

const proto = JSON.parse(`{"__proto__": 0.5}`) as Record<string, number>

describe("names", () => {
  it("a head or a feature vector keyed by __proto__ is refused", () => {
    const head = Schema.decodeUnknownEither(Params.Head)({ bias: 0, weights: proto, threshold: 0.5 })
    assert.isTrue(Either.isLeft(head))
    assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(Features.FeaturesSchema)(proto)))
    // the same shapes under an ordinary name decode
    const fine = { bias: 0, weights: { proto: 0.5 }, threshold: 0.5 }
    assert.deepStrictEqual(Schema.decodeUnknownSync(Params.Head)(fine), fine)
  })

  it("a stored certificate whose model has a __proto__ weight reads as none", () => {
    const stored = JSON.stringify({
      head: "h",
      certified: false,
      threshold: 0,
      floor: 0,
      window: 0,
      fired: 0,
      precision: 0,
      lower: 0,
      reason: "",
      model: { bias: 0, weights: proto, threshold: 0.5 }
    })
    assert.include(stored, `"__proto__":0.5`)
    assert.isUndefined(Learning.decodeCertificatePayload(stored))
  })

  it("a reflex named __proto__ is refused, and so is a custom mode keyed by it", () =>
    Effect.runPromise(Effect.gen(function*() {
      const made = Reflex.make({ ...Either.getOrThrow(review), name: "__proto__" })
      assert.isTrue(Either.isLeft(made))
      if (Either.isLeft(made)) assert.include(made.left.message, "not __proto__")
      for (const key of ["__proto__", "review.__proto__"]) {
        const custom = JSON.parse(`{${JSON.stringify(key)}: "observe"}`)
        const decoded = yield* Effect.either(ReflexConfig.decode({ custom }))
        assert.isTrue(Either.isLeft(decoded), key)
      }
      const ok = yield* ReflexConfig.decode({ custom: { "review.second": "observe" } })
      assert.strictEqual(ok.custom["review.second"], "observe")
    })))
})
