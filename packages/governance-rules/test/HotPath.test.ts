import { assert, describe, layer } from "@effect/vitest"
import { Effect, Tracer } from "effect"
import { Policy } from "../src/index.js"
import { Parser } from "./helpers.js"

// Issue 38 item 3: no span on the per-decision path unless the host traces, and a call decoded
// once is not decoded again on the way to the engine.
const recording = () => {
  const names: Array<string> = []
  const tracer = Tracer.make({
    span: (name, _parent, _context, _links, startTime) => {
      names.push(name)
      return quietSpan(name, startTime)
    },
    context: (f) => f()
  })
  return { names, tracer }
}

// a span that records nothing (what the recording tracer hands back)
const quietSpan = (name: string, startTime: bigint): Tracer.Span => ({
  _tag: "Span",
  name,
  spanId: "s",
  traceId: "t",
  parent: { _tag: "None" } as Tracer.Span["parent"],
  context: undefined as unknown as Tracer.Span["context"],
  status: { _tag: "Started", startTime },
  attributes: new Map(),
  links: [],
  sampled: false,
  kind: "internal",
  end: () => {},
  attribute: () => {},
  event: () => {},
  addLinks: () => {}
})

describe("the decision's hot path", () => {
  layer(Parser)((it) => {
    it.effect("with a host tracer each decision is a span; without one the decision is the same", () =>
      Effect.gen(function*() {
        const engine = yield* Policy.make({ level: "execute", workspace: "/srv/app" })
        const call = { tool: "shell", command: "git status" } as const
        const plain = yield* engine.decide(call)
        const { names, tracer } = recording()
        const traced = yield* engine.decide(call).pipe(Effect.withTracer(tracer))
        yield* engine.decideBatch([call, call]).pipe(Effect.withTracer(tracer))
        assert.deepStrictEqual(names, ["Policy.decide", "Policy.decideBatch"])
        assert.deepStrictEqual(traced, plain)
      }))

    it.effect("a decoded call is a frozen copy the engine decides without decoding again", () =>
      Effect.gen(function*() {
        const engine = yield* Policy.make({ level: "execute", workspace: "/srv/app" })
        const input: Policy.ToolCall = { tool: "read", paths: ["src/a.ts"] }
        const call = yield* Policy.decodeToolCall(input)
        assert.notStrictEqual<unknown>(call, input)
        assert.isTrue(Object.isFrozen(call) && Object.isFrozen((call as { paths: ReadonlyArray<string> }).paths))
        assert.isFalse(Object.isFrozen(input))
        assert.deepStrictEqual(yield* engine.decide(call), yield* engine.decide(input))
        // an undecoded value is still decoded: the Schema stays the contract
        const bad = yield* Effect.flip(engine.decide({ tool: "read", paths: [1] } as unknown as Policy.ToolCall))
        assert.strictEqual(bad.code, "input-invalid")
      }))
  })
})
