import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as path from "node:path"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as BlobStore from "../src/BlobStore.js"
import * as Executor from "../src/Executor.js"
import * as FnRegistry from "../src/FnRegistry.js"
import * as Program from "../src/Program.js"
import type * as Receipt from "../src/Receipt.js"
import * as SlotStore from "../src/SlotStore.js"
import { example, exampleArgs, examplesDir, parseOk, readJson } from "./helpers.js"

const manifests = Program.resolverOf(["triage", "swarm-inner", "refine-inner"].map((n) => parseOk(example(n))))
const layer = AlgalRuntime.layerMemory({ manifests })

/** Each example with args and scripted responses chosen to exercise its design, and the outcome it implies. */
interface Scenario {
  readonly args: unknown
  readonly responses: Executor.Responses
  readonly outcome: Receipt.Outcome
  readonly check: (run: { receipt: Receipt.Receipt; outputs: Readonly<Record<string, unknown>> }) => void
}

const ticket = "The export button crashes the app"

const scenarios: Record<string, Scenario> = {
  triage: {
    args: { ticket: { text: ticket } },
    responses: readJson(path.join(examplesDir, "triage.responses.json")),
    outcome: "complete",
    check: ({ outputs, receipt }) => {
      assert.deepStrictEqual(outputs, { summary: `BUG: ${ticket}` })
      assert.strictEqual(receipt.cells["as-feature"]!.status, "skipped")
      assert.strictEqual(receipt.work.agentCalls, 1)
    }
  },
  inbox: {
    args: { ticket: { text: ticket } },
    responses: { route: "feature" },
    outcome: "complete",
    check: ({ receipt }) => {
      assert.deepStrictEqual(receipt.cells.sink!.outputs, { value: `FEATURE: ${ticket}` })
      assert.strictEqual(receipt.cells["triage/route"]!.status, "committed")
    }
  },
  swarm: {
    args: readJson(path.join(examplesDir, "swarm.args.json")),
    responses: readJson(path.join(examplesDir, "swarm.responses.json")),
    outcome: "complete",
    check: ({ outputs, receipt }) => {
      const answers =
        (readJson(path.join(examplesDir, "swarm.responses.json")) as { researcher: Array<string> }).researcher
      assert.deepStrictEqual(outputs, { answers: answers.join("\n") })
      assert.strictEqual(receipt.cells.map!.items, 3)
      assert.strictEqual(receipt.cells["map/i2/researcher"]!.status, "committed")
      assert.strictEqual(receipt.effects.length, 3)
    }
  },
  refine: {
    args: { ticket: { draft: "first draft" } },
    responses: { editor: ["second draft", "third draft"], critic: ["revise", "ship"] },
    outcome: "complete",
    check: ({ outputs, receipt }) => {
      assert.deepStrictEqual(outputs, { result: "SHIP: third draft" })
      assert.strictEqual(receipt.cells.loop!.rounds, 2)
      assert.strictEqual(receipt.cells.hold!.status, "skipped")
      assert.strictEqual(receipt.work.agentCalls, 4)
    }
  },
  lookup: {
    args: { input: { doc: { title: "ALGAL", pages: 12 }, q: "What is the title?" } },
    responses: {
      reader: [
        { tool: "pick.v1", inputs: { record: { title: "ALGAL", pages: 12 }, field: "title" } },
        "The title is ALGAL."
      ]
    },
    outcome: "complete",
    check: ({ outputs, receipt }) => {
      assert.deepStrictEqual(outputs, { answer: "The title is ALGAL." })
      assert.deepStrictEqual(receipt.cells.reader!.toolCalls, [
        { fn: "pick.v1", inputs: { record: { title: "ALGAL", pages: 12 }, field: "title" }, output: { value: "ALGAL" } }
      ])
      assert.strictEqual(receipt.work.agentCalls, 2)
    }
  },
  flaky: {
    args: { ticket: { text: ticket } },
    responses: {
      route: ["definitely a bug", { $error: { code: "EFFECT_FAILED", message: "provider 503" } }, "bug"],
      fix: "Guard the null export handle."
    },
    outcome: "complete",
    check: ({ receipt }) => {
      assert.strictEqual(receipt.work.agentCalls, 4)
      assert.deepStrictEqual(receipt.cells.route!.outputs, { out: "bug" })
      assert.strictEqual(receipt.cells.fix!.status, "committed")
    }
  },
  approve: {
    args: { pr: { diff: "- a\n+ b" } },
    responses: { review: "Renames a variable; low risk.", gate: "approve", merge: "Rename a to b" },
    outcome: "complete",
    check: ({ receipt }) => {
      assert.deepStrictEqual(receipt.cells.merge!.outputs, { out: "Rename a to b" })
      assert.strictEqual(receipt.cells.hold!.status, "skipped")
    }
  },
  guard: {
    args: { src: { v: "pending" } },
    responses: {},
    outcome: "complete",
    check: ({ receipt }) => {
      assert.strictEqual(receipt.cells.check!.status, "failed")
      assert.deepStrictEqual(receipt.cells.hold!.outputs, { value: "FN_FAILED" })
    }
  },
  recover: {
    args: { ticket: { v: "hello" } },
    responses: { scorer: "not-a-label", fallback: "Scorer failed (EFFECT_UNPARSEABLE); returning the safe default." },
    outcome: "complete",
    check: ({ receipt }) => {
      assert.strictEqual(receipt.cells.scorer!.failure!.code, "EFFECT_UNPARSEABLE")
      assert.deepStrictEqual(receipt.cells.emit!.outputs, {
        value: "Scorer failed (EFFECT_UNPARSEABLE); returning the safe default."
      })
    }
  },
  escalate: {
    args: { ticket: { rec: { severity: "high", system: "billing" } } },
    responses: { page: "billing is down for all customers", log: "unused" },
    outcome: "complete",
    check: ({ receipt }) => {
      assert.strictEqual(receipt.cells.log!.status, "skipped")
      assert.deepStrictEqual(receipt.cells.emit!.outputs, { value: "billing is down for all customers" })
    }
  },
  panel: {
    args: { brief: { v: "Move the queue to SQLite." } },
    responses: {
      "rev-structure": "Sound.",
      "rev-risk": "Locking risk.",
      "rev-cost": "Cheap.",
      synth: "Approve with a locking test."
    },
    outcome: "complete",
    check: ({ outputs, receipt }) => {
      assert.deepStrictEqual(outputs, { verdict: "Approve with a locking test." })
      const synthRequest = receipt.effects[3] as { requestDigest: string }
      assert.strictEqual(receipt.cells.synth!.effectDigest, synthRequest.requestDigest)
    }
  },
  stash: {
    args: { src: { doc: { title: "Notes", body: "x" } } },
    responses: { writer: "Notes about x." },
    outcome: "complete",
    check: ({ receipt }) => assert.deepStrictEqual(receipt.cells.writer!.outputs, { out: "Notes about x." })
  },
  counter: {
    args: {},
    responses: {},
    outcome: "complete",
    check: ({ receipt }) => assert.deepStrictEqual(receipt.cells.note!.outputs, { value: "SEEN: 1" })
  },
  intake: {
    args: { src: { ticket: { title: "No severity" } } },
    responses: { handler: "unused", repair: "Please add the ticket's severity." },
    outcome: "complete",
    check: ({ receipt }) => {
      assert.strictEqual(receipt.cells.src!.failure!.code, "TYPE_MISMATCH")
      assert.strictEqual(receipt.cells.handler!.status, "skipped")
      assert.deepStrictEqual(receipt.cells.repair!.outputs, { out: "Please add the ticket's severity." })
    }
  },
  "model-router": {
    args: exampleArgs("model-router"),
    responses: readJson(path.join(examplesDir, "model-router.responses.json")),
    outcome: "complete",
    check: ({ outputs }) => {
      const result = outputs.result as { route: string; kind: string; gate: string }
      assert.strictEqual(result.kind, "refactor")
      assert.strictEqual(result.gate, "score")
      assert.include(outputs.summary as string, "route → ")
    }
  }
}

