// Growth curves (issue 17 item 5): certification replay over 40 … 4,096 labels (≈100×), from
// scratch and resumed after 16 new labels. The exponent between two sizes is
// log(t2 / t1) / log(n2 / n1); the replay refits a window that grows with the labels seen every
// 64 labels, so from scratch it grows faster than linearly (issue 17 item 2 remains open).
import { Option } from "effect"
import { bench, describe } from "vitest"
import * as Features from "../src/Features.js"
import * as Learning from "../src/Learning.js"
import * as Params from "../src/Params.js"

const openings = ["Updated the parser.", "Fixed the flaky test.", "Refactored the store.", "Reviewed the diff."]
const endings = [
  "Next, I'll wire the CLI:",
  "All tests pass and the PR is merged.",
  "Should I open the PR and merge it?",
  "I'm waiting on CI and will merge on green",
  "Remaining: docs and the changelog."
]
const prior = Params.settlePrior.heads["unfinished"]!
const labeled: Array<Learning.Example> = Array.from({ length: 4096 }, (_, i) => {
  const text = `${openings[i % openings.length]} ${"detail ".repeat(i % 37)}${endings[(i * 7 + 3) % endings.length]}`
  const f = Option.getOrThrow(Features.settleFeatures(text, Features.completedTurn, (i * 13) % 90))
  const p = Params.probability(prior, f)
  const noise = ((i * 2654435761) % 1000) / 1000
  return {
    observation: `obs_${i}`,
    features: f,
    label: noise < Math.min(0.95, p + 0.1),
    weight: i % 3 === 0 ? 0.5 : 1,
    source: "user_continue",
    seq: i + 1
  }
})

const sizes = [40, 160, 640, 1500, 4096] as const
const certify = (examples: ReadonlyArray<Learning.Example>, cache?: Learning.ReplayCache) =>
  Learning.certify({ head: "unfinished", prior, examples, floor: 0.75, actionable: () => true, cache })

describe("certification replay from scratch, by labels", () => {
  for (const n of sizes) {
    bench(`certify unfinished over ${n} labels`, () => {
      certify(labeled.slice(0, n))
    }, { iterations: n > 1500 ? 2 : 4, warmupIterations: 0, time: 0 })
  }
})

describe("certification replay resumed after 16 new labels, by labels", () => {
  for (const n of sizes) {
    const warm = Learning.makeReplayCache()
    Learning.replay(prior, prior, labeled.slice(0, n - 16), undefined, warm)
    bench(`certify unfinished over ${n} labels, resumed after 16`, () => {
      certify(labeled.slice(0, n), { ...warm })
    }, { iterations: 8, warmupIterations: 0, time: 0 })
  }
})
