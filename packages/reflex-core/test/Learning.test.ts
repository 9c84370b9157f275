import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Features from "../src/Features.js"
import * as FitWorkers from "../src/FitWorkers.js"
import * as Gates from "../src/Gates.js"
import * as FitPool from "../src/internal/fitPool.js"
import * as Labels from "../src/Labels.js"
import * as Learning from "../src/Learning.js"
import * as Params from "../src/Params.js"
import { referenceFit } from "./fitReference.js"
import * as TestFitWorkers from "./fitWorkers.js"

const vectors = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures/reflex-test-vectors.json"), "utf8"))
/** xcb's vectors and the v1 pins name settle's stopped_short head `unfinished` (ADR 0414). */
const current = (head: string) => Params.formerHeads["settle"]![head] ?? head

const example = (
  i: number,
  features: Record<string, number>,
  label: boolean,
  source = "user_continue",
  weight = 1
): Learning.Example => ({
  observation: `obs_${i}`,
  features,
  label,
  weight,
  source,
  seq: i + 1
})

describe("confirm veto", () => {
  for (const v of vectors.confirm_veto) {
    it(`${JSON.stringify(v.text).slice(0, 60)} ⇒ ${v.vetoed ? "vetoed" : "answerable"}`, () => {
      assert.strictEqual(Gates.confirmVetoed(v.text), v.vetoed)
    })
  }
  const more: Array<[string, boolean]> = [
    ["The config was overwritten. Restore it?", true],
    ["I spent the remaining credits. Continue?", true],
    ["Ready. Should I deploy it now?\n\n- yes\n- wait for review", true],
    ["Should I update the undeployable flag docs?", false],
    ["Fixed the dropdown payload and the tokenizer. Should I open the PR?", false],
    ["Removed the dead helper and updated the public API.\n\nShould I open the PR and merge it?", false],
    ["Ready. Should I open the PR?\n\n- yes\n- wait for review", false]
  ]
  for (const [text, vetoed] of more) {
    it(`spec case ${JSON.stringify(text).slice(0, 50)} ⇒ ${vetoed}`, () =>
      assert.strictEqual(Gates.confirmVetoed(text), vetoed))
  }

  it("confirmable needs a confirm decision with no risk, hand-off, owner-only step or veto", () => {
    const text = "The fix is ready on the branch. Should I open the PR and merge it?"
    const f = Option.getOrThrow(Features.settleFeatures(text, Features.completedTurn, 8))
    assert.isTrue(Gates.confirmable("confirm", f, text))
    assert.isFalse(Gates.confirmable("done", f, text))
    assert.isFalse(Gates.confirmable("confirm", { ...f, owner_only: 1 }, text))
    assert.isFalse(Gates.confirmable("confirm", { ...f, risk: 1 }, text))
  })
})

describe("continuation preconditions", () => {
  const base: Gates.ContinuationFacts = {
    cancelRequested: false,
    attempts: 0,
    askable: true,
    joined: true,
    effects: "settled",
    pendingAttention: false,
    failed: false,
    repeated: false,
    terminal: "completed",
    elapsedMs: 1000
  }
  it("a completed idle turn is semantic; a limit is deterministic", () => {
    assert.deepStrictEqual(
      [Gates.continuation(base).semantic, Gates.continuation(base).deterministic],
      [true, false]
    )
    const limit = Gates.continuation({ ...base, terminal: "turn_limit" })
    assert.deepStrictEqual([limit.semantic, limit.deterministic], [false, true])
  })
  it("every precondition closes the gate", () => {
    const closedBy: Array<Partial<Gates.ContinuationFacts>> = [
      { cancelRequested: true },
      { attempts: 3 },
      { askable: false },
      { joined: false },
      { effects: "uncertain" },
      { pendingAttention: true },
      { failed: true },
      { repeated: true },
      { elapsedMs: 3_600_000 },
      { autoContinue: { enabled: false, maxConsecutive: 8, maxElapsedMs: 3_600_000 } },
      { terminal: "failed" }
    ]
    for (const patch of closedBy) assert.isFalse(Gates.continuation({ ...base, ...patch }).open, JSON.stringify(patch))
  })
  it("the route floor cannot be demoted and routing stays among eligible tiers", () => {
    assert.strictEqual(Gates.routeFloor("standard", true), "frontier")
    assert.strictEqual(Gates.routeFloor("standard", false), "standard")
    assert.strictEqual(Gates.eligibleRoute("frontier", ["standard"]), "standard")
    assert.isUndefined(Gates.eligibleRoute("frontier", []))
  })
})

