/**
 * One audit session dispatched to an external agent CLI (issue 39): the dispatch opened with the
 * envelope's dispatch-time fields (the executable's digest read from its bytes), a snapshot of the
 * workspace, the agent run as its own process group under Steward's hooks (per-session config,
 * ADR 0017) with the charter as its prompt, its log redacted and stored in the state directory,
 * any outcome but `ok` quarantined and undone, and the dispatch finished with the rest of the
 * envelope (HEAD after, duration, exit status, outcome, log digest).
 *
 * The agent writes the audit only through `steward audit` verbs: it inherits the loop's lease
 * (`STEWARD_AUDIT_LOCK_INHERITED`) and its session id (`STEWARD_AUDIT_SESSION`), which the verbs
 * bind to the open dispatch.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as AuditStore from "@steward/audit-state/AuditStore"
import * as Project from "@steward/audit-state/Project"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import * as os from "node:os"
import * as nodePath from "node:path"
import { cannotRun } from "../../CliError.js"
import * as Install from "../../hooks/Install.js"
import * as SandboxRewrite from "../../hooks/SandboxRewrite.js"
import * as AgentCli from "./agentCli.js"
import * as AgentProcess from "./agentProcess.js"
import * as Envelope from "./envelope.js"
import * as GitState from "./gitState.js"
import * as Redact from "./redact.js"
import * as RoleAgents from "./roleAgents.js"
import * as Snapshot from "./workspaceSnapshot.js"

/**
 * What one external session needs from the loop.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly p: Project.ProjectPaths
  readonly store: AuditStore.AuditStoreShape
  readonly stateDir: string
  readonly lease: string
  readonly agent: typeof RoleAgents.ExternalAgent.Type
  readonly role: Envelope.Opened["role"]
  readonly charter: string
  readonly stateRevision: number
  readonly timeout: Duration.DurationInput
  readonly grace: Duration.DurationInput
  /** Completes when the operator runs `steward audit cancel`. */
  readonly cancel: Effect.Effect<void>
}

/**
 * How the session ended, as the loop reports it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Ended {
  readonly session: string
  readonly envelope: Envelope.Envelope
  readonly log: string
  readonly quarantine: string | null
  readonly changes: number
}

/** The command line an agent runs Steward's audit verbs with. */
const stewardCommand = (): string => {
  const run = Install.launcher()
  return [run.node, ...run.entry].map(SandboxRewrite.quote).join(" ")
}

/**
 * The prompt of an external session: the charter, and how to read and write the audit.
 *
 * @since 0.1.0
 * @category prompts
 */
export const promptFor = (role: string, charter: string, session: string, project: string): string => {
  const steward = `${stewardCommand()} audit`
  const at = `--project ${SandboxRewrite.quote(project)}`
  return [
    `You are the ${role} of this audit (xcheck's protocol). Your dispatch is session ${session}.`,
    `Your charter: <<<CHARTER>>>${charter}<<<END CHARTER>>>`,
    `Read the state with \`${steward} status ${at}\` and the audited material in this workspace.`,
    `You change the audit only through its verbs (\`${steward} --help\` lists them), each with ${at};`,
    "record-fix and record-verdict take this session from your dispatch (no --session needed).",
    "A refused verb tells you why.",
    "When your charter is done, say what you did and stop."
  ].join("\n")
}

/**
 * Paths inside the project that are not the session's workspace.
 *
 * @internal
 */
export const excludedPaths = (p: Project.ProjectPaths, stateDir: string): ReadonlyArray<string> =>
  [".git", p.audit, stateDir]
    .map((d) => nodePath.isAbsolute(d) ? nodePath.relative(p.project, d) : d)
    .filter((rel) => rel !== "" && !rel.startsWith("..") && !nodePath.isAbsolute(rel))
    .map((rel) => rel.split(nodePath.sep).join("/"))

// A crash whose log shows the provider failing is the provider's (Claude Code's `result` error,
// Codex's `error` / `turn.failed` events).
const PROVIDER_FAILURE = /"is_error"\s*:\s*true[^\n]*"result"\s*:\s*"API Error|"type"\s*:\s*"(?:turn\.failed|error)"/

const classify = (result: AgentProcess.Result, log: Uint8Array): AgentProcess.Outcome =>
  result.outcome === "crash" && result.exitStatus === 1 && PROVIDER_FAILURE.test(Buffer.from(log).toString("utf8"))
    ? "provider-error"
    : result.outcome

/** The session's commits in its quarantine bundle (`git fetch` reads it). */
const COMMITS_BUNDLE = "commits.bundle"

/**
 * After a session: the diff against its snapshot and what it moved in git, quarantined and undone
 * unless the outcome is `ok` (its commits bundled, ADR 0022); the snapshot's stored bytes are
 * removed either way.
 *
 * @internal
 */
export const settleWorkspace = (
  snapshot: Snapshot.Snapshot,
  gitBefore: GitState.GitState | undefined,
  outcome: string,
  about: { readonly p: Project.ProjectPaths; readonly session: string; readonly role: string }
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const changes = yield* Snapshot.diff(snapshot)
    const gitAfter = gitBefore === undefined ? undefined : yield* GitState.capture(gitBefore.root)
    const moved = gitBefore === undefined || gitAfter === undefined ? undefined : GitState.moved(gitBefore, gitAfter)
    let quarantine: string | null = null
    if (outcome !== "ok" && (changes.length > 0 || moved !== undefined)) {
      quarantine = nodePath.join(about.p.audit, "quarantine", about.session)
      const bundled = gitBefore !== undefined && moved !== undefined &&
        (yield* GitState.bundle(gitBefore, moved, nodePath.join(quarantine, COMMITS_BUNDLE)))
      yield* Snapshot.quarantine(snapshot, changes, quarantine, {
        session: about.session,
        role: about.role,
        outcome,
        git: moved === undefined ? null : { ...moved, bundle: bundled ? COMMITS_BUNDLE : null }
      })
      if (gitBefore !== undefined && moved !== undefined) yield* GitState.restore(gitBefore, moved)
      yield* Snapshot.restore(snapshot, changes)
    }
    yield* fs.remove(snapshot.blobs, { recursive: true }).pipe(Effect.ignore)
    return {
      changes: changes.length + (moved === undefined ? 0 : moved.refs.length + (moved.index ? 1 : 0)),
      quarantine
    }
  })

