/**
 * The invocation envelope of one dispatched session (xcheck's `sessions[]` record, spec §1.8):
 * who ran it (provider, agent model, executable and the sha256 of the executable's bytes — read,
 * never run), what it was given (role, charter and prompt hashes over the exact bytes dispatched),
 * where it started (state revision, HEAD before, session id, sandbox profile) and how it ended
 * (HEAD after, duration, signed exit status, outcome, log digest). ADR 0013.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { createHash } from "node:crypto"
import * as nodePath from "node:path"
import { Outcome, type Result } from "./agentProcess.js"
import { providerOf, type RoleAgent } from "./roleAgents.js"

const Sha256 = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/))
const Head = Schema.String.pipe(Schema.pattern(/^(?:[0-9a-f]{7,40}|unknown)$/))

/**
 * The envelope. The first group is known when the session is dispatched; the second when it ended.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Envelope = Schema.Struct({
  provider: Schema.String,
  agent: Schema.Literal("codex", "claude-code", "gemini", "steward"),
  agent_model: Schema.String,
  executable: Schema.String,
  executable_version: Schema.String.pipe(Schema.pattern(/^sha256:[0-9a-f]{64}$/)),
  role: Schema.Literal("Planner", "Auditor", "Remediator", "Verifier"),
  charter_hash: Sha256,
  prompt_hash: Sha256,
  state_revision: Schema.Int.pipe(Schema.nonNegative()),
  head_before: Head,
  session_id: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{16}$/)),
  sandbox_profile: Schema.String,
  head_after: Head,
  duration_s: Schema.Number.pipe(Schema.nonNegative()),
  exit_status: Schema.NullOr(Schema.Int),
  outcome: Outcome,
  log_digest: Sha256
})

/**
 * @since 0.1.0
 * @category models
 */
export type Envelope = typeof Envelope.Type

/**
 * The envelope's fields known at dispatch.
 *
 * @since 0.1.0
 * @category models
 */
export type Opened = Omit<Envelope, "head_after" | "duration_s" | "exit_status" | "outcome" | "log_digest">

/**
 * The executable could not be digested: not an absolute path, or not readable.
 *
 * @since 0.1.0
 * @category errors
 */
export class EnvelopeError extends Schema.TaggedError<EnvelopeError>()("EnvelopeError", {
  code: Schema.Literal("not-absolute", "unreadable"),
  executable: Schema.String,
  message: Schema.String
}) {}

/**
 * sha256 over bytes (a string is hashed as the UTF-8 bytes it is sent as).
 *
 * @since 0.1.0
 * @category hashing
 */
export const sha256 = (bytes: string | Uint8Array): string =>
  createHash("sha256").update(typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes).digest("hex")

/**
 * `sha256:<hex>` of the executable's bytes, streamed from the file: the executable is read, never
 * run (a binary that lies about its version cannot lie about its bytes). A symbolic link is
 * followed to the file it names.
 *
 * @since 0.1.0
 * @category hashing
 */
export const executableDigest = Effect.fn("Envelope.executableDigest")(function*(executable: string) {
  const fs = yield* FileSystem.FileSystem
  const hash = createHash("sha256")
  if (!nodePath.isAbsolute(executable)) {
    return yield* new EnvelopeError({
      code: "not-absolute",
      executable,
      message: `the executable '${executable}' is not an absolute path: the envelope names the file that runs`
    })
  }
  yield* Stream.runForEach(fs.stream(executable), (chunk) => Effect.sync(() => hash.update(chunk))).pipe(
    Effect.mapError((e) =>
      new EnvelopeError({ code: "unreadable", executable, message: `cannot read ${executable}: ${e.message}` })
    )
  )
  return `sha256:${hash.digest("hex")}`
})

/**
 * Build the envelope's dispatch-time fields. `executable` must be an absolute path (the one that
 * is run); `prompt` the exact text written to the agent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open = Effect.fn("Envelope.open")(function*(input: {
  readonly agent: RoleAgent
  readonly executable: string
  readonly role: Opened["role"]
  readonly charter: string
  readonly prompt: string
  readonly stateRevision: number
  readonly headBefore: string
  readonly sessionId: string
  readonly sandboxProfile: string
}) {
  return {
    provider: providerOf(input.agent),
    agent: input.agent.agent,
    agent_model: input.agent.model ?? "unknown",
    executable: input.executable,
    executable_version: yield* executableDigest(input.executable),
    role: input.role,
    charter_hash: sha256(input.charter),
    prompt_hash: sha256(input.prompt),
    state_revision: input.stateRevision,
    head_before: input.headBefore,
    session_id: input.sessionId,
    sandbox_profile: input.sandboxProfile
  } satisfies Opened
})

/**
 * Complete an envelope from the session's result. `log` is the log as stored (redacted), whose
 * digest the envelope carries.
 *
 * @since 0.1.0
 * @category constructors
 */
export const finish = (
  opened: Opened,
  result: Pick<Result, "outcome" | "exitStatus" | "durationMs">,
  headAfter: string,
  log: Uint8Array
): Envelope => ({
  ...opened,
  head_after: headAfter,
  duration_s: result.durationMs / 1000,
  exit_status: result.exitStatus,
  outcome: result.outcome,
  log_digest: sha256(log)
})