describe("replies", () => {
  for (const v of vectors.replies) {
    it(`${JSON.stringify(v.text)} ⇒ ${v.category}`, () =>
      assert.strictEqual(Labels.categorizeReply(v.text), v.category))
  }
  for (const [category, labels] of Object.entries(vectors.reply_labels)) {
    it(`${category} labels per the table`, () => {
      const got = Labels.settleLabels(category as Labels.ReplyCategory).map((l) => [l.head, l.label, l.weight])
      assert.deepStrictEqual(got, (labels as Array<[string, boolean, number]>).map(([h, l, w]) => [current(h), l, w]))
      for (const l of Labels.settleLabels(category as Labels.ReplyCategory)) {
        assert.strictEqual(l.source, `user_${category}`)
      }
    })
  }
  it("more categories: correction, quota, other, leading 'ship it' approves", () => {
    assert.strictEqual(Labels.categorizeReply("no, that's wrong"), "correction")
    assert.strictEqual(Labels.categorizeReply("limits are back, go"), "quota_resume")
    assert.strictEqual(Labels.categorizeReply("now write the docs for the parser"), "other")
    assert.strictEqual(Labels.categorizeReply("ship it"), "approve")
    assert.strictEqual(Labels.categorizeReply("nextjs is broken"), "other")
  })
  it("tier requests label the route", () => {
    assert.strictEqual(Labels.escalation("please use opus for this"), "frontier")
    assert.strictEqual(Labels.escalation("a cheaper model is fine"), "standard")
    assert.isUndefined(Labels.escalation("thanks"))
  })
  it("continue_like is a whole-message match", () => {
    assert.isTrue(Labels.continueLike("Please continue."))
    assert.isTrue(Labels.continueLike("keep going please"))
    assert.isFalse(Labels.continueLike("continue with the docs"))
  })
  it("explicit labels beat inferred ones, never the reverse", () => {
    assert.isTrue(Labels.replaces({ label: false, weight: 0.5 }, { label: true, weight: 1 }))
    assert.isFalse(Labels.replaces({ label: true, weight: 1 }, { label: false, weight: 0.5 }))
    assert.isTrue(Labels.replaces({ label: true, weight: 1 }, { label: false, weight: 1 }))
    assert.isFalse(Labels.replaces({ label: true, weight: 1 }, { label: true, weight: 1 }))
    // ADR 0402: explicit labels always win, even over an equally heavy inferred label
    assert.isFalse(
      Labels.replaces({ label: false, weight: 1, source: "explicit" }, {
        label: true,
        weight: 1,
        source: "user_continue"
      })
    )
    assert.isTrue(
      Labels.replaces({ label: true, weight: 1, source: "user_continue" }, {
        label: false,
        weight: 1,
        source: "explicit"
      })
    )
    assert.isTrue(
      Labels.replaces({ label: true, weight: 1, source: "explicit" }, { label: false, weight: 1, source: "explicit" })
    )
  })
})

describe("hold-back", () => {
  for (const s of vectors.held_turn.samples) {
    it(`${s.head} ${s.task}#${s.revision} held=${s.held}`, () => {
      assert.strictEqual(Learning.heldTurn(s.head, s.task, s.revision), s.held)
      // the renamed head holds back the same turns (it hashes under its first name)
      assert.strictEqual(Learning.heldTurn(current(s.head), s.task, s.revision), s.held)
    })
  }
  it("about one acting turn in ten is held for the person", () => {
    let held = 0
    for (let r = 0; r < 2000; r++) if (Learning.heldTurn("stopped_short", "t_explore", r)) held++
    assert.isTrue(held >= 140 && held <= 260, `${held}`)
  })
})

