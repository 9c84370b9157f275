/**
 * A run traces nothing unless the host provides a tracer (issue 38 item 3, ADR 0571): with
 * Effect's built-in tracer the loop runs with tracing off (its spans would go nowhere); with a
 * host's tracer every span of the run reaches it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FiberRef, Schema, Tracer } from "effect"
import * as Session from "../src/Session.js"
import * as Tools from "../src/Tools.js"
import { layer, script, workspace } from "./support/env.js"

// What the tool saw: whether tracing was on where it ran.
const seen: Array<boolean> = []
const probe = Tools.make({
  name: "probe",
  description: "Reports whether tracing is on (test).",
  input: Schema.Struct({}),
  governance: () => ({ tool: "mcp", name: "probe" }),
  execute: () =>
    Effect.map(FiberRef.get(FiberRef.currentTracerEnabled), (on) => {
      seen.push(on)
      return { ok: true, output: "ok" }
    })
})

const run = Effect.gen(function*() {
  const sessions = yield* Session.Sessions
  const { id } = yield* sessions.create({
    workspace: workspace(),
    rules: [{ id: "probe", action: "mcp", resource: "probe", effect: "allow" }]
  })
  const outcome = yield* sessions.run(id, "Probe")
  assert.strictEqual(outcome.status, "completed")
}).pipe(
  Effect.provide(layer(script({ toolCalls: [{ name: "probe", input: {} }] }, { text: "Done." }), { tools: [probe] }))
)

describe("tracing in a run", () => {
  it.effect("with no tracer of the host's, the run's steps trace nothing", () =>
    Effect.gen(function*() {
      seen.length = 0
      yield* run
      assert.deepStrictEqual(seen, [false])
    }))

  it.effect("a host's tracer sees the run's spans (the model call's among them)", () =>
    Effect.gen(function*() {
      const builtIn = yield* Tracer.tracerWith(Effect.succeed)
      const names: Array<string> = []
      const host = Tracer.make({
        span: (name, ...rest) => {
          names.push(name)
          return builtIn.span(name, ...rest)
        },
        context: builtIn.context
      })
      seen.length = 0
      yield* Effect.withTracer(run, host)
      assert.deepStrictEqual(seen, [true])
      assert.include(names, "LanguageModel.generateText")
    }))
})
