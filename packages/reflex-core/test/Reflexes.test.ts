import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as FitWorkers from "../src/FitWorkers.js"
import * as Params from "../src/Params.js"
import * as Reflex from "../src/Reflex.js"
import * as ReflexConfig from "../src/ReflexConfig.js"
import * as Reflexes from "../src/Reflexes.js"
import * as ReflexLedger from "../src/ReflexLedger.js"
import * as TestFitWorkers from "./fitWorkers.js"

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, "fixtures", name), "utf8")

const engine = (options: Reflexes.Options = {}) =>
  Reflexes.layer(options).pipe(Layer.provideMerge(ReflexLedger.layerMemory))

const SHORT = "Parser updated. Next, I'll wire the CLI:"
const DONE = "All tests pass; the PR is merged."

const decideSettle = (subject: string, text: string, toolCalls = 60) =>
  Effect.gen(function*() {
    const reflexes = yield* Reflexes.Reflexes
    const r = yield* reflexes.decide("settle", { text, toolCalls }, { subject })
    if (r.skipped) return yield* Effect.die("skipped")
    return r
  })

describe("Reflexes: labels and training", () => {
  it.effect(
    "every 16 labels trains; holdout promotes a better head with evidence; rollback restores",
    () =>
      Effect.gen(function*() {
        const reflexes = yield* Reflexes.Reflexes
        const ledger = yield* ReflexLedger.ReflexLedger
        const reports: Array<Reflexes.TrainReport> = []
        for (let i = 0; i < 120; i++) {
          const positive = i % 2 === 0
          const d = yield* decideSettle(`task${i}#1`, positive ? SHORT : DONE)
          assert.strictEqual(
            d.paramsVersion,
            reports.some((x) => x.promoted)
              ? reports.filter((x) => x.promoted).at(-1)!.version
              : 0
          )
          const r = yield* reflexes.label("settle", `task${i}`, positive ? "stopped_short" : "done")
          reports.push(...r.trained)
          assert.strictEqual(r.labels.length, 2)
        }
        // 240 label rows: a pass every 16 rows
        assert.strictEqual(reports.length, 15)
        const promotion = reports.find((x) => x.promoted)
        assert.isDefined(promotion, JSON.stringify(reports.map((r) => r.heads.map((h) => h.reason))))
        assert.strictEqual(promotion!.strategy, "holdout")
        const stoppedShort = promotion!.heads.find((h) => h.head === "stopped_short")!
        assert.isTrue(stoppedShort.promoted)
        assert.strictEqual(stoppedShort.reason, "lower log-loss on held-out labels")
        const confirm = promotion!.heads.find((h) => h.head === "confirm")!
        assert.isFalse(confirm.promoted)
        const stored = Option.getOrThrow(yield* ledger.activeGeneration("settle"))
        const params = JSON.parse(stored.payload) as Params.Params
        const last = reports.filter((x) => x.promoted).at(-1)!
        assert.strictEqual(stored.version, last.version)
        assert.strictEqual(params.parent, last.previousVersion)
        assert.strictEqual(promotion!.previousVersion, 0)
        assert.isDefined(params.evidence["stopped_short"])
        assert.deepStrictEqual(params.heads["confirm"], Params.settlePrior.heads["confirm"])
        // new decisions use the new generation
        const after = yield* decideSettle("later#1", SHORT)
        assert.strictEqual(after.paramsVersion, stored.version)
        // the old observation still replays under its own generation
        const replay = yield* reflexes.replay(ReflexLedger.observationId("settle", "task0#1"))
        assert.isTrue(replay.matches)
        // rollback 0 restores the prior
        yield* reflexes.rollback("settle", 0)
        const prior = yield* decideSettle("later#2", SHORT)
        assert.strictEqual(prior.paramsVersion, 0)
        const missing = yield* Effect.flip(reflexes.rollback("settle", 99))
        assert.strictEqual(missing.code, "not-found")
        const status = yield* reflexes.status("settle")
        assert.strictEqual(status.generation.version, 0)
        assert.isTrue(status.generations >= 1)
        assert.strictEqual(status.heads[0]!.calibration.length, 10)
        assert.isNotNull(status.heads[0]!.holdout)
      }).pipe(Effect.provide(engine())),
    60_000
  )

  it.effect("a stored generation read under an older feature set falls back to the prior", () =>
    Effect.gen(function*() {
      const ledger = yield* ReflexLedger.ReflexLedger
      const { ask: _, ...weights } = Params.settlePrior.heads["stopped_short"]!.weights
      const older = {
        ...Params.settlePrior,
        heads: {
          ...Params.settlePrior.heads,
          stopped_short: { ...Params.settlePrior.heads["stopped_short"]!, weights }
        }
      }
      yield* ledger.promote("settle", 0, 1, (v, parent) => Params.encodeJson({ ...older, version: v, parent }))
      const d = yield* decideSettle("old#1", SHORT)
      assert.strictEqual(d.paramsVersion, 0)
      yield* ledger.promote(
        "settle",
        1,
        2,
        (v, parent) => Params.encodeJson({ ...Params.settlePrior, version: v, parent })
      )
      assert.strictEqual((yield* decideSettle("old#2", SHORT)).paramsVersion, 2)
    }).pipe(Effect.provide(engine())))

  it.effect("learn: false never trains automatically; `train` always runs", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      for (let i = 0; i < 10; i++) {
        yield* decideSettle(`t${i}`, SHORT)
        const r = yield* reflexes.label("settle", `t${i}`, "stopped_short")
        assert.strictEqual(r.trained.length, 0)
      }
      const report = yield* reflexes.train("settle")
      assert.strictEqual(report.heads.length, 2)
      assert.strictEqual(report.certificates.length, 2)
    }).pipe(Effect.provide(engine({ config: { ...ReflexConfig.defaults, learn: false } }))))

  it.effect("forward strategy: the first pass only starts a challenger; it trials on the next 48 labels", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      for (let i = 0; i < 20; i++) {
        yield* decideSettle(`f${i}`, i % 2 === 0 ? SHORT : DONE)
        yield* reflexes.label("settle", `f${i}`, i % 2 === 0 ? "stopped_short" : "done")
      }
      const first = yield* reflexes.train("settle")
      assert.isFalse(first.promoted)
      const status = yield* reflexes.status("settle")
      const trial = status.heads.find((h) => h.head === "stopped_short")!.trial
      assert.isNotNull(trial)
      assert.strictEqual(trial!.needed, 48)
      const second = yield* reflexes.train("settle")
      assert.match(second.heads.find((h) => h.head === "stopped_short")!.reason, /^trial: 0 of 48 fresh labels$/)
    }).pipe(Effect.provide(engine({ config: { ...ReflexConfig.defaults, promotion: "forward", learn: false } }))))

  it.effect("replies label the subject's latest turn; explicit labels win; tier requests label the route", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ledger = yield* ReflexLedger.ReflexLedger
      yield* decideSettle("job#1", SHORT)
      yield* decideSettle("job#2", DONE)
      const reply = yield* reflexes.reply("ok keep going", "job")
      assert.strictEqual(reply.category, "continue")
      assert.deepStrictEqual(
        reply.labels.map((l) => [l.observation, l.head, l.label, l.weight, l.source]),
        [
          [ReflexLedger.observationId("settle", "job#2"), "stopped_short", true, 1, "user_continue"],
          [ReflexLedger.observationId("settle", "job#2"), "confirm", false, 0.5, "user_continue"]
        ]
      )
      yield* reflexes.label("settle", "job", "done")
      yield* reflexes.reply("ok keep going", "job")
      const ex = yield* ledger.examples("settle", "stopped_short", 10)
      assert.deepStrictEqual(ex.map((e) => [e.label, e.source]), [[false, "explicit"]])
      // starting another task: done at half weight
      yield* decideSettle("other#1", SHORT)
      const next = yield* reflexes.startedAnotherTask("other")
      assert.deepStrictEqual(next.labels.map((l) => [l.head, l.label, l.weight]), [["stopped_short", false, 0.5], [
        "confirm",
        false,
        0.5
      ]])
      // tier requests
      const route = yield* reflexes.decide("route", { task: "fix the thing" }, { subject: "job" })
      assert.isFalse(route.skipped)
      const tier = yield* reflexes.reply("this needs a smarter model, use opus", "job")
      assert.strictEqual(tier.escalation, "frontier")
      const routeLabels = tier.labels.filter((l) => l.reflex === "route")
      assert.deepStrictEqual(routeLabels.map((l) => [l.head, l.label, l.source]), [[
        "plain",
        true,
        "user_model_request"
      ]])
      const nothing = yield* reflexes.reply("are you done?", "job")
      assert.strictEqual(nothing.category, "status")
      assert.strictEqual(nothing.labels.filter((l) => l.reflex === "settle").length, 0)
      const unknown = yield* Effect.flip(reflexes.label("settle", "job", "maybe"))
      assert.strictEqual(unknown.code, "invalid-input")
      const none = yield* Effect.flip(reflexes.label("settle", "nobody", "done"))
      assert.strictEqual(none.code, "not-found")
    }).pipe(Effect.provide(engine())))
})

