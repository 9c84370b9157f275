/**
 * The optional reviewer command: it answers governance asks before a person is asked. It gets
 * one JSON document on stdin — `{session, run, tool, call, decision: {decision, citation,
 * reasons}}` — and prints one on stdout: `{"decision": "allow" | "deny" | "ask", "reason"?}`
 * (`ask` passes the question on to the person). It runs in the workspace with a timeout and
 * fails closed: a timeout, a non-zero exit, or anything but a valid decision is a deny.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as Policy from "@steward/governance-rules/Policy"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { Config } from "./internal/reviewerConfig.js"

/**
 * Reviewer settings: the command (argv) and its timeout (default 30 s, at most 10 minutes); the
 * Schema and its type, in their own module so that reading a session's settings spawns nothing.
 *
 * @since 0.1.0
 * @category schemas
 */
export { Config } from "./internal/reviewerConfig.js"

/**
 * The reviewer's answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Answer {
  readonly decision: "allow" | "deny" | "ask"
  readonly reason: string
  /** The reviewer did not answer properly and the harness denied for it. */
  readonly failedClosed: boolean
}

const Reply = Schema.parseJson(Schema.Struct({
  decision: Schema.Literal("allow", "deny", "ask"),
  reason: Schema.optional(Schema.String)
}))

/**
 * Ask the reviewer.
 *
 * @since 0.1.0
 * @category running
 */
export const review = Effect.fn("Reviewer.review")(function*(
  config: Config,
  request: {
    readonly session: string
    readonly run: string
    readonly workspace: string
    readonly tool: string
    readonly call: Policy.ToolCall
    readonly decision: Policy.Decision
  }
): Effect.fn.Return<Answer, never, CommandExecutor.CommandExecutor> {
  const timeout = Duration.millis(config.timeoutMs ?? 30_000)
  const closed = (reason: string): Answer => ({
    decision: "deny",
    reason: `${reason} (failing closed)`,
    failedClosed: true
  })
  const input = JSON.stringify({
    session: request.session,
    run: request.run,
    tool: request.tool,
    call: request.call,
    decision: {
      decision: request.decision.decision,
      citation: request.decision.citation,
      reasons: request.decision.reasons
    }
  })
  const [cmd, ...args] = config.command
  const run = Effect.scoped(Effect.gen(function*() {
    const process = yield* Command.make(cmd, ...args).pipe(
      Command.workingDirectory(request.workspace),
      Command.feed(input),
      Command.start
    )
    const [stdout, code] = yield* Effect.all([
      process.stdout.pipe(Stream.decodeText(), Stream.mkString, Effect.map((s) => s.slice(0, 65_536))),
      process.exitCode
    ], { concurrency: 2 })
    return { stdout, code: Number(code) }
  }))
  const result = yield* run.pipe(Effect.timeout(timeout), Effect.either)
  if (result._tag === "Left") {
    return result.left._tag === "TimeoutException"
      ? closed(`the reviewer timed out after ${Duration.format(timeout)}`)
      : closed(`the reviewer could not run: ${result.left.message}`)
  }
  if (result.right.code !== 0) return closed(`the reviewer exited with ${result.right.code}`)
  const reply = Schema.decodeUnknownOption(Reply)(result.right.stdout.trim())
  if (reply._tag === "None") return closed("the reviewer's reply was not a decision")
  return { decision: reply.value.decision, reason: reply.value.reason ?? "", failedClosed: false }
})