describe("fit and promotion", () => {
  const prior = Params.settlePrior.heads["stopped_short"]!
  const f = Option.getOrThrow(
    Features.settleFeatures("Parser updated. Next, I'll wire the CLI:", Features.completedTurn, 60)
  )
  it("fitting moves toward evidence and is anchored by the prior", () => {
    const negatives = Array.from({ length: 200 }, (_, i) => example(i, f, false))
    const fitted = Learning.fit(prior, negatives)
    assert.isTrue(Params.probability(fitted, f) < Params.probability(prior, f))
    assert.isTrue(Params.probability(fitted, f) > 0.01, "the prior anchors the fit")
    assert.strictEqual(fitted.threshold, prior.threshold)
    for (const w of Object.values(fitted.weights)) assert.strictEqual(Math.round(w * 10000) / 10000, w)
    assert.deepStrictEqual(Learning.fit(prior, []), prior)
    assert.deepStrictEqual(Learning.fit(prior, [example(0, f, true, "explicit", 0)]), prior, "zero weight ⇒ prior")
  })
  it("the fit equals a plain full-batch gradient descent (spec §4.3) to 4 decimals", () => {
    const texts = [
      "Parser updated. Next, I'll wire the CLI:",
      "All tests pass; the PR is merged.",
      "Should I open the PR?",
      "I'm waiting on CI",
      "- [ ] docs\n- [ ] changelog"
    ]
    const xs = Array.from({ length: 300 }, (_, i) => {
      const g = Option.getOrThrow(
        Features.settleFeatures(texts[i % 5]! + " x".repeat(i % 13), Features.completedTurn, (i * 7) % 50)
      )
      return example(i, g, (i * 31) % 7 < 3, "user_continue", i % 4 === 0 ? 0.5 : 1)
    })
    const names = Object.keys(prior.weights).sort()
    const ps = 24
    const lr = 0.5
    let b = prior.bias
    const t = names.map((n) => prior.weights[n]!)
    const sumW = xs.reduce((a, e) => a + e.weight, 0)
    for (let it = 0; it < 600; it++) {
      let gb = ps * (b - prior.bias)
      const g = names.map((n, j) => ps * (t[j]! - prior.weights[n]!))
      for (const e of xs) {
        const z = names.reduce((acc, n, j) => acc + t[j]! * (e.features[n] ?? 0), b)
        const r = e.weight * (1 / (1 + Math.exp(-z)) - (e.label ? 1 : 0))
        gb += r
        names.forEach((n, j) => (g[j]! += r * (e.features[n] ?? 0)))
      }
      b -= lr * gb / (sumW + ps)
      names.forEach((_, j) => (t[j] = t[j]! - lr * g[j]! / (sumW + ps)))
    }
    const fitted = Learning.fit(prior, xs)
    assert.isTrue(Math.abs(fitted.bias - b) <= 1.0001e-4, `bias ${fitted.bias} vs ${b}`)
    names.forEach((n, j) =>
      assert.isTrue(Math.abs(fitted.weights[n]! - t[j]!) <= 1.0001e-4, `${n}: ${fitted.weights[n]} vs ${t[j]}`)
    )
  })

  it("examples recorded under an older feature set do not train", () => {
    assert.deepStrictEqual(Learning.fit(prior, [example(0, { awaiting: 1 }, true)]), prior)
  })
  it("is deterministic (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }), (labels) => {
        const xs = labels.map((l, i) => example(i, f, l))
        assert.deepStrictEqual(
          Learning.fit(prior, xs, { ...Learning.defaultFitOptions, iterations: 50 }),
          Learning.fit(prior, xs, { ...Learning.defaultFitOptions, iterations: 50 })
        )
      }),
      { numRuns: 20 }
    )
  })
  it("holdout assignment is stable and roughly one fifth", () => {
    let held = 0
    for (let i = 0; i < 1000; i++) if (Learning.isHoldout(`obs_${i}`)) held++
    assert.isTrue(held >= 150 && held <= 250, `${held}`)
    assert.strictEqual(Learning.isHoldout("obs_7"), Learning.isHoldout("obs_7"))
  })
  it("holdout promotion needs held-out evidence from both classes", () => {
    const good = { ...prior, bias: prior.bias + 1 }
    const onlyPositive = Array.from({ length: 20 }, (_, i) => example(i, f, true))
    assert.strictEqual(
      Learning.compareHoldout(prior, good, onlyPositive.slice(0, 5)).reason,
      "needs 12 held-out labels"
    )
    assert.strictEqual(
      Learning.compareHoldout(prior, good, onlyPositive).reason,
      "needs 5 held-out labels of each class"
    )
  })
  it("holdout promotes only a lower log loss without losing accuracy or AUC (ADR 0401)", () => {
    const g = Option.getOrThrow(
      Features.settleFeatures("All tests pass; the PR is merged.", Features.completedTurn, 60)
    )
    const holdout = [
      ...Array.from({ length: 10 }, (_, i) => example(i, f, true)),
      ...Array.from({ length: 10 }, (_, i) => example(10 + i, g, false))
    ]
    const sharper = Learning.fit(prior, holdout)
    const c = Learning.compareHoldout(prior, sharper, holdout)
    assert.isTrue(c.promoted, c.reason)
    const worse = { ...prior, weights: { ...prior.weights, promise_next: -8 } }
    const d = Learning.compareHoldout(prior, worse, holdout)
    assert.isFalse(d.promoted)
  })
  it("forward promotion requires a won trial of 48 fresh labels", () => {
    const fresh = Array.from({ length: 47 }, (_, i) => example(i, f, i % 10 !== 0))
    const better = Learning.fit(prior, fresh)
    const undecided = Learning.compareForward(prior, better, fresh)
    assert.isFalse(undecided.decided)
    assert.strictEqual(undecided.comparison.reason, "trial: 47 of 48 fresh labels")
    const more = Array.from({ length: 48 }, (_, i) => example(i, f, i % 10 !== 0))
    const won = Learning.compareForward(prior, better, more)
    assert.isTrue(won.decided && won.comparison.promoted, won.comparison.reason)
    const lost = Learning.compareForward(prior, { ...prior, bias: prior.bias - 4 }, more)
    assert.isTrue(lost.decided && !lost.comparison.promoted)
  })
  it("metrics: weighted log loss, accuracy, Mann-Whitney AUC with ties", () => {
    assert.strictEqual(Learning.auc([0.1, 0.4, 0.35, 0.8], [false, false, true, true]), 0.75)
    assert.strictEqual(Learning.auc([0.5, 0.5], [false, true]), 0.5)
    assert.isUndefined(Learning.auc([0.5], [true]))
  })
  it("a resumed replay equals a replay from scratch (extended, changed and shrunk histories)", () => {
    const g = Option.getOrThrow(
      Features.settleFeatures("All tests pass; the PR is merged.", Features.completedTurn, 60)
    )
    const xs = Array.from({ length: 200 }, (_, i) => example(i, i % 3 === 0 ? g : f, i % 7 !== 0 && i % 3 !== 0))
    const cache = Learning.makeReplayCache()
    const strip = (r: ReturnType<typeof Learning.replay>) => ({
      head: r.head,
      promotions: r.promotions,
      p: r.predictions.map((x) => x.p)
    })
    for (const n of [64, 100, 160, 200]) {
      assert.deepStrictEqual(
        strip(Learning.replay(prior, prior, xs.slice(0, n), undefined, cache)),
        strip(Learning.replay(prior, prior, xs.slice(0, n)))
      )
    }
    const changed = xs.map((e, i) => (i === 50 ? { ...e, label: !e.label, seq: 999 } : e))
    assert.deepStrictEqual(
      strip(Learning.replay(prior, prior, changed, undefined, cache)),
      strip(Learning.replay(prior, prior, changed))
    )
    assert.deepStrictEqual(
      strip(Learning.replay(prior, prior, xs.slice(0, 30), undefined, cache)),
      strip(Learning.replay(prior, prior, xs.slice(0, 30)))
    )
  })

  it("replay learns forward and is deterministic", () => {
    const xs = Array.from({ length: 160 }, (_, i) => example(i, f, i % 10 !== 0))
    const a = Learning.replay(prior, prior, xs)
    const b = Learning.replay(prior, prior, xs)
    assert.deepStrictEqual(a.head, b.head)
    assert.deepStrictEqual(a.predictions.map((p) => p.p), b.predictions.map((p) => p.p))
    assert.isTrue(a.promotions >= 1)
    assert.strictEqual(a.predictions[0]!.p, Params.probability(prior, f))
  })
})