describe("Reflexes: modes, certification and gates", () => {
  it.effect("auto acts only once the person's own history certifies the head", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const before = yield* decideSettle("c0", SHORT)
      assert.strictEqual(before.mode, "auto")
      assert.isFalse(before.certified)
      assert.isFalse(before.acts)
      for (let i = 1; i <= 60; i++) {
        yield* decideSettle(`c${i}`, SHORT)
        yield* reflexes.label("settle", `c${i}`, i % 10 === 0 ? "done" : "stopped_short")
      }
      const status = yield* reflexes.status("settle")
      const cert = status.heads.find((h) => h.head === "stopped_short")!.certificate
      assert.isNotNull(cert)
      assert.isTrue(cert!.certified, JSON.stringify(cert))
      let acted = 0
      let held = 0
      for (let i = 0; i < 60; i++) {
        const d = yield* decideSettle(`after${i}`, SHORT)
        assert.isTrue(d.certified, JSON.stringify([d, cert]))
        if (d.held) held++
        if (d.acts) acted++
        assert.strictEqual(d.acts, !d.held, JSON.stringify(d))
      }
      assert.isTrue(acted > 0 && held >= 0)
    }).pipe(Effect.provide(engine())))

  it.effect("the confirm veto holds even in active mode; owner-only steps are never continued", () =>
    Effect.gen(function*() {
      const safe = yield* decideSettle("v1", "The fix is ready on the branch. Should I open the PR and merge it?")
      assert.deepStrictEqual([safe.decision["category"], safe.vetoed, safe.acts], ["confirm", false, true])
      const risky = yield* decideSettle(
        "v2",
        "## Summary\n\nThe migration is staged.\n\nShould I run it against production data?",
        20
      )
      assert.deepStrictEqual([risky.decision["category"], risky.vetoed, risky.acts], ["confirm", true, false])
      const done = yield* decideSettle("v3", DONE)
      assert.isFalse(done.acts)
    }).pipe(Effect.provide(engine({ config: { ...ReflexConfig.defaults, settle: "active", confirm: "active" } }))))

  it.effect("off records nothing and never acts; observe records but never acts", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ledger = yield* ReflexLedger.ReflexLedger
      const off = yield* decideSettle("o1", SHORT)
      assert.deepStrictEqual([off.mode, off.recorded, off.acts], ["off", false, false])
      const route = yield* reflexes.decide("route", { task: "refactor the auth layer" }, { subject: "o2" })
      if (route.skipped) return assert.fail("skipped")
      assert.deepStrictEqual([route.mode, route.recorded, route.acts], ["observe", true, false])
      assert.deepStrictEqual(yield* ledger.counts("settle"), { observed: 0, labeled: 0 })
    }).pipe(Effect.provide(engine({ config: { ...ReflexConfig.defaults, settle: "off", route: "observe" } }))))

  // ADR 0413: route acts by default without a certificate, and says so where its standing is read
  it.effect("route is active with no labels and its status says why it needs no certificate", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const route = yield* reflexes.decide("route", { task: "refactor the auth layer" }, { subject: "r1" })
      if (route.skipped) return assert.fail("skipped")
      assert.deepStrictEqual([route.mode, route.acts], ["active", true])
      const status = yield* reflexes.status("route")
      for (const head of status.heads) {
        assert.strictEqual(head.labels, 0)
        assert.isNull(head.certificate)
        assert.match(head.standing, /^active without a certificate \(this head never certifies\): every task must run/)
        assert.include(head.standing, "every substantial task to frontier")
      }
      const settle = yield* reflexes.status("settle")
      assert.notMatch(settle.heads[0]!.standing, /without a certificate/) // settle's heads prove themselves first
    }).pipe(Effect.provide(engine())))

  it.effect("config: defaults, unknown keys name the key, modes resolve per head", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* ReflexConfig.decode(undefined), ReflexConfig.defaults)
      const d = yield* ReflexConfig.decode({})
      assert.deepStrictEqual([d.route, d.settle, d.confirm, d.learn], ["active", "auto", "auto", true])
      const bad = yield* Effect.flip(ReflexConfig.decode({ route: "active", colour: "blue" }))
      assert.strictEqual(bad.code, "invalid-config")
      assert.include(bad.message, "colour")
      const mode = yield* Effect.flip(ReflexConfig.decode({ settle: "sometimes" }))
      assert.include(mode.message, "extensions.reflexes.settle")
      const c = yield* ReflexConfig.decode({ settle: "observe", confirm: "active" })
      assert.strictEqual(ReflexConfig.modeOf(c, "settle", "confirm"), "observe")
      assert.strictEqual(ReflexConfig.modeOf({ ...c, settle: "off" }, "settle", "confirm"), "off")
      assert.strictEqual(ReflexConfig.modeOf(c, "mine", "x"), "observe")
    }))
})

