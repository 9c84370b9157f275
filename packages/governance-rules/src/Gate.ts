/**
 * A promise-based entry point for hosts that are not built on Effect: open a gate once, then
 * `await gate.authorize(call)` before every tool call. Underneath it is the same `Governance`
 * stack as an Effect host composes (parser, engine, built-in hooks, in-memory evidence), run on
 * one `ManagedRuntime`; the host answers asks with a plain (async) function.
 *
 * A verdict never rejects: denied, refused and unanswered calls resolve with `allowed: false` and
 * the citation. Promises reject only when the gate cannot decide at all — a malformed call
 * (`input-invalid`), an invalid policy (`policy-invalid`), a missing shell grammar
 * (`parser-unavailable`) — and they reject with the `GovernanceError` itself (an `Error` with a
 * closed `code`), never with an Effect wrapper.
 *
 * @example
 * ```ts
 * import { Gate } from "@steward/governance-rules"
 * import * as os from "node:os"
 *
 * const gate = await Gate.open({ level: "execute", workspace: process.cwd(), home: os.homedir(), ask: () => "deny" })
 * const verdict = await gate.authorize({ tool: "shell", command: "git status && rm -rf ~" })
 * console.log(verdict.outcome, verdict.citation.ruleId) // "denied" "universal.rm-home"
 * await gate.close()
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type * as Autonomy from "./Autonomy.js"
import * as Evidence from "./Evidence.js"
import * as Governance from "./Governance.js"
import * as GovernanceError from "./GovernanceError.js"
import * as Authorize from "./internal/authorize.js"
import { spanWhenTracing } from "./internal/tracing.js"
import * as Policy from "./Policy.js"
import * as PolicyFile from "./PolicyFile.js"
import * as Responder from "./Responder.js"
import type * as Rule from "./Rule.js"

/**
 * What the host's `ask` function receives: the call, the policy's decision (with the citation of
 * the rule that asks) and the run it belongs to.
 *
 * @since 0.1.0
 * @category models
 */
export type AskRequest = Responder.AskRequest

/**
 * The host's answer to an ask: `"allow"` / `"deny"`, or an object naming who answered.
 *
 * @since 0.1.0
 * @category models
 */
export type AskAnswer = "allow" | "deny" | { readonly answer: "allow" | "deny"; readonly by: string }

/**
 * Options for `open`. `rules` are plain data, validated like a policy file's (errors name the
 * rule and field); `policy` is the text of a JSON or YAML policy file, read by the host.
 *
 * @since 0.1.0
 * @category models
 */
export interface GateOptions {
  readonly level?: Autonomy.Level
  /** The workspace root: the host says where it is (the gate never guesses the current directory). */
  readonly workspace: string
  /** The home directory `~` resolves to (the host passes it, e.g. `os.homedir()`). */
  readonly home: string
  readonly rules?: ReadonlyArray<unknown>
  readonly policy?: { readonly text: string; readonly file: string }
  /** Answers an `ask` decision; without it every ask fails closed (`unanswered`). */
  readonly ask?: (request: AskRequest) => AskAnswer | Promise<AskAnswer>
  /** Who answered when `ask` returns a bare string (default `"host"`). */
  readonly askedBy?: string
}

/**
 * How an authorization ended: `allowed` by policy, `granted` or `refused` by the host's answer
 * to an ask, `denied` by a rule, or `unanswered` (an ask with nobody to answer it).
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = "allowed" | "granted" | "refused" | "denied" | "unanswered"

/**
 * The result of `authorize`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Verdict {
  readonly allowed: boolean
  readonly outcome: Outcome
  /** The policy's own decision before any answer. */
  readonly decision: Rule.RuleEffect
  readonly citation: Rule.Citation
  readonly reasons: ReadonlyArray<string>
  /** `policy` or whoever answered the ask; `null` when nothing granted the call. */
  readonly grantedBy: string | null
  readonly message: string
}

/**
 * An open gate.
 *
 * @since 0.1.0
 * @category models
 */
export interface Gate {
  /** Decide, record the evidence, and ask the host when the policy asks. */
  readonly authorize: (call: unknown, options?: { readonly runId?: string }) => Promise<Verdict>
  /** The policy's decision only: nothing recorded, nobody asked. */
  readonly check: (call: unknown) => Promise<Policy.Decision>
  /** Report a tool's outcome (`post_tool` or `tool_failure` hooks). */
  readonly completed: (
    call: unknown,
    outcome: { readonly exitCode?: number; readonly error?: string; readonly runId?: string }
  ) => Promise<void>
  /** The evidence recorded so far, in `seq` order (decisions, answers, hooks). */
  readonly evidence: () => Promise<ReadonlyArray<Evidence.EvidenceEvent>>
  /** Release the parser and the runtime; the gate cannot be used afterwards. */
  readonly close: () => Promise<void>
}