describe("fit kernel and shared fits (ADR 0450)", () => {
  // The benchmark's corpus: the same varied finished turns `bench/Reflexes.bench.ts` imports.
  const openings = [
    "Updated the parser.",
    "Fixed the flaky test.",
    "Refactored the store.",
    "Reviewed the diff.",
    "## Summary\n\nShipped the change."
  ]
  const endings = [
    "Next, I'll wire the CLI:",
    "All tests pass and the PR is merged.",
    "Should I open the PR and merge it?",
    "I'm waiting on CI and will merge on green",
    "Let me know if you want anything else.",
    "Remaining: docs and the changelog.",
    "I can't reach the registry from this sandbox."
  ]
  const corpus = (head: "stopped_short" | "confirm", n: number) => {
    const out: Array<Learning.Example> = []
    for (let i = 0; out.length < n; i++) {
      if ((i % 4 === 0) !== (head === "confirm")) continue
      const text = `${openings[i % openings.length]} ${"detail ".repeat(i % 37)}${
        endings[(i * 7 + 3) % endings.length]
      }`
      const features = Option.getOrThrow(Features.settleFeatures(text, Features.completedTurn, (i * 13) % 90))
      out.push(example(out.length, features, i % 3 !== 0, "import", i % 5 === 0 ? 0.5 : 1))
    }
    return out
  }

  for (const head of ["stopped_short", "confirm"] as const) {
    it(`${head}: the fit equals the previous kernel on every window a replay of the corpus fits`, () => {
      const prior = Params.settlePrior.heads[head]!
      const xs = corpus(head, 1024)
      for (let seen = Learning.TRAIN_EVERY; seen <= xs.length; seen += Learning.TRAIN_EVERY) {
        const window = xs.slice(0, seen)
        assert.deepStrictEqual(Learning.fit(prior, window), referenceFit(prior, window), `window of ${seen}`)
      }
    })
  }

  it("the fit equals the previous kernel on arbitrary examples (property)", () => {
    const prior = Params.settlePrior.heads["stopped_short"]!
    const names = Object.keys(prior.weights).sort()
    const value = fc.oneof(
      fc.constant(0),
      fc.constant(1),
      fc.double({ min: -3, max: 3, noNaN: true }),
      fc.constant(Number.NaN)
    )
    const row = fc.record({
      values: fc.array(value, { minLength: names.length, maxLength: names.length }),
      label: fc.boolean(),
      weight: fc.oneof(fc.constant(1), fc.constant(0.5), fc.double({ min: -1, max: 2, noNaN: true }))
    })
    fc.assert(
      fc.property(fc.array(row, { minLength: 0, maxLength: 60 }), fc.integer({ min: 1, max: 80 }), (rows, its) => {
        const xs = rows.map((r, i) =>
          example(i, Object.fromEntries(names.map((n, j) => [n, r.values[j]!])), r.label, "import", r.weight)
        )
        const options = { ...Learning.defaultFitOptions, iterations: its }
        assert.deepStrictEqual(Learning.fit(prior, xs, options), referenceFit(prior, xs, options))
      }),
      { numRuns: 150 }
    )
  })

  it.effect(
    "fits made on worker threads are the fits of the calling thread and cover a replay's schedule",
    () =>
      Effect.gen(function*() {
        const jobs = (["stopped_short", "confirm"] as const).map((head) => {
          const prior = Params.settlePrior.heads[head]!
          const examples = corpus(head, 600)
          const memo = Learning.makeFitMemo(examples)
          const windows = Learning.scheduledFits(examples.length)
          const fitted = new Map<string, Params.Head>()
          return { head, prior, examples, memo, windows, fitted }
        })
        const workers = yield* FitWorkers.FitWorkers
        yield* FitPool.prefit(
          workers,
          jobs.map((j) => ({
            examples: j.examples,
            prior: j.prior,
            options: Learning.defaultFitOptions,
            windows: j.windows,
            store: (from: number, to: number, head: Params.Head) => {
              j.fitted.set(`${from}:${to}`, head)
              Learning.rememberFit(j.memo, j.prior, Learning.defaultFitOptions, from, to, head)
            }
          })),
          2
        )
        for (const j of jobs) {
          assert.strictEqual(j.fitted.size, j.windows.length)
          for (const [from, to] of j.windows) {
            assert.deepStrictEqual(j.fitted.get(`${from}:${to}`), Learning.fit(j.prior, j.examples.slice(from, to)))
          }
          const size = j.memo.fits.size
          const replayed = Learning.replay(j.prior, j.prior, j.examples, undefined, undefined, j.memo)
          assert.strictEqual(j.memo.fits.size, size, `${j.head}: the schedule covered every fit`)
          const alone = Learning.replay(j.prior, j.prior, j.examples)
          assert.deepStrictEqual(replayed.head, alone.head)
          assert.deepStrictEqual(replayed.predictions.map((p) => p.p), alone.predictions.map((p) => p.p))
        }
      }).pipe(Effect.provide(TestFitWorkers.fromSource)),
    { timeout: 120_000 }
  )

  it.effect(
    "fit workers that cannot start fail the prefit (the replay then fits on the calling thread)",
    () =>
      Effect.gen(function*() {
        const workers = yield* FitWorkers.FitWorkers
        const prior = Params.settlePrior.heads["stopped_short"]!
        const stored: Array<string> = []
        const exit = yield* Effect.exit(FitPool.prefit(
          workers,
          [{
            examples: corpus("stopped_short", 64),
            prior,
            options: Learning.defaultFitOptions,
            windows: [[0, 32], [0, 64]],
            store: (from, to) => stored.push(`${from}:${to}`)
          }],
          2
        ))
        assert.isTrue(exit._tag === "Failure")
        assert.deepStrictEqual(stored, [])
      }).pipe(Effect.provide(TestFitWorkers.missingEntry)),
    { timeout: 60_000 }
  )

  it("a replay sharing a fit memo equals replays without it; a memo of another array is ignored", () => {
    const prior = Params.settlePrior.heads["stopped_short"]!
    const xs = corpus("stopped_short", 400)
    const strip = (r: ReturnType<typeof Learning.replay>) => ({
      head: r.head,
      promotions: r.promotions,
      p: r.predictions.map((x) => x.p)
    })
    const active = Learning.replay(prior, prior, xs).head
    assert.notDeepEqual(active, prior)
    const memo = Learning.makeFitMemo(xs)
    const adoption = Learning.replay(prior, active, xs, undefined, undefined, memo)
    const fitted = memo.fits.size
    assert.isTrue(fitted > 0)
    const certification = Learning.replay(prior, prior, xs, undefined, undefined, memo)
    assert.deepStrictEqual(strip(adoption), strip(Learning.replay(prior, active, xs)))
    assert.deepStrictEqual(strip(certification), strip(Learning.replay(prior, prior, xs)))
    const other = xs.map((e, i) => (i === 20 ? { ...e, label: !e.label } : e))
    assert.deepStrictEqual(
      strip(Learning.replay(prior, prior, other, undefined, undefined, memo)),
      strip(Learning.replay(prior, prior, other))
    )
    const c = Learning.certify({
      head: "stopped_short",
      prior,
      examples: xs,
      floor: 0.75,
      actionable: () => true,
      memo
    })
    assert.deepStrictEqual(
      c,
      Learning.certify({ head: "stopped_short", prior, examples: xs, floor: 0.75, actionable: () => true })
    )
  })

  describe("past the certification window (ADR 0410)", () => {
    const prior = Params.settlePrior.heads["stopped_short"]!
    const xs = corpus("stopped_short", 1650)
    const strip = (r: ReturnType<typeof Learning.replay>) => ({
      head: r.head,
      promotions: r.promotions,
      p: r.predictions.map((x) => x.p)
    })
    const alone = Learning.replay(prior, prior, xs)

    it("challengers are cold fits through 1,500 labels, then one warm descent every 48 labels", () => {
      const memo = Learning.makeFitMemo(xs)
      const shared = Learning.replay(prior, prior, xs, undefined, undefined, memo)
      assert.deepStrictEqual(strip(shared), strip(alone))
      for (const key of memo.fits.keys()) {
        const to = Number(key.slice(key.indexOf(":") + 1, key.indexOf("\0")))
        assert.isAtMost(to, Learning.COLD_FITS_THROUGH, key)
      }
      const chain = [...memo.chains!.values()]
      assert.strictEqual(chain.length, 1)
      const seen = [...chain[0]!.heads.keys()]
      const grid = Array.from({ length: 4 }, (_, i) => 1504 + 48 * i)
      assert.deepStrictEqual(seen, grid, "every 48 labels past the window, whichever the replay asked for")
      assert.deepStrictEqual(chain[0]!.heads.get(1504), Learning.fit(prior, xs.slice(0, 1504)), "the first is cold")
      assert.notDeepEqual(alone.head, prior)
    })

    it("a replay resumed from its cache past the window equals the replay from scratch", () => {
      const cache = Learning.makeReplayCache()
      for (const n of [1496, 1520, 1536, 1600]) Learning.replay(prior, prior, xs.slice(0, n), undefined, cache)
      assert.deepStrictEqual(strip(Learning.replay(prior, prior, xs, undefined, cache)), strip(alone))
      assert.deepStrictEqual(
        strip(Learning.replay(prior, prior, xs.slice(0, 1560), undefined, cache)),
        strip(Learning.replay(prior, prior, xs.slice(0, 1560)))
      )
    })

    it("vectors past the window (ADR 0410): the cold replay's certificates, the warm chain's models", () => {
      const pinned = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures/replay-past-window.v1.json"), "utf8"))
      for (const v of pinned.cases) {
        const head = current(v.head) as "stopped_short" | "confirm"
        const prior = Params.settlePrior.heads[head]!
        const examples = corpus(head, v.labels)
        const replayed = Learning.replay(prior, prior, examples)
        assert.strictEqual(replayed.promotions, v.promotions, head)
        const certificate = Learning.certify({
          head,
          prior,
          examples,
          floor: v.floor,
          actionable: head === "confirm" ? (x) => (x["risk"] ?? 0) === 0 && (x["user_act"] ?? 0) === 0 : () => true,
          replayed
        })
        assert.deepStrictEqual(certificate, { ...v.certificate, head: current(v.certificate.head) }, head)
      }
    })

    it("replays from different heads share the warm challengers and equal replays alone", () => {
      const memo = Learning.makeFitMemo(xs)
      const active = alone.head
      const adoption = Learning.replay(prior, active, xs, undefined, undefined, memo)
      const certification = Learning.replay(prior, prior, xs, undefined, undefined, memo)
      assert.deepStrictEqual(strip(certification), strip(alone))
      assert.deepStrictEqual(strip(adoption), strip(Learning.replay(prior, active, xs)))
    })
  })
})