describe("Reflexes: custom organisms", () => {
  const settle = JSON.parse(fixture("settle.algal.json"))

  // ADR 0414: an organism written before the head was renamed reads `params.unfinished` and
  // answers `head: "unfinished"`; for one minor version it runs, and what is recorded says stopped_short
  it.effect("a custom organism written against the former head name still runs and records the current one", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ledger = yield* ReflexLedger.ReflexLedger
      const status = yield* reflexes.status("settle")
      assert.isTrue(status.program.custom)
      assert.isNull(status.program.fault)
      const d = yield* decideSettle("v0-1", SHORT)
      assert.isTrue(d.custom)
      assert.deepInclude(d.decision, { category: "stopped_short", head: "stopped_short" })
      const stored = yield* ledger.observation(d.observation)
      assert.strictEqual(Option.getOrThrow(stored).head, "stopped_short")
      assert.isTrue((yield* reflexes.replay(d.observation)).matches)
    }).pipe(Effect.provide(engine({
      custom: { settle: { file: "settle.algal.v0.json", text: Either.right(fixture("settle.algal.v0.json")) } }
    }))))

  it.effect("an admissible custom organism replaces the shipped program, but not the gates", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const status = yield* reflexes.status("settle")
      assert.isTrue(status.program.custom)
      assert.isNull(status.program.fault)
      const d = yield* decideSettle("cu1", "## Summary\n\nShould I run it against production data?", 20)
      assert.isTrue(d.custom)
      assert.strictEqual(d.decision["category"], "confirm")
      assert.isTrue(d.vetoed)
      assert.isFalse(d.acts, "a custom program cannot remove the veto")
      const replay = yield* reflexes.replay(d.observation)
      assert.isTrue(replay.matches)
    }).pipe(Effect.provide(engine({
      config: { ...ReflexConfig.defaults, settle: "active", confirm: "active" },
      custom: {
        settle: {
          file: "settle.algal.json",
          // always answer confirm
          text: Either.right(JSON.stringify({
            ...settle,
            note: "always confirm",
            cells: settle.cells.map((c: any) =>
              c.id === "decide"
                ? {
                  ...c,
                  expr: {
                    contract: "algal.expr.v1",
                    program: { category: "confirm", gate: "head", head: "confirm", score: 1 }
                  }
                }
                : c
            )
          }))
        }
      }
    }))))

  it.effect("a rejected custom organism is reported with every violated rule and the shipped program runs", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const status = yield* reflexes.status("settle")
      assert.isFalse(status.program.custom)
      assert.strictEqual(status.program.fault, "custom reflex program rejected; using the shipped program")
      const rules = status.program.violations.map((v) => v.rule)
      assert.includeMembers(rules, ["cell-kinds", "max-agent-calls", "interface-inputs"])
      const d = yield* decideSettle("r1", SHORT)
      assert.isFalse(d.custom)
      assert.strictEqual(d.decision["category"], "stopped_short")
      const check = yield* Effect.flip(
        reflexes.check(JSON.stringify({ ...settle, budgets: { ...settle.budgets, maxAgentCalls: 1 } }))
      )
      assert.strictEqual(check.code, "program-rejected")
      const ok = yield* reflexes.check(fixture("settle.algal.json"))
      assert.strictEqual(ok.digest, status.program.digest)
    }).pipe(Effect.provide(engine({
      custom: {
        settle: {
          file: "settle.algal.json",
          text: Either.right(JSON.stringify({
            ...settle,
            budgets: { ...settle.budgets, maxAgentCalls: 2 },
            interface: { ...settle.interface, inputs: { features: settle.interface.inputs.features } },
            cells: [...settle.cells, { id: "ask", kind: "agent", prompt: "hi", output: { kind: "text" } }]
          }))
        }
      }
    }))))
})

