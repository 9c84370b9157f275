/**
 * `steward audit dispatch open|finish`: the invocation envelopes of dispatched sessions.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Checked from "@steward/audit-state/Checked"
import * as Effect from "effect/Effect"
import * as BoundedFile from "../../BoundedFile.js"
import { cannotRun } from "../../CliError.js"
import * as Output from "../../Output.js"
import * as Lease from "./lease.js"
import { common, opt, req, resolveProject, u } from "./options.js"
import { withStore } from "./store.js"

/** The largest `--prompt-file` `dispatch open` reads. */
const PROMPT_MAX_BYTES = 16 * 1024 * 1024

const dispatchOpen = Command.make(
  "open",
  {
    ...common,
    role: req("role", "The dispatched role"),
    executable: req("executable", "The agent executable (its basename names the provider)"),
    charter: req("charter", "The exact charter text"),
    prompt: opt("prompt", "The exact prompt text"),
    promptFile: opt("prompt-file", "A file holding the exact prompt"),
    model: opt("model", "The agent model"),
    provider: opt("provider", "The provider (default: from the executable)"),
    session: opt("session", "The session id (16 hex; default derived)"),
    sandboxProfile: opt("sandbox-profile", "The sandbox profile"),
    headBefore: opt("head-before", "The subject commit before the session"),
    concurrentGroup: opt("concurrent-group", "A parallel group sharing one open window")
  },
  (a) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(a.project)
      const promptFile = u(a.promptFile)
      // bounded (issue 16): size-checked, FIFOs and devices refused, UTF-8 checked
      const prompt = u(a.prompt) ?? (promptFile === undefined
        ? undefined
        : yield* BoundedFile.readText(promptFile, { maxBytes: PROMPT_MAX_BYTES }).pipe(
          Effect.mapError((e) => BoundedFile.toFailure(e))
        ))
      if (prompt === undefined) {
        return yield* Effect.fail(cannotRun("usage", "dispatch open needs --prompt or --prompt-file"))
      }
      yield* withStore(p, false, (store) =>
        Effect.gen(function*() {
          yield* Lease.refuseIfHeld(p)
          yield* Checked.load(p, store)
          const applied = yield* store.openDispatch({
            role: a.role,
            executable: a.executable,
            charter: a.charter,
            prompt,
            agentModel: u(a.model),
            provider: u(a.provider),
            sessionId: u(a.session),
            sandboxProfile: u(a.sandboxProfile),
            headBefore: u(a.headBefore),
            concurrentGroup: u(a.concurrentGroup)
          })
          yield* printDispatch(a.json, applied)
        }))
    })
).pipe(Command.withDescription("Record a dispatched session's envelope (the open dispatch)"))

/** What `dispatch open|finish` print: the session, the new revision and the verb's message. */
const printDispatch = (
  json: boolean,
  applied: { readonly event: { readonly session_id?: unknown }; readonly revision: number; readonly message: string }
) =>
  Output.result(
    json,
    { session_id: applied.event.session_id, state_revision: applied.revision, message: applied.message },
    (r) => `${r.message} (state revision ${r.state_revision})`
  )

const dispatchFinish = Command.make(
  "finish",
  {
    ...common,
    session: opt("session", "The open session (default: the one open dispatch)"),
    outcome: req("outcome", "ok | refused | blocked | provider-error | timeout | crash | cancelled | stalled"),
    exitStatus: Options.integer("exit-status").pipe(
      Options.withDescription("The session process's exit status"),
      Options.optional
    ),
    duration: Options.float("duration").pipe(Options.withDescription("Seconds"), Options.optional),
    headAfter: opt("head-after", "The subject commit after the session"),
    logDigest: opt("log-digest", "sha-256 of the session log"),
    tokens: Options.integer("tokens").pipe(Options.withDescription("Tokens the session used"), Options.optional),
    note: opt("note", "A note")
  },
  (a) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(a.project)
      yield* withStore(p, false, (store) =>
        Effect.gen(function*() {
          yield* Lease.refuseIfHeld(p)
          yield* Checked.load(p, store)
          const applied = yield* store.finishDispatch({
            sessionId: u(a.session),
            outcome: a.outcome,
            exitStatus: u(a.exitStatus),
            durationS: u(a.duration),
            headAfter: u(a.headAfter),
            logDigest: u(a.logDigest),
            tokens: u(a.tokens),
            note: u(a.note)
          })
          yield* printDispatch(a.json, applied)
        }))
    })
).pipe(Command.withDescription("Finalise the open dispatch"))

export const dispatch = Command.make("dispatch").pipe(
  Command.withDescription("Open or finish a dispatched session (invocation envelopes)"),
  Command.withSubcommands([dispatchOpen, dispatchFinish])
)