describe("certification", () => {
  const prior = Params.settlePrior.heads["stopped_short"]!
  const f = Option.getOrThrow(
    Features.settleFeatures("Parser updated. Next, I'll wire the CLI:", { effects: "none", terminal: "completed" }, 60)
  )
  const precise = Array.from({ length: 400 }, (_, i) => example(i, f, i % 10 !== 0, "user_continue"))
  const spec = vectors.certification

  it(spec[0].scenario, () => {
    const c = Learning.certify({ head: "stopped_short", prior, examples: precise, floor: 0.75, actionable: () => true })
    assert.isTrue(c.certified, c.reason)
    assert.strictEqual(c.threshold, spec[0].expected.threshold)
    assert.isTrue(c.lower >= spec[0].expected.lower_at_least)
    assert.strictEqual(c.fired, spec[0].derived.fired)
    assert.strictEqual(c.precision, spec[0].derived.precision)
    assert.isTrue(Math.abs(c.lower - spec[0].derived["wilson_lower_z2.33"]) < 1e-4)
    assert.strictEqual(c.reason, "precision confidently at or above 0.75")
    assert.isTrue(Learning.certifiedFor(c, f))
  })
  it(spec[1].scenario, () => {
    const c = Learning.certify({
      head: "stopped_short",
      prior,
      examples: precise.slice(0, 20),
      floor: 0.75,
      actionable: () => true
    })
    assert.isFalse(c.certified)
    assert.isTrue(c.reason.startsWith(spec[1].expected.reason_prefix), c.reason)
    assert.isFalse(Learning.certifiedFor(c, f))
  })
  it(spec[2].scenario, () => {
    const others = precise.map((e) => ({ ...e, source: "continuation_outcome" }))
    const c = Learning.certify({ head: "stopped_short", prior, examples: others, floor: 0.75, actionable: () => true })
    assert.isFalse(c.certified)
    assert.strictEqual(c.window, spec[2].expected.window)
  })
  it("confirm is certified only on requests it could answer", () => {
    const c = Learning.certify({
      head: "confirm",
      prior: Params.settlePrior.heads["confirm"]!,
      examples: precise,
      floor: 0.85,
      actionable: (x) => (x["risk"] ?? 0) === 0 && (x["user_act"] ?? 0) === 0
    })
    assert.strictEqual(c.window, 0, "every turn has a risk cue")
  })
  it("certification needs confident precision; a certified head keeps its threshold within the margin", () => {
    const mediocre = Array.from({ length: 400 }, (_, i) => example(i, f, i % 5 !== 0))
    const c = Learning.certify({
      head: "stopped_short",
      prior,
      examples: mediocre,
      floor: 0.85,
      actionable: () => true
    })
    assert.isFalse(c.certified)
    assert.strictEqual(c.reason, "precision not yet confidently at 0.85")
    const previous = { ...c, certified: true, threshold: 0.65 }
    const kept = Learning.certify({
      head: "stopped_short",
      prior,
      examples: mediocre,
      floor: 0.85,
      actionable: () => true,
      previous
    })
    assert.isTrue(kept.certified)
    assert.strictEqual(kept.reason, "certified; precision still within the margin")
    const worse = Array.from({ length: 400 }, (_, i) => example(i, f, i % 3 !== 0))
    const lost = Learning.certify({
      head: "stopped_short",
      prior,
      examples: worse,
      floor: 0.85,
      actionable: () => true,
      previous
    })
    assert.isFalse(lost.certified)
  })
  it("only the newest 1,500 eligible turns count", () => {
    const old = Array.from({ length: 600 }, (_, i) => example(i, f, false))
    const recent = Array.from({ length: 1500 }, (_, i) => example(600 + i, f, i % 10 !== 0))
    const c = Learning.certify({
      head: "stopped_short",
      prior,
      examples: [...old, ...recent],
      floor: 0.75,
      actionable: () => true
    })
    assert.strictEqual(c.window, 1500)
  })
  it("Wilson lower bound at z = 2.33", () => {
    assert.isTrue(Math.abs(Learning.wilsonLower(360, 400) - 0.859518) < 1e-6)
    assert.strictEqual(Learning.wilsonLower(0, 0), 0)
  })
})