describe("Reflexes: hostile input", () => {
  it.effect("huge, deeply nested and malformed organisms are rejected without crashing", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const deep = yield* Effect.flip(reflexes.check("[".repeat(200_000) + "]".repeat(200_000)))
      assert.strictEqual(deep.code, "program-rejected")
      const huge = yield* Effect.flip(reflexes.check(JSON.stringify({ note: "x".repeat(70_000) })))
      assert.strictEqual(huge.code, "program-rejected")
      assert.deepStrictEqual((huge.details as any).violations.map((v: any) => v.rule), ["size"])
      const garbage = yield* Effect.flip(reflexes.check("{not json"))
      assert.strictEqual((garbage.details as any).violations[0].rule, "json")
      const empty = yield* Effect.flip(reflexes.check("{}"))
      assert.isAtLeast((empty.details as any).violations.length, 3)
    }).pipe(Effect.provide(engine())))

  it.effect("a user extractor returning non-finite features is a typed error, nothing recorded", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ledger = yield* ReflexLedger.ReflexLedger
      const error = yield* Effect.flip(reflexes.decide("nan", {}, { subject: "n1" }))
      assert.strictEqual(error.code, "invalid-input")
      assert.include(error.message, "size")
      assert.deepStrictEqual(yield* ledger.counts("nan"), { observed: 0, labeled: 0 })
      const unknown = yield* Effect.flip(reflexes.decide("nope", {}, { subject: "n1" }))
      assert.strictEqual(unknown.code, "unknown-reflex")
    }).pipe(Effect.provide(engine({
      reflexes: [{
        ...Reflex.route,
        name: "nan",
        prior: { ...Params.routePrior, reflex: "nan" },
        extract: () =>
          Either.right({ _tag: "Extracted", extracted: { features: { size: Number.NaN }, evidence: {}, facts: {} } })
      }]
    }))))

  it.effect("evidence that could carry text is refused before anything runs or is recorded", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ledger = yield* ReflexLedger.ReflexLedger
      const error = yield* Effect.flip(reflexes.decide("leaky", {}, { subject: "l1" }))
      assert.strictEqual(error.code, "invalid-input")
      assert.include(error.message, "never stores text")
      assert.deepStrictEqual(yield* ledger.counts("leaky"), { observed: 0, labeled: 0 })
    }).pipe(Effect.provide(engine({
      reflexes: [{
        ...Reflex.route,
        name: "leaky",
        prior: { ...Params.routePrior, reflex: "leaky" },
        extract: () =>
          Either.right({
            _tag: "Extracted",
            extracted: {
              features: { words: 0.1 },
              evidence: { substantial: false, judged: false, kind: "Please deploy the secret build" },
              facts: {}
            }
          })
      }]
    }))))

  it.effect("concurrent decisions and labels in one process lose nothing", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ledger = yield* ReflexLedger.ReflexLedger
      yield* Effect.forEach(Array.from({ length: 40 }, (_, i) => i), (i) =>
        Effect.zipRight(
          decideSettle(`cc${i}`, i % 2 === 0 ? SHORT : DONE),
          reflexes.reply(i % 2 === 0 ? "continue" : "yes", `cc${i}`)
        ), { concurrency: 8 })
      const stats = yield* ledger.stats("settle")
      assert.strictEqual(stats["stopped_short"]!.labels + stats["confirm"]!.labels, 80)
    }).pipe(Effect.provide(engine())))
})