const storeFailure = (e: { readonly code: string; readonly message: string }) => cannotRun(e.code, e.message)

/**
 * Run one session on an external agent and record it (the dispatch is always finished once it
 * was opened, whatever the agent did).
 *
 * @since 0.1.0
 * @category sessions
 */
export const run = Effect.fn("ExternalSession.run")(function*(input: Input) {
  const fs = yield* FileSystem.FileSystem
  const agents = yield* AgentProcess.AgentProcess
  const { p } = input
  const executable = yield* RoleAgents.locate(input.agent, process.env["PATH"] ?? "")
  if (executable === undefined) {
    return yield* cannotRun(
      "not-found",
      `the ${input.role}'s agent ${input.agent.agent} (${
        input.agent.executable ?? RoleAgents.binaryName(input.agent.agent)
      }) is not an executable file on PATH; install it or set extensions.audit.agents.${input.role.toLowerCase()} in the profile`
    )
  }
  const session = randomBytes(8).toString("hex")
  const sessionDir = nodePath.join(input.stateDir, "audit-sessions", session)
  const prompt = promptFor(input.role, input.charter, session, p.project)
  const launch = yield* AgentCli.prepare({
    agent: input.agent,
    sessionDir,
    workspace: p.project,
    stateDir: input.stateDir,
    operatorEnv: process.env,
    operatorHome: os.homedir()
  })
  const opened = yield* Envelope.open({
    agent: input.agent,
    executable,
    role: input.role,
    charter: input.charter,
    prompt,
    stateRevision: input.stateRevision,
    headBefore: Project.subjectHead(p.project) ?? "unknown",
    sessionId: session,
    sandboxProfile: launch.sandboxProfile
  }).pipe(Effect.mapError((e) => cannotRun("io", e.message)))
  yield* input.store.openDispatch({
    role: input.role,
    executable,
    charter: input.charter,
    prompt,
    sessionId: session,
    agentModel: opened.agent_model,
    provider: opened.provider,
    executableVersion: opened.executable_version,
    sandboxProfile: opened.sandbox_profile,
    headBefore: opened.head_before
  }).pipe(Effect.mapError(storeFailure))
  const env: Record<string, string> = {
    ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    ...launch.env,
    STEWARD_AUDIT_SESSION: session,
    STEWARD_AUDIT_LOCK_INHERITED: input.lease,
    STEWARD_AUDIT_PROJECT: p.project
  }
  const ran = yield* Effect.gen(function*() {
    const gitBefore = yield* GitState.capture(p.project)
    const snapshot = yield* Snapshot.take(
      p.project,
      excludedPaths(p, input.stateDir),
      nodePath.join(sessionDir, "snapshot")
    )
    const result = yield* agents.run({
      executable,
      args: launch.args,
      cwd: p.project,
      env,
      prompt,
      timeout: input.timeout,
      grace: input.grace,
      exitOutcomes: launch.exitOutcomes,
      cancel: input.cancel
    }).pipe(
      Effect.mapError((e) => cannotRun(e.code, e.message)),
      // the loop itself is stopped (Ctrl-C): the group is already killed; the session is undone
      // and its dispatch finished as cancelled before the loop lets go
      Effect.onInterrupt(() =>
        settleWorkspace(snapshot, gitBefore, "cancelled", { p, session, role: input.role }).pipe(
          Effect.zipRight(input.store.finishDispatch({
            sessionId: session,
            outcome: "cancelled",
            note: "the loop was interrupted while the session ran; its changes were quarantined and undone"
          })),
          Effect.ignore
        )
      )
    )
    const log = Redact.redact(result.log, env)
    const logFile = nodePath.join(sessionDir, "session.log")
    yield* fs.writeFile(logFile, log).pipe(Effect.mapError((e) => cannotRun("io", e.message)))
    const outcome = classify(result, log)
    // HEAD after is the session's, read before a quarantine puts it back
    const headAfter = Project.subjectHead(p.project) ?? "unknown"
    const { changes, quarantine } = yield* settleWorkspace(snapshot, gitBefore, outcome, {
      p,
      session,
      role: input.role
    })
    const envelope = Envelope.finish(opened, { ...result, outcome }, headAfter, log)
    return { session, envelope, log: logFile, quarantine, changes } satisfies Ended
  }).pipe(
    // the dispatch was opened: whatever failed after, it is finished as a crash saying what
    Effect.tapError((e) =>
      input.store.finishDispatch({ sessionId: session, outcome: "crash", note: e.message }).pipe(Effect.ignore)
    )
  )
  yield* input.store.finishDispatch({
    sessionId: session,
    outcome: ran.envelope.outcome,
    exitStatus: ran.envelope.exit_status ?? undefined,
    durationS: ran.envelope.duration_s,
    headAfter: ran.envelope.head_after,
    logDigest: ran.envelope.log_digest,
    note: ran.quarantine === null
      ? `log ${ran.log}`
      : `log ${ran.log}; ${ran.changes} change(s) quarantined in ${nodePath.relative(p.project, ran.quarantine)}`
  }).pipe(Effect.mapError(storeFailure))
  return ran
})