const runScenario = (name: string, scenario: Scenario) =>
  Effect.gen(function*() {
    const runtime = yield* AlgalRuntime.AlgalRuntime
    const program = yield* runtime.compile(example(name))
    const run = yield* runtime.run(program, scenario.args, { executors: [Executor.scripted(scenario.responses)] })
    return { runtime, program, run }
  })

describe("every example runs to the outcome its design implies, and verifies", () => {
  for (const [name, scenario] of Object.entries(scenarios)) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const { program, run, runtime } = yield* runScenario(name, scenario)
        assert.strictEqual(run.outcome, scenario.outcome, JSON.stringify(run.receipt.failure))
        scenario.check({ receipt: run.receipt, outputs: run.outputs })
        const verified = yield* runtime.verify(JSON.parse(JSON.stringify(run.receipt)), program)
        assert.deepStrictEqual(verified.mismatches, [])
        assert.strictEqual(verified.digest, run.digest)
        const replay = yield* runtime.replay(run.receipt, program)
        assert.strictEqual(replay.verdict, "identical")
      }).pipe(Effect.provide(layer)))
  }
})

const tamper = (receipt: Receipt.Receipt, edit: (r: any) => void): unknown => {
  const copy = JSON.parse(JSON.stringify(receipt))
  edit(copy)
  return copy
}