describe("Reflexes: import", () => {
  it.effect("valid route and settle histories import atomically and idempotently", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const route = yield* reflexes.importHistory("route", fixture("route.valid.jsonl"))
      assert.deepStrictEqual([route.inserted, route.examples], [2, 2])
      const again = yield* reflexes.importHistory("route", fixture("route.valid.jsonl"))
      assert.strictEqual(again.inserted, 0)
      const settle = yield* reflexes.importHistory("settle", fixture("settle.valid.jsonl"))
      assert.deepStrictEqual([settle.inserted, settle.examples], [2, 2])
      const status = yield* reflexes.status("settle")
      assert.deepStrictEqual(status.heads.map((h) => [h.head, h.labels]), [["stopped_short", 1], ["confirm", 1]])
      const imported = yield* Effect.flip(reflexes.replay(ReflexLedger.importId("route", "plain", "a")))
      assert.strictEqual(imported.code, "invalid-input")
    }).pipe(Effect.provide(engine())))

  const invalid = fixture("invalid.jsonl.txt").split("\n")
  const cases = invalid.flatMap((line, i) =>
    line.startsWith("#") && invalid[i + 1] !== undefined && invalid[i + 1]!.startsWith("{")
      ? [{ comment: line, line: invalid[i + 1]! }]
      : []
  )
  for (const c of cases) {
    it.effect(`rejects ${c.comment.slice(2)}`, () =>
      Effect.gen(function*() {
        const reflexes = yield* Reflexes.Reflexes
        const ledger = yield* ReflexLedger.ReflexLedger
        const reflex = c.comment.startsWith("# route") ? "route" : "settle"
        const text = `{"id":"ok","text":"fine","label":true}\n${c.line}\n`
        const error = yield* Effect.flip(reflexes.importHistory(reflex, text, { file: "h.jsonl" }))
        assert.strictEqual(error.code, "invalid-import")
        assert.include(error.message, "h.jsonl:2")
        assert.deepStrictEqual(yield* ledger.counts(reflex), { observed: 0, labeled: 0 }, "nothing written")
      }).pipe(Effect.provide(engine())))
  }

  it.effect("unknown fields, bad JSON and more than 4,096 lines are rejected naming the line", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const extra = yield* Effect.flip(
        reflexes.importHistory("settle", `{"id":"a","text":"x","label":true,"prompt":"p"}`)
      )
      assert.include(extra.message, "import:1")
      assert.include(extra.message, "prompt")
      const json = yield* Effect.flip(reflexes.importHistory("settle", `\n\n{"id":`))
      assert.include(json.message, "import:3")
      const weight = yield* Effect.flip(
        reflexes.importHistory("settle", `{"id":"a","text":"x","label":true,"weight":0}`)
      )
      assert.include(weight.message, "weight")
      const many = Array.from({ length: 4097 }, (_, i) => `{"id":"${i}","text":"x","label":true}`).join("\n")
      const big = yield* Effect.flip(reflexes.importHistory("settle", many))
      assert.include(big.message, "4096")
    }).pipe(Effect.provide(engine())))

  it.effect("dry-run stores nothing and reports whether the history alone would certify each head", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ledger = yield* ReflexLedger.ReflexLedger
      const lines = Array.from(
        { length: 400 },
        (_, i) => JSON.stringify({ id: `l${i}`, text: SHORT, label: i % 10 !== 0, tool_calls: 60 })
      ).join("\n")
      const dry = yield* reflexes.importHistory("settle", lines, { dryRun: true })
      assert.deepStrictEqual([dry.inserted, dry.examples], [0, 400])
      const stoppedShort = dry.certificates.find((c) => c.head === "stopped_short")!
      assert.isTrue(stoppedShort.certified, stoppedShort.reason)
      assert.strictEqual(stoppedShort.threshold, 0.65)
      assert.strictEqual(stoppedShort.fired, 400)
      assert.deepStrictEqual(Object.keys(stoppedShort).sort(), [
        "certified",
        "fired",
        "head",
        "lower",
        "precision",
        "reason",
        "threshold"
      ])
      assert.isFalse(dry.certificates.find((c) => c.head === "confirm")!.certified)
      assert.deepStrictEqual(yield* ledger.counts("settle"), { observed: 0, labeled: 0 })
      const real = yield* reflexes.importHistory("settle", lines)
      assert.strictEqual(real.inserted, 400)
      assert.isTrue(real.certificates.find((c) => c.head === "stopped_short")!.certified)
      const d = yield* decideSettle("post-import", SHORT)
      assert.isTrue(d.certified)
    }).pipe(Effect.provide(engine())))
})

