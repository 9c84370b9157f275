import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Features from "../src/Features.js"

const vectors = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures/reflex-test-vectors.json"), "utf8"))

const close = (actual: number | undefined, expected: number, what: string) =>
  assert.isTrue(actual !== undefined && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`)

describe("route features", () => {
  for (const v of vectors.route.filter((x: any) => x.expected_features !== undefined)) {
    it(`keeps ALGAL tokenization: ${JSON.stringify(v.task)}`, () => {
      const f = Features.routeFeatures(v.task)
      for (const [k, x] of Object.entries(v.expected_features)) close(f[k], x as number, k)
      for (const [k, x] of Object.entries(v.derived_features)) close(f[k], x as number, k)
    })
  }

  const classify = vectors.route.find((x: any) => x.classify_task_examples).classify_task_examples
  for (const [task, klass] of Object.entries(classify)) {
    it(`classify_task ${JSON.stringify(task)} is ${klass}`, () => {
      assert.strictEqual(Features.classifyTask(task), klass)
    })
  }

  it("classify_task matches multi-word cues as word sequences, ASCII-lowercased", () => {
    assert.strictEqual(Features.classifyTask("find the ROOT-cause of the crash"), "complex")
    assert.strictEqual(Features.classifyTask("rootcause it"), "balanced")
    assert.strictEqual(Features.classifyTask("fix the typo"), "routine")
  })

  it("substantial boundaries: 399/400 words, 8191/8192 bytes", () => {
    assert.isFalse(Features.substantial("word\n".repeat(399)))
    assert.isTrue(Features.substantial("word\n".repeat(400)))
    assert.isFalse(Features.substantial("x".repeat(8191)))
    assert.isTrue(Features.substantial("x".repeat(8192)))
  })

  it("judge evidence divides criterion scores by 5 and keeps frontier verbatim", () => {
    const f = Features.withJudgeEvidence(Features.routeFeatures("migrate it"), {
      difficulty: 3.9,
      scope: 3.8,
      ambiguity: 2.4,
      stakes: 2.9,
      frontier: 0.62
    })
    close(f["difficulty"], 0.78, "difficulty")
    close(f["scope"], 0.76, "scope")
    close(f["ambiguity"], 0.48, "ambiguity")
    close(f["stakes"], 0.58, "stakes")
    close(f["frontier"], 0.62, "frontier")
  })
})

describe("settle features", () => {
  for (const v of vectors.settle) {
    it(`reads the end of the report: ${JSON.stringify(v.text).slice(0, 60)}`, () => {
      const facts: Features.TurnFacts = {
        effects: v.effects_settled ? "settled" : "uncertain",
        terminal: v.terminal_limit ? "token_limit" : "completed"
      }
      const f = Option.getOrThrow(Features.settleFeatures(v.text, facts, v.tool_calls))
      for (const [k, x] of Object.entries(v.expected_features_subset)) close(f[k], x as number, k)
      for (const [k, x] of Object.entries(v.derived_features)) close(f[k], x as number, k)
      assert.deepStrictEqual(Object.keys(f).sort(), Object.keys(v.derived_features).sort())
    })
  }

  it("a turn whose tool-call count is unknown is skipped, never scored as 0", () => {
    assert.isTrue(Option.isNone(Features.settleFeatures("Next, I'll wire the CLI:", Features.completedTurn, undefined)))
    assert.isTrue(Option.isSome(Features.settleFeatures("Next, I'll wire the CLI:", Features.completedTurn, 0)))
  })

  it("word-boundary cue matching: 'done' does not match 'abandoned'; typographic apostrophes normalize", () => {
    const f = Option.getOrThrow(Features.settleFeatures("the branch was abandoned.", Features.completedTurn, 0))
    assert.strictEqual(f["done_claim"], 0)
    const g = Option.getOrThrow(Features.settleFeatures("Next, I’ll add tests", Features.completedTurn, 1))
    assert.strictEqual(g["promise_next"], 1)
  })

  it("reads recommendations, hand-offs and owner-only steps", () => {
    const rec = Option.getOrThrow(
      Features.settleFeatures("Option A is safer; I recommend it. Proceed?", Features.completedTurn, 3)
    )
    assert.strictEqual(rec["recommendation"], 1)
    const owner = Option.getOrThrow(
      Features.settleFeatures("Please paste your API key here.", Features.completedTurn, 3)
    )
    assert.strictEqual(owner["owner_only"], 1)
    assert.strictEqual(owner["self_service"], 0)
    const self = Option.getOrThrow(
      Features.settleFeatures("Waiting for you to run gh pr merge 12 when you're ready.", Features.completedTurn, 3)
    )
    assert.strictEqual(self["self_service"], 1)
  })

  it("open checklists, reports and windows", () => {
    const text = "**Summary**\n\n" + "filler ".repeat(500) + "\n- [ ] one\n- [ ] two\n- [x] three"
    const f = Option.getOrThrow(Features.settleFeatures(text, Features.completedTurn, 128))
    assert.strictEqual(f["report"], 1)
    close(f["open_checklist"], 0.4, "open_checklist")
    close(f["tools"], Math.log(129) / Math.log(129), "tools")
    assert.strictEqual(f["brief"], 0)
    close(f["words"], 1, "words capped at 400")
    const far = Option.getOrThrow(
      Features.settleFeatures("Next, I'll do it. " + "x ".repeat(700), Features.completedTurn, 1)
    )
    assert.strictEqual(far["promise_next"], 0, "cues beyond the last 1200 chars are not read")
  })

  it("hostile input: huge and odd text does not crash", () => {
    const huge = "🙂".repeat(200_000) + "\n\n\n" + "a".repeat(100_000)
    const f = Option.getOrThrow(Features.settleFeatures(huge, Features.completedTurn, 5))
    assert.strictEqual(f["ends_mid"], 1)
    assert.isTrue(Option.isNone(Features.settleFeatures("x", Features.completedTurn, Number.NaN)))
  })
})