describe("tampering makes verify fail and name the field", () => {
  it.effect("a recorded effect output", () =>
    Effect.gen(function*() {
      const { program, run, runtime } = yield* runScenario("triage", scenarios.triage!)
      const forged = tamper(run.receipt, (r) => (r.effects[0].output = "feature"))
      const verified = yield* runtime.verify(forged, program)
      assert.isFalse(verified.ok)
      assert.isTrue(
        verified.mismatches.some((m) => m.startsWith("cells.route.outputs")),
        verified.mismatches.join("\n")
      )
      assert.isTrue(verified.mismatches.some((m) => m.startsWith("digest:")))
      const replay = yield* runtime.replay(forged, program)
      assert.strictEqual(replay.verdict, "diverged")
    }).pipe(Effect.provide(layer)))

  it.effect("a cell output, a work figure, an effect's executor", () =>
    Effect.gen(function*() {
      const { program, run, runtime } = yield* runScenario("panel", scenarios.panel!)
      const cases: Array<[(r: any) => void, string]> = [
        [(r) => (r.cells.synth.outputs.out = "Reject."), "cells.synth.outputs"],
        [(r) => (r.cells["rev-risk"].work += 1), "cells.rev-risk.work"],
        [(r) => (r.work.units -= 1), "work.units"],
        [(r) => (r.work.agentCalls = 3), "work.agentCalls"],
        [(r) => (r.effects[1].output = "No risk."), "cells.rev-risk.outputs"],
        [(r) => (r.effects[1].requestDigest = r.effects[0].requestDigest), "effects"],
        // a forged executor name replays verbatim; the receipt's own digest no longer matches
        [(r) => (r.effects[1].executor = "other"), "digest:"]
      ]
      for (const [edit, field] of cases) {
        const verified = yield* runtime.verify(tamper(run.receipt, edit), program)
        assert.isFalse(verified.ok)
        assert.isTrue(
          verified.mismatches.some((m) => m.startsWith(field)),
          `${field}: ${verified.mismatches.join("\n")}`
        )
      }
    }).pipe(Effect.provide(layer)))

  it.effect("a dropped effect cannot be replayed", () =>
    Effect.gen(function*() {
      const { program, run, runtime } = yield* runScenario("panel", scenarios.panel!)
      const forged = tamper(run.receipt, (r) => r.effects.splice(0, 1))
      const verified = yield* runtime.verify(forged, program)
      assert.isFalse(verified.ok)
      const replay = yield* runtime.replay(forged, program)
      assert.strictEqual(replay.verdict, "could-not-replay")
    }).pipe(Effect.provide(layer)))
})

describe("a host without executors", () => {
  it.effect("every effect cell fails EFFECT_UNBOUND (retryable:false) and fail edges still route", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const recover = yield* runtime.run(example("recover"), { ticket: { v: "x" } })
      assert.strictEqual(recover.receipt.cells.scorer!.failure!.code, "EFFECT_UNBOUND")
      // the fallback agent is reached through the fail edge, and fails unbound too
      assert.strictEqual(recover.receipt.cells.fallback!.failure!.code, "EFFECT_UNBOUND")
      assert.deepStrictEqual(recover.receipt.effects.map((e: any) => [e.executor, e.retryable, e.error.code]), [
        ["unbound", false, "EFFECT_UNBOUND"],
        ["unbound", false, "EFFECT_UNBOUND"]
      ])
      for (const name of ["triage", "approve", "panel", "flaky", "model-router"]) {
        const program = yield* runtime.compile(example(name))
        const run = yield* runtime.run(program, scenarios[name]!.args)
        const effectCells = Object.entries(run.receipt.cells).filter(([, c]) => c.status === "failed")
        assert.isAbove(effectCells.length, 0, name)
        for (const [, c] of effectCells) assert.strictEqual(c.failure!.code, "EFFECT_UNBOUND", name)
        assert.isTrue(run.receipt.effects.every((e: any) => e.executor === "unbound"), name)
        assert.isTrue((yield* runtime.verify(run.receipt, program)).ok)
      }
    }).pipe(Effect.provide(layer)))
})

describe("effects over SQL stores (the Effect-driven path)", () => {
  const sqlLayer = AlgalRuntime.layerWith({ manifests }).pipe(
    Layer.provide(Layer.mergeAll(FnRegistry.layer, BlobStore.layerSql, SlotStore.layerSql)),
    Layer.provide(SqliteClient.layer({ filename: ":memory:" })),
    Layer.orDie
  )
  it.effect("stash, counter and refine run, suspend/resume and verify with SQL blobs and slots", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      for (const name of ["stash", "counter", "refine"]) {
        const scenario = scenarios[name]!
        const program = yield* runtime.compile(example(name))
        const run = yield* runtime.run(program, scenario.args, { executors: [Executor.scripted(scenario.responses)] })
        assert.strictEqual(run.outcome, "complete", name)
        assert.isTrue((yield* runtime.verify(run.receipt, program)).ok, name)
      }
      const stash = yield* runtime.compile(example("stash"))
      const suspended = yield* runtime.run(stash, scenarios.stash!.args, {
        executors: [Executor.scripted({ writer: { $error: { code: "EFFECT_SUSPENDED", message: "later" } } })]
      })
      assert.strictEqual(suspended.outcome, "suspended")
      const resumed = yield* runtime.resume(suspended.receipt, stash, {
        executors: [Executor.scripted({ writer: "Done." })]
      })
      assert.deepStrictEqual(resumed.receipt.cells.writer!.outputs, { out: "Done." })
    }).pipe(Effect.provide(sqlLayer)))
})