describe("Reflexes: import fits on worker threads (ADR 0450)", () => {
  const openings = ["Updated the parser.", "Fixed the flaky test.", "Reviewed the diff.", "## Summary\n\nShipped it."]
  const endings = [
    "Next, I'll wire the CLI:",
    "All tests pass and the PR is merged.",
    "Should I open the PR and merge it?",
    "Remaining: docs and the changelog.",
    "Let me know if you want anything else."
  ]
  const history = (batch: number, n: number) =>
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({
        id: `b${batch}-${i}`,
        text: `${openings[i % openings.length]} ${"detail ".repeat((i * batch) % 23)}${endings[(i * 3 + batch) % 5]}`,
        label: (i * 7 + batch) % 5 < 3,
        tool_calls: (i * 13) % 90,
        head: i % 5 === 0 ? "confirm" : "stopped_short"
      })).join("\n")

  const run = (fitThreads: number, workers?: Layer.Layer<FitWorkers.FitWorkers>) =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      const ledger = yield* ReflexLedger.ReflexLedger
      // a dry run first (it certifies the file alone, storing nothing); the second import runs
      // on the generation the first one adopted
      const reports = [
        yield* reflexes.importHistory("settle", history(1, 800), { dryRun: true }),
        yield* reflexes.importHistory("settle", history(1, 800)),
        yield* reflexes.importHistory("settle", history(2, 800))
      ]
      const generations = (yield* ledger.generations("settle")).map((g) => g.payload)
      const certificates: Array<string> = []
      for (const head of ["stopped_short", "confirm"]) {
        certificates.push(Option.getOrThrow(yield* ledger.certificate("settle", head)).payload)
      }
      return { reports, generations, certificates }
    }).pipe(Effect.provide(
      workers === undefined ? engine({ fitThreads }) : engine({ fitThreads }).pipe(Layer.provide(workers))
    ))

  it.effect(
    "the same reports, generations and certificates as fitting on the calling thread",
    () =>
      Effect.gen(function*() {
        const alone = yield* run(0)
        const workers = yield* run(2, TestFitWorkers.fromSource)
        assert.isNotNull(alone.reports[1]!.adoptedVersion, "the first import adopts a won head")
        assert.isTrue(alone.generations.length >= 1)
        assert.deepStrictEqual(workers, alone)
        // workers that cannot start: the replays fit on the calling thread, same results
        assert.deepStrictEqual(yield* run(2, TestFitWorkers.missingEntry), alone)
      }),
    { timeout: 120_000 }
  )
})