// Rejections carry the typed failure itself; a defect (a bug) is squashed to its Error.
const settle = async <A>(exit: Promise<Exit.Exit<A, unknown>>): Promise<A> => {
  const result = await exit
  if (Exit.isSuccess(result)) return result.value
  const failure = Cause.failureOption(result.cause)
  throw Option.isSome(failure) ? failure.value : Cause.squash(result.cause)
}

const configOf = Effect.fn("Gate.config")(function*(options: GateOptions) {
  const file = options.policy === undefined
    ? undefined
    : yield* PolicyFile.parse(options.policy.text, options.policy.file)
  const inline = options.rules === undefined
    ? undefined
    : yield* PolicyFile.parse(JSON.stringify({ rules: options.rules }), "options.rules")
  const rules = [...(file?.rules ?? []), ...(inline?.rules ?? [])]
  const sources = [
    ...(file?.rules ?? []).map((_, i) => `${options.policy!.file}#rules[${i}]`),
    ...(inline?.rules ?? []).map((_, i) => `options.rules[${i}]`)
  ]
  const level = options.level ?? file?.level
  return {
    ...(level === undefined ? {} : { level }),
    workspace: options.workspace,
    home: options.home,
    rules,
    ruleSources: sources
  } satisfies Governance.StackOptions
})

const responderOf = (options: GateOptions): Layer.Layer<Responder.Responder> => {
  const ask = options.ask
  if (ask === undefined) return Responder.layerNone
  const by = options.askedBy ?? "host"
  return Responder.layerWith((request) =>
    Effect.tryPromise({
      try: async () => {
        const answer = await ask(request)
        return typeof answer === "string" ? { answer, by } : answer
      },
      catch: (error) =>
        GovernanceError.make("ask-unanswered", `the host's ask function failed: ${String(error)}`, {
          detail: { citation: request.decision.citation }
        })
    }).pipe(
      Effect.filterOrFail(
        (answer) => answer.answer === "allow" || answer.answer === "deny",
        (answer) =>
          GovernanceError.make("ask-unanswered", `the host's ask function answered ${JSON.stringify(answer)}`, {
            detail: { citation: request.decision.citation }
          })
      )
    )
  )
}

const verdictOf = (decision: Policy.Decision, outcome: Outcome, grantedBy: string | null, message: string) => ({
  allowed: outcome === "allowed" || outcome === "granted",
  outcome,
  decision: decision.decision,
  citation: decision.citation,
  reasons: decision.reasons,
  grantedBy,
  message
})

/**
 * Open a gate: validates the options, loads the shell grammar and compiles the policy before it
 * resolves, so a bad policy fails here and not on the first call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open = async (options: GateOptions): Promise<Gate> => {
  const config = await settle(Effect.runPromiseExit(configOf(options)))
  const runtime = ManagedRuntime.make(
    Governance.layerFrom(config).pipe(Layer.provideMerge(Layer.merge(responderOf(options), Evidence.layerMemory)))
  )
  const run = <A>(effect: Effect.Effect<A, GovernanceError.GovernanceError, any>) =>
    settle(runtime.runPromiseExit(effect as Effect.Effect<A, GovernanceError.GovernanceError, never>))
  // The gate resolves calls with the same code as `Governance.authorize`, but keeps the decision
  // of a refused call, so each call is decided once (issue 38).
  let resolve: Effect.Effect.Success<typeof Authorize.make>
  try {
    resolve = await run(Authorize.make)
  } catch (error) {
    await runtime.dispose()
    throw error
  }

  // no span unless the host traces (the gate's own runtime provides no tracer)
  const authorize = spanWhenTracing(
    "Gate.authorize",
    Effect.fnUntraced(function*(input: unknown, runId: string | undefined) {
      const call = yield* Policy.decodeToolCall(input)
      const resolution = yield* resolve(call, runId === undefined ? {} : { runId })
      const { decision } = resolution
      if (resolution._tag === "Granted") {
        const { grantedBy } = resolution
        return verdictOf(
          decision,
          grantedBy === "policy" ? "allowed" : "granted",
          grantedBy,
          `allowed: ${decision.citation.reason}`
        )
      }
      const { error } = resolution
      return verdictOf(
        decision,
        error.code === "ask-unanswered" ? "unanswered" : decision.decision === "deny" ? "denied" : "refused",
        null,
        error.message
      )
    })
  )

  return {
    authorize: (call, callOptions) => run(authorize(call, callOptions?.runId)),
    check: (call) =>
      run(
        Effect.flatMap(Policy.decodeToolCall(call), (decoded) =>
          Effect.flatMap(Policy.PolicyEngine, (e) => e.decide(decoded)))
      ),
    completed: (call, outcome) =>
      run(Effect.flatMap(
        Policy.decodeToolCall(call),
        (decoded) => Effect.flatMap(Governance.Governance, (gate) => gate.completed(decoded, outcome))
      )),
    evidence: () =>
      run(
        Effect.flatMap(Evidence.EvidenceLog, (log) =>
          Stream.runCollect(log.stream()).pipe(Effect.map(Chunk.toReadonlyArray)))
      ),
    close: () => runtime.dispose()
  }
}
