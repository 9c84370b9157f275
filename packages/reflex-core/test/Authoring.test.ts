import { assert, describe, it } from "@effect/vitest"
import * as Expr from "@steward/algal-runtime/Expr"
import * as Manifest from "@steward/algal-runtime/Manifest"
import * as Organism from "@steward/algal-runtime/Organism"
import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Reflex from "../src/Reflex.js"
import * as ReflexConfig from "../src/ReflexConfig.js"
import * as Reflexes from "../src/Reflexes.js"
import * as ReflexLedger from "../src/ReflexLedger.js"
import { review, reviewOrganism } from "./examples/reviewReflex.js"

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", name), "utf8"))

const engine = (options: Reflexes.Options = {}) =>
  Reflexes.layer(options).pipe(Layer.provideMerge(ReflexLedger.layerMemory))

describe("typed authoring", () => {
  it.effect("the shipped route and settle organisms, built with Reflex.organism, digest as the shipped manifests", () =>
    Effect.gen(function*() {
      for (const definition of [Reflex.route, Reflex.settle]) {
        const built = yield* Manifest.parse(JSON.parse(Reflex.organismText(definition.organism)))
        const shipped = yield* Manifest.parse(fixture(`${definition.name}.algal.json`))
        assert.strictEqual(Manifest.digest(built), Manifest.digest(shipped), definition.name)
      }
      const reflexes = yield* Reflexes.Reflexes
      const status = yield* reflexes.status("settle")
      assert.strictEqual(
        status.program.digest,
        "sha256:5f9e96ca4a205cf9742c70854657b3cbb95a647ee203f02010f99ff46ecefe75"
      )
    }).pipe(Effect.provide(engine())))

  it.effect("a user-defined reflex with its own features, heads and labels decides, replays, labels and certifies", () =>
    Effect.gen(function*() {
      const definition = Either.getOrThrow(review)
      const reflexes = yield* Reflexes.Reflexes
      // typed by the definition: the input is a ReviewInput
      const d = yield* reflexes.decide(definition, { lines: 400, touchesAuth: true, hasOwner: false }, {
        subject: "pr-1"
      })
      if (d.skipped) return assert.fail("skipped")
      assert.deepStrictEqual(d.decision, { verdict: "review", gate: "score", head: "second", score: 1800 })
      assert.isFalse(d.acts)
      assert.match(d.why, /not certified yet: no labeled history/)
      assert.isTrue((yield* reflexes.replay(d.observation)).matches)
      const owned = yield* reflexes.decide(definition, { lines: 10, touchesAuth: false, hasOwner: true }, {
        subject: "pr-2"
      })
      if (owned.skipped) return assert.fail("skipped")
      assert.deepStrictEqual(owned.decision, { verdict: "ship", gate: "score", head: "owner", score: -990 })
      assert.strictEqual(owned.why, "does not act: ship: nothing to ask for")
      for (let i = 0; i < 64; i++) {
        yield* reflexes.decide(definition, { lines: 400, touchesAuth: true, hasOwner: false }, {
          subject: `pr-${i + 3}`
        })
        yield* reflexes.label("review", `pr-${i + 3}`, i % 20 === 0 ? "ship" : "review")
      }
      const status = yield* reflexes.status("review")
      assert.strictEqual(status.heads[0]!.labels, 64)
      assert.isTrue(status.heads[0]!.certificate!.certified, status.heads[0]!.certificate!.reason)
      assert.match(status.heads[0]!.standing, /^auto: certified at /)
      assert.match(status.heads[1]!.standing, /^auto: watching until certified/)
    }).pipe(Effect.provide(engine({
      reflexes: [Either.getOrThrow(review)],
      config: { ...ReflexConfig.defaults, custom: { review: "auto" } }
    }))))

  it.effect("Reflex.make accepts a manifest document built with Organism, and refuses a value-key mismatch", () =>
    Effect.gen(function*() {
      const definition = Either.getOrThrow(review)
      const document = Organism.make({
        key: "organism:review-doc",
        name: "Review doc",
        budgets: { maxSteps: 8, maxAgentCalls: 0, maxWork: 10000, maxOutputBytes: 16384, maxDepth: 1 }
      })
        .input("src", { features: "json", params: "json", evidence: "json" })
        .expr("decide", {
          inputs: { features: "json" },
          program: Expr.record({ verdict: "ship", gate: "fixed", head: "second", score: 0 }),
          output: { kind: "json", schema: {} }
        })
        .edge("src.features", "decide.features")
        .interface({
          inputs: { features: "src.features", params: "src.params", evidence: "src.evidence" },
          outputs: { decision: "decide.out" }
        })
        .build()
      const fromDocument = Either.getOrThrow(Reflex.make({
        ...definition,
        name: "review_doc",
        prior: { ...definition.prior, reflex: "review_doc" },
        organism: document
      }))
      const reflexes = yield* Reflexes.make({ reflexes: [fromDocument] })
      const d = yield* reflexes.decide(fromDocument, { lines: 1, touchesAuth: false, hasOwner: false }, {
        subject: "x"
      })
      if (d.skipped) return assert.fail("skipped")
      assert.strictEqual(d.decision["verdict"], "ship")
      const mismatch = Reflex.make({ ...definition, valueKey: "category" as string, organism: reviewOrganism })
      assert.isTrue(Either.isLeft(mismatch))
    }).pipe(Effect.provide(ReflexLedger.layerMemory)))

  it("mis-typed reflexes and decisions do not compile", () => {
    const start = Reflex.organism({ key: "organism:bad", name: "Bad", valueKey: "verdict" })
    // a decision without a head
    start.decide("decide", {
      from: { features: "src.features" },
      // @ts-expect-error -- no `head`: this program cannot produce a decision
      program: Expr.record({ verdict: "ship", gate: "fixed", score: 0 })
    })
    // a score that is text
    start.decide("decide", {
      from: { features: "src.features" },
      // @ts-expect-error -- `score` must be a number
      program: Expr.record({ verdict: "ship", gate: "fixed", head: "second", score: "high" })
    })
    // the value under another key than the reflex's
    start.decide("decide", {
      from: { features: "src.features" },
      // @ts-expect-error -- the reflex decides `verdict`, not `category`
      program: Expr.record({ category: "ship", gate: "fixed", head: "second", score: 0 })
    })
    // wiring from a port that does not exist
    start.decide("decide", {
      // @ts-expect-error -- `src.text` is not a port
      from: { features: "src.text" },
      program: Expr.record({ verdict: "ship", gate: "fixed", head: "second", score: 0 })
    })
    const definition = Either.getOrThrow(review)
    const typed = (reflexes: Reflexes.Reflexes["Type"]) => {
      // @ts-expect-error -- a review decision takes a ReviewInput
      void reflexes.decide(definition, { text: "hi", toolCalls: 1 }, { subject: "s" })
      // @ts-expect-error -- a settle decision takes a SettleInput
      void reflexes.decide("settle", { lines: 3 }, { subject: "s" })
      void reflexes.decide("settle", { text: "done", toolCalls: 1 }, { subject: "s" })
    }
    assert.isFunction(typed)
  })
})