describe("Reflexes: user-defined reflexes", () => {
  // A "review" reflex: should a finished diff get a second reviewer? One head, its own features,
  // organism and label mapping, through the same ledger, training, certification and gates.
  const organism = JSON.stringify({
    contract: "algal.organism.v1",
    key: "organism:review-reflex",
    name: "Review reflex",
    budgets: {
      maxSteps: 4,
      maxAgentCalls: 0,
      maxWork: 20000,
      maxContextBytes: 65536,
      maxOutputBytes: 16384,
      maxDepth: 1
    },
    interface: {
      inputs: {
        features: { cell: "src", port: "features" },
        params: { cell: "src", port: "params" },
        evidence: { cell: "src", port: "evidence" }
      },
      outputs: { decision: { cell: "decide", port: "out" } }
    },
    cells: [
      { id: "src", kind: "input", outputs: { features: "json", params: "json", evidence: "json" } },
      {
        id: "decide",
        kind: "expr",
        inputs: { features: "json", params: "json", evidence: "json" },
        expr: {
          contract: "algal.expr.v1",
          program: ["let", "h", ["get", "params", "second"], ["let", "z", [
            "fold",
            ["get", "h", "terms"],
            ["get", "h", "bias"],
            "acc",
            "t",
            ["add", ["get", "acc"], ["mul", ["get", "t", "w"], ["let", "v", ["get", "features", ["get", "t", "f"]], [
              "if",
              ["isNum", ["get", "v"]],
              ["get", "v"],
              0
            ]]]]
          ], {
            verdict: ["if", ["gte", ["get", "z"], ["get", "h", "cut"]], "review", "ship"],
            gate: "score",
            head: "second",
            score: ["round", ["mul", ["get", "z"], 1000]]
          }]]
        },
        output: { kind: "json", schema: {} }
      }
    ],
    edges: [
      { from: { cell: "src", port: "features" }, to: { cell: "decide", port: "features" } },
      { from: { cell: "src", port: "params" }, to: { cell: "decide", port: "params" } },
      { from: { cell: "src", port: "evidence" }, to: { cell: "decide", port: "evidence" } }
    ]
  })
  const review = Reflex.make<{ readonly lines: number; readonly touchesAuth: boolean }>({
    name: "review",
    description: "Ask for a second reviewer on a finished diff",
    heads: ["second"],
    prior: {
      reflex: "review",
      version: 0,
      parent: null,
      heads: { second: { bias: -2, weights: { size: 2, auth: 3 }, threshold: 0.5 } },
      trained_on: 0,
      evidence: {}
    },
    organism,
    valueKey: "verdict",
    values: ["review", "ship"],
    extract: (input) =>
      Either.right({
        _tag: "Extracted",
        extracted: {
          features: { size: Math.min(input.lines, 1000) / 1000, auth: input.touchesAuth ? 1 : 0 },
          evidence: {},
          facts: {}
        }
      }),
    gate: (decision) => ({ value: decision.value, vetoed: false, actionable: decision.value === "review" }),
    certification: { second: { floor: 0.8 } },
    explicitLabels: (
      value
    ) => (value === "review" || value === "ship" ? [{ head: "second", label: value === "review" }] : undefined)
  })

  it("definitions are validated", () => {
    assert.isTrue(Either.isRight(review))
    const bad = Reflex.make({ ...Either.getOrThrow(review), name: "Bad Name" })
    assert.isTrue(Either.isLeft(bad))
    const heads = Reflex.make({ ...Either.getOrThrow(review), heads: ["other"] })
    assert.isTrue(Either.isLeft(heads))
  })

  it.effect("decides through ALGAL, records, labels, trains, certifies and respects modes", () =>
    Effect.gen(function*() {
      const reflexes = yield* Reflexes.Reflexes
      assert.deepStrictEqual(reflexes.names, ["route", "settle", "review"])
      const d = yield* reflexes.decide("review", { lines: 10, touchesAuth: true }, { subject: "pr-1" })
      if (d.skipped) return assert.fail("skipped")
      assert.deepStrictEqual(
        d.decision,
        { verdict: "review", gate: "score", head: "second", score: 1020 },
        JSON.stringify(d)
      )
      assert.strictEqual(d.mode, "auto")
      assert.isFalse(d.acts)
      assert.isTrue((yield* reflexes.replay(d.observation)).matches)
      for (let i = 0; i < 64; i++) {
        yield* reflexes.decide("review", { lines: 10, touchesAuth: true }, { subject: `pr-${i + 2}` })
        yield* reflexes.label("review", `pr-${i + 2}`, i % 20 === 0 ? "ship" : "review")
      }
      const status = yield* reflexes.status("review")
      assert.strictEqual(status.heads[0]!.labels, 64)
      assert.isTrue(status.heads[0]!.certificate!.certified, status.heads[0]!.certificate!.reason)
      const after = yield* reflexes.decide("review", { lines: 10, touchesAuth: true }, {
        subject: "pr-x",
        task: "pr-x",
        revision: 1
      })
      if (after.skipped) return assert.fail("skipped")
      assert.isTrue(after.certified)
    }).pipe(Effect.provide(engine({
      reflexes: [Either.getOrThrow(review)],
      config: { ...ReflexConfig.defaults, custom: { review: "auto" } }
    }))))
})
