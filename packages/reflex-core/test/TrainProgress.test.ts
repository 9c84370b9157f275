import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as ReflexConfig from "../src/ReflexConfig.js"
import * as Reflexes from "../src/Reflexes.js"
import * as ReflexLedger from "../src/ReflexLedger.js"
import type * as TrainProgress from "../src/TrainProgress.js"

// A training pass reports each step as it starts (for a host's progress line), and hearing it
// changes nothing the pass computes.

const engine = () =>
  Reflexes.layer({ config: { ...ReflexConfig.defaults, learn: false } }).pipe(
    Layer.provideMerge(ReflexLedger.layerMemory)
  )

/** Ten labelled settle decisions, then one training pass (with `options`). */
const trainAfterLabels = (options?: TrainProgress.TrainOptions) =>
  Effect.gen(function*() {
    const reflexes = yield* Reflexes.Reflexes
    for (let i = 0; i < 10; i++) {
      yield* reflexes.decide("settle", { text: "Parser updated. Next, I'll wire the CLI:", toolCalls: 60 }, {
        subject: `t${i}`
      })
      yield* reflexes.label("settle", `t${i}`, i % 2 === 0 ? "stopped_short" : "done")
    }
    return yield* reflexes.train("settle", options)
  }).pipe(Effect.provide(engine()))

describe("TrainProgress", () => {
  it.effect("each fit and certification is reported in order as it starts; the report is unchanged", () =>
    Effect.gen(function*() {
      const heard: Array<TrainProgress.TrainProgress> = []
      const reported = yield* trainAfterLabels({ onProgress: (p) => Effect.sync(() => void heard.push(p)) })
      const quiet = yield* trainAfterLabels()
      assert.deepStrictEqual(reported, quiet)
      const heads = reported.heads.map((h) => h.head)
      const certified = reported.certificates.map((c) => c.head)
      const steps = heads.length + certified.length
      assert.deepStrictEqual(
        heard.map((p) => [p.stage, p.head, p.step, p.steps]),
        [
          ...heads.map((head, i) => ["fit", head, i + 1, steps]),
          ...certified.map((head, i) => ["certify", head, heads.length + i + 1, steps])
        ]
      )
      assert.isTrue(heard.every((p) => p.reflex === "settle"))
      assert.deepStrictEqual(
        heard.filter((p) => p.stage === "fit").map((p) => p.labels),
        reported.heads.map((h) => h.labels)
      )
    }))
})
