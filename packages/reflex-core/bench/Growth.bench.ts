// Growth curves (issue 17 items 2 and 5): certification replay over 40 … 6,000 labels (150×)
// from scratch; the work past the 1,500-label window alone (a replay resumed from the window over
// 60 … 6,000 new labels, 100×); and a replay resumed after 16 new labels. The exponent between two
// sizes is log(t2 / t1) / log(n2 / n1). Through 1,500 labels the replay fits each challenger cold
// on a window that grows with the labels (quadratic by design, as training fits: hence
// `expect n^2` on the from-scratch curve); past it the challengers continue one warm descent
// (ADR 0410), so the work past the window is linear: the target is 6,000 labels in ≤ 4× the time
// of 1,500 (exponent ≤ 1 between them).
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
const labeled: Array<Learning.Example> = Array.from({ length: 7500 }, (_, i) => {
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

const sizes = [40, 160, 640, 1500, 4096, 6000] as const
const beyond = [60, 240, 960, 3000, 6000] as const
const certify = (examples: ReadonlyArray<Learning.Example>, cache?: Learning.ReplayCache) =>
  Learning.certify({ head: "unfinished", prior, examples, floor: 0.75, actionable: () => true, cache })
const warmCaches = new Map<number, Learning.ReplayCache>()
for (const n of sizes) {
  const warm = Learning.makeReplayCache()
  Learning.replay(prior, prior, labeled.slice(0, n - 16), undefined, warm)
  warmCaches.set(n, warm)
}
const window = Learning.makeReplayCache()
Learning.replay(prior, prior, labeled.slice(0, 1500), undefined, window)

/** Median of `runs` timings (ms) of `f`: process CPU time, steadier than wall time under load. */
const median = (runs: number, f: () => void): number => {
  const samples: Array<number> = []
  for (let r = 0; r < runs; r++) {
    const start = process.cpuUsage().user
    f()
    samples.push((process.cpuUsage().user - start) / 1000)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(runs / 2)]!
}

const exponent = (n1: number, t1: number, n2: number, t2: number) => Math.log(t2 / t1) / Math.log(n2 / n1)

// The curves, measured once before the rows (CPU medians; the rows below are wall time).
{
  const scratch = sizes.map((n) => median(n >= 1500 ? 3 : 5, () => certify(labeled.slice(0, n))))
  const resumed = sizes.map((n) => median(9, () => certify(labeled.slice(0, n), { ...warmCaches.get(n)! })))
  const past = beyond.map((m) => median(3, () => certify(labeled.slice(0, 1500 + m), { ...window })))
  const at = (n: number) => sizes.indexOf(n as (typeof sizes)[number])
  const row = (ts: ReadonlyArray<number>) => sizes.map((n, i) => `${n}: ${ts[i]!.toFixed(2)} ms`).join(", ")
  const beyondWindow = exponent(1500, scratch[at(1500)]!, 6000, scratch[at(6000)]!)
  const ratio = scratch[at(6000)]! / scratch[at(1500)]!
  console.log(`[certify from scratch, by labels] ${row(scratch)}`)
  console.log(
    `[certify from scratch, by labels] 6,000 / 1,500 = ${ratio.toFixed(2)}× (target ≤ 4×); growth exponent ` +
      `past the 1,500 window ${beyondWindow.toFixed(2)}, through it ${
        exponent(40, scratch[0]!, 1500, scratch[at(1500)]!).toFixed(2)
      } (cold fits on growing windows)`
  )
  if (beyondWindow > 1.2) console.log("[certify from scratch, by labels] growth exponent above 1.2 past the window")
  const slope = exponent(beyond[0], past[0]!, beyond[beyond.length - 1]!, past[past.length - 1]!)
  console.log(
    `[past the window, by new labels] ${beyond.map((m, i) => `${m}: ${past[i]!.toFixed(2)} ms`).join(", ")}; ` +
      `growth exponent ${slope.toFixed(2)}`
  )
  if (slope > 1.2) console.log("[past the window, by new labels] growth exponent above 1.2 where the work is linear")
  console.log(`[certify resumed after 16 labels] ${row(resumed)}`)
}

describe("certification replay from scratch, by labels", () => {
  for (const n of sizes) {
    bench(`certify unfinished from scratch — n=${n} labels (expect n^2)`, () => {
      certify(labeled.slice(0, n))
    }, { iterations: n >= 1500 ? 2 : 4, warmupIterations: 0, time: 0 })
  }
})

describe("certification replay past the 1,500-label window, by new labels", () => {
  for (const m of beyond) {
    bench(`certify unfinished resumed from the 1,500-label window — n=${m} new labels`, () => {
      certify(labeled.slice(0, 1500 + m), { ...window })
    }, { iterations: 3, warmupIterations: 0, time: 0 })
  }
})

describe("certification replay resumed after 16 new labels, by labels", () => {
  for (const n of sizes) {
    const warm = warmCaches.get(n)!
    bench(`certify unfinished, resumed after 16 new labels — n=${n} labels`, () => {
      certify(labeled.slice(0, n), { ...warm })
    }, { iterations: 8, warmupIterations: 0, time: 0 })
  }
})
