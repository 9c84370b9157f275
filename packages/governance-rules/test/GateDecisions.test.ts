import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { vi } from "vitest"
import { Evidence, Gate, Governance, GovernanceError, Responder } from "../src/index.js"
import type * as PolicyModule from "../src/Policy.js"

// Counts every `PolicyEngine.decide` the gate's own stack makes: the engine layer is wrapped so
// the gate under test is the real one, composed exactly as `Gate.open` composes it.
const counter = vi.hoisted(() => ({ decisions: 0 }))

vi.mock("../src/Policy.js", async (importOriginal) => {
  const actual = await importOriginal<typeof PolicyModule>()
  return {
    ...actual,
    layer: (config: Parameters<typeof actual.layer>[0]) =>
      Layer.map(actual.layer(config), (context) => {
        const engine = Context.get(context, actual.PolicyEngine)
        return Context.add(context, actual.PolicyEngine, {
          ...engine,
          decide: (call) => {
            counter.decisions++
            return engine.decide(call)
          }
        })
      })
  }
})

const workspace = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-gate-decisions-"))

const calls = [
  { tool: "shell", command: "git status" },
  { tool: "fetch", url: "https://example.com/" },
  { tool: "shell", command: "git push origin main" },
  { tool: "shell", command: "git status && rm -rf ~" },
  { tool: "mcp", name: "notes.read", input: {} }
] as const

// The host's answers: fetch is allowed, shell refused, anything else fails (unanswered).
const failure = "the host's ask function failed: Error: offline"
const ask = (request: Responder.AskRequest) =>
  request.call.tool === "fetch"
    ? "allow"
    : request.call.tool === "shell"
    ? "deny"
    : Promise.reject(new Error("offline"))

// What the Effect stack (`Governance.authorize`) makes of the same calls: errors and evidence.
const throughGovernance = (root: string) =>
  Effect.gen(function*() {
    const gate = yield* Governance.Governance
    const results = yield* Effect.forEach(calls, (call) => Effect.either(gate.authorize(call)))
    const log = yield* Evidence.EvidenceLog
    const evidence = yield* Stream.runCollect(log.stream()).pipe(Effect.map(Chunk.toReadonlyArray))
    return { results, evidence }
  }).pipe(
    Effect.provide(
      Governance.layerFrom({ level: "execute", workspace: root, home: os.homedir() }).pipe(
        Layer.provideMerge(Layer.merge(
          Responder.layerWith((request) =>
            request.call.tool === "mcp"
              ? Effect.fail(GovernanceError.make("ask-unanswered", failure, {
                detail: { citation: request.decision.citation }
              }))
              : Effect.succeed({ answer: request.call.tool === "fetch" ? "allow" : "deny", by: "host" } as const)
          ),
          Evidence.layerMemory
        ))
      )
    ),
    Effect.runPromise
  )

const comparable = (events: ReadonlyArray<Evidence.EvidenceEvent>) =>
  events.map(({ data, hook, kind, runId }) => ({ kind, runId, hook, data }))

describe("Gate decisions", () => {
  it("decides each call once — allowed, granted, refused, denied and unanswered alike", async () => {
    const root = workspace()
    const gate = await Gate.open({ home: os.homedir(), level: "execute", workspace: root, ask })
    try {
      const verdicts: Array<Gate.Verdict> = []
      for (const call of calls) {
        const before = counter.decisions
        verdicts.push(await gate.authorize(call))
        assert.strictEqual(counter.decisions - before, 1, JSON.stringify(call))
      }
      assert.deepStrictEqual(verdicts.map((v) => v.outcome), ["allowed", "granted", "refused", "denied", "unanswered"])

      // the same decisions, citations, messages and evidence (hooks included) as the Effect stack
      const reference = await throughGovernance(root)
      reference.results.forEach((result, i) => {
        const verdict = verdicts[i]!
        const decision = Either.isRight(result) ? result.right.decision : undefined
        if (decision !== undefined) {
          assert.deepStrictEqual([verdict.decision, verdict.citation, verdict.reasons], [
            decision.decision,
            decision.citation,
            decision.reasons
          ])
        }
        if (Either.isLeft(result)) {
          assert.strictEqual(verdict.message, result.left.message)
          assert.deepStrictEqual(verdict.citation, (result.left.detail as any).citation)
        }
      })
      assert.deepStrictEqual(comparable(await gate.evidence()), comparable(reference.evidence))
      assert.isTrue(reference.evidence.some((event) => event.hook !== null))
    } finally {
      await gate.close()
    }
  })
})
