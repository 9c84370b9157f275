/**
 * `steward audit loop [--step] [--max-sessions N] (--script FILE | --model PROVIDER:MODEL | --agents)`:
 * xcheck's main job. Under the project's lease, each `next` that names a session opens a dispatch,
 * runs the session — as a governed harness session whose only writes are the audit verbs (see
 * `tools.ts`), or with `--agents` on its role's agent CLI (`externalSession.ts`, ADR 0018) — and
 * finishes the dispatch with the session's outcome — until the next decision
 * needs the person (printed with what they must decide; exit 0), `--step` ran its one session,
 * `--max-sessions` is reached, or sessions stop making progress. A session that fails exits 1.
 *
 * A scripted model (`--script`) is JSONL of harness turns, each tagged with the `role` whose
 * sessions it answers; a later `loop` resumes each role's script where the stored sessions left it.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as AuditStore from "@steward/audit-state/AuditStore"
import * as Decision from "@steward/audit-state/Decision"
import type * as Project from "@steward/audit-state/Project"
import * as State from "@steward/audit-state/State"
import * as EventStore from "@steward/harness-sessions/EventStore"
import * as Providers from "@steward/harness-sessions/Providers"
import * as ScriptedModel from "@steward/harness-sessions/ScriptedModel"
import * as Console from "effect/Console"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as nodePath from "node:path"
import { cannotRun, NegativeResult } from "../../CliError.js"
import * as HostConfig from "../../HostConfig.js"
import * as HostSql from "../../HostSql.js"
import * as ScriptFile from "../../internal/scriptFile.js"
import * as Output from "../../Output.js"
import * as StateDir from "../../StateDir.js"
import * as AgentProcess from "./agentProcess.js"
import type * as Envelope from "./envelope.js"
import * as ExternalSession from "./externalSession.js"
import {
  type HarnessChoice,
  harnessFailure,
  type ModelChoice,
  parseScript,
  runHarnessSession,
  type SessionLine
} from "./harnessSession.js"
import * as Lease from "./lease.js"
import type { LoopOptions } from "./loopCommand.js"
import { resolveProject } from "./options.js"
import { statusPayload } from "./read.js"
import * as RoleAgents from "./roleAgents.js"
import { withStore } from "./store.js"

/** What the person must decide at a gate, and the command they type. */
const stopFor = (d: Decision.Decision): string => {
  const ids = Array.isArray(d.detail) ? (d.detail as ReadonlyArray<string>) : []
  switch (d.kind) {
    case "stop-triage":
      return [
        `the person triages ${ids.join(", ")}: for each, \`steward audit set-status ID accepted\``,
        "(or rejected, or deferred), then runs `steward audit loop` again"
      ].join(" ")
    case "run-planner":
      return "the audit has no plan: write audit/AUDIT.md and run `steward audit migrate`, or queue passes " +
        "(`steward audit update-catalog`, `steward audit queue-pass`), then run `steward audit loop` again"
    case "done":
    case "done-deferred-debt":
      return "nothing to decide: the audit is complete"
    default:
      return "the person decides as the line above says, then runs `steward audit loop` again"
  }
}

/** How long an external session may run, and the grace between SIGTERM and SIGKILL (seconds). */
interface Limits {
  readonly timeout: number
  readonly grace: number
}

/** A session that did not end well: the loop stops and says why (exit 1). */
interface Ran {
  readonly line: SessionLine
  readonly failure: { readonly stop: string; readonly detail: string } | undefined
}

/** Run one dispatched session on its role's agent. */
const runSession = (
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  events: Context.Context<EventStore.EventStore>,
  ctx: { readonly choice: ModelChoice; readonly lease: string; readonly stateDir: string; readonly limits: Limits },
  decision: Decision.Decision,
  revision: number
) =>
  Effect.gen(function*() {
    const { choice } = ctx
    const rc = Decision.roleAndCharter(decision)
    const construal = decision.kind === "run-construal" ? (decision.detail as ReadonlyArray<string>) : undefined
    const role = rc?.role ?? construal![0]!
    const mapped = choice._tag === "Agents" ? choice.map[role.toLowerCase() as RoleAgents.Role].agent : undefined
    if (mapped === undefined || mapped.agent === "steward") {
      const harness: HarnessChoice = mapped === undefined
        ? choice as HarnessChoice
        : { _tag: "Model", spec: mapped.model }
      const cancel = Effect.provide(Lease.cancelRequested(p), yield* Effect.context<FileSystem.FileSystem>())
      const ran = yield* runHarnessSession(p, store, events, harness, ctx.lease, decision, revision, {
        stateDir: ctx.stateDir,
        cancel
      })
      const transcript = `\`steward session show ${ran.line.session}\` has its transcript`
      return {
        line: ran.line,
        failure: ran.outcome === undefined
          ? {
            stop: `stop: ${role} session on the built-in harness ended cancelled; nothing it changed was applied`,
            detail: [
              ran.quarantine === null
                ? "it changed nothing in the workspace"
                : `its changes are in ${nodePath.relative(p.project, ran.quarantine)}/ (manifest.json)`,
              transcript
            ].join("; ")
          }
          : ran.outcome.status === "failed"
          ? {
            stop: `stop: ${role} session failed (${ran.outcome.code}): ${ran.outcome.reason ?? "no reason given"}`,
            detail: transcript
          }
          : undefined
      } satisfies Ran
    }
    const ended = yield* ExternalSession.run({
      p,
      store,
      stateDir: ctx.stateDir,
      lease: ctx.lease,
      agent: mapped,
      role: role as Envelope.Opened["role"],
      charter: rc?.charter ?? construal![1]!,
      stateRevision: revision,
      timeout: `${ctx.limits.timeout} seconds`,
      grace: `${ctx.limits.grace} seconds`,
      cancel: Effect.provide(Lease.cancelRequested(p), yield* Effect.context<FileSystem.FileSystem>())
    })
    const outcome = ended.envelope.outcome
    const after = yield* store.load.pipe(Effect.mapError((e) => cannotRun(e.code, e.message)))
    return {
      line: {
        n: 0,
        role,
        charter: rc?.charter ?? construal![1]!,
        dispatch: ended.session,
        session: ended.session,
        agent: mapped.agent,
        status: outcome,
        code: null,
        revision: [revision, after.state_revision] as const
      },
      failure: outcome === "ok" ? undefined : {
        stop: `stop: ${role} session on ${mapped.agent} ended ${outcome} (exit status ${
          ended.envelope.exit_status ?? "none"
        }); nothing it changed was applied`,
        detail: [
          ended.quarantine === null
            ? "it changed nothing in the workspace"
            : `its changes are in ${nodePath.relative(p.project, ended.quarantine)}/ (manifest.json)`,
          `its redacted log: ${ended.log}`
        ].join("; ")
      }
    } satisfies Ran
  })

const renderLine = (l: SessionLine): string =>
  `session ${l.n}: ${l.role} (${l.charter}) — dispatch ${l.dispatch}, ${
    l.agent === undefined ? `harness session ${l.session} settled` : `${l.agent} session ended`
  } ${l.status}${l.code === null ? "" : `{${l.code}}`}; state revision ${l.revision[0]} -> ${l.revision[1]}`

/** A loop-control number from orchestrator.conf (`max_sessions`, `loop_progress_limit`). */
const confNumber = (p: Project.ProjectPaths, key: string, fallback: number) =>
  Effect.gen(function*() {
    const text = yield* Lease.confText(p)
    const m = new RegExp(`^\\s*${key}\\s*[=:]\\s*(\\S+)`, "m").exec(text.replace(/#.*$/gm, ""))
    if (m === null) return fallback
    if (!/^\d+$/.test(m[1]!)) {
      return yield* cannotRun("invalid-input", `orchestrator.conf: ${key} must be a whole number, found '${m[1]}'`)
    }
    return Number(m[1])
  })

/** The role map from the operator's profile; a role key in the project is refused (exit 2). */
const loadRoleMap = (p: Project.ProjectPaths, state: StateDir.ResolvedStateDir) =>
  Effect.gen(function*() {
    const profile = yield* HostConfig.load(state)
    return yield* RoleAgents.load({
      profile: profile.config.extensions.audit,
      profileFile: state.configFile,
      conf: yield* Lease.confText(p),
      confFile: p.conf
    }).pipe(
      Effect.mapError((e) =>
        cannotRun(e.code === "invalid-profile" ? "invalid-config" : "invalid-input", e.message, {
          file: e.file,
          ...(e.key === undefined ? {} : { key: e.key })
        })
      )
    )
  })

interface LoopArgs {
  readonly json: boolean
  readonly stateDir: Option.Option<string>
  readonly project: Option.Option<string>
  readonly step: boolean
  readonly maxSessions: Option.Option<number>
  /** `undefined`: each role on its agent from the role map. */
  readonly choice: HarnessChoice | undefined
}

const loopBody = (a: LoopArgs) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(a.project)
    const maxSessions = Option.getOrUndefined(a.maxSessions) ?? (yield* confNumber(p, "max_sessions", 20))
    const progressLimit = yield* confNumber(p, "loop_progress_limit", 2)
    const state = yield* StateDir.open(a.stateDir)
    // the role map is the operator's, never the subject's: a role key in audit/ stops the loop here
    const map = yield* loadRoleMap(p, state)
    const choice: ModelChoice = a.choice ?? { _tag: "Agents", map }
    const limits = {
      timeout: yield* confNumber(p, "session_timeout", 1800),
      grace: yield* confNumber(p, "session_grace", 10)
    }
    return yield* withStore(p, false, (store) =>
      Effect.scoped(Effect.gen(function*() {
        const lease = yield* Effect.acquireRelease(Lease.acquire(p, "orchestrator"), (nonce) => Lease.release(p, nonce))
        const ttl = yield* Lease.leaseTtl(p)
        yield* Effect.forkScoped(
          Lease.beat(p).pipe(
            Effect.ignore,
            Effect.repeat(Schedule.spaced(`${Math.max(10, Math.floor(ttl / 3))} seconds`))
          )
        )
        const base = yield* Layer.build(EventStore.layerSql.pipe(Layer.provideMerge(HostSql.layer(state))))
        const session = { choice, lease, stateDir: state.path, limits }
        const lines: Array<SessionLine> = []
        let stall = 0
        let last: { readonly kind: string; readonly digest: string } | undefined
        while (true) {
          const { decision, doc } = yield* statusPayload(p, store)
          const runnable = decision.kind.startsWith("run-") && decision.kind !== "run-planner"
          const stop = (reason: string, detail: string, failed = false) =>
            Effect.succeed({
              sessions: lines,
              stop: reason,
              detail,
              failed,
              decision,
              state_revision: doc.state_revision
            })
          if (!runnable) {
            yield* store.recordGate(decision, { dryRun: false })
            return yield* stop(Decision.describe(decision), stopFor(decision))
          }
          if (lines.length >= maxSessions) {
            return yield* stop(
              `stop: max_sessions=${maxSessions} reached (cost cap)`,
              `the next decision is ${Decision.describe(decision)}`
            )
          }
          if (lines.length > 0 && a.step) {
            return yield* stop(
              `step: one session ran; next: ${Decision.describe(decision)}`,
              "run `steward audit loop` to continue"
            )
          }
          const digest = State.progressDigest(doc)
          stall = last === undefined ? 0 : last.digest === digest && last.kind === decision.kind ? stall + 1 : 0
          if (progressLimit > 0 && stall >= progressLimit) {
            return yield* stop(
              `stop: no progress — ${stall} session(s) in a row left the state unchanged on ${decision.kind}`,
              "the person looks at the sessions (`steward session show ID`) before running the loop again"
            )
          }
          last = { kind: decision.kind, digest }
          yield* Output.progress(a.json, `running ${decision.kind} (${lines.length + 1}/${maxSessions})…`)
          const ran = yield* runSession(p, store, base, session, decision, doc.state_revision)
          const line = { ...ran.line, n: lines.length + 1 }
          lines.push(line)
          if (!a.json) yield* Console.log(renderLine(line))
          if (ran.failure !== undefined) return yield* stop(ran.failure.stop, ran.failure.detail, true)
        }
      })).pipe(Effect.catchTag("HarnessError", (e) => Effect.fail(harnessFailure(e)))))
  })

/**
 * Run `steward audit loop` with its parsed options (loaded by `loopCommand.ts` when `loop` runs).
 *
 * @since 0.1.0
 * @category commands
 */
export const run = (a: LoopOptions) =>
  Effect.gen(function*() {
    if ([Option.isSome(a.script), Option.isSome(a.model), a.agents].filter(Boolean).length !== 1) {
      return yield* cannotRun(
        "usage",
        "give exactly one of --script FILE or --model PROVIDER:MODEL (every role on the built-in harness), " +
          "or --agents (each role on its agent from the profile's role map)"
      )
    }
    const max = Option.getOrUndefined(a.maxSessions)
    if (max !== undefined && (max < 0 || max > 10000)) {
      return yield* cannotRun("usage", `--max-sessions must be between 0 and 10000, got ${max}`, {
        option: "--max-sessions"
      })
    }
    let choice: HarnessChoice | undefined
    if (Option.isSome(a.model)) {
      yield* Effect.mapError(Providers.parseSpec(a.model.value), harnessFailure)
      choice = { _tag: "Model", spec: a.model.value }
    } else if (Option.isSome(a.script)) {
      const file = nodePath.resolve(a.script.value)
      const text = yield* ScriptFile.read(file)
      const byRole = yield* parseScript(text, file)
      for (const [role, turns] of Object.entries(byRole)) {
        yield* Effect.mapError(ScriptedModel.parse(turns, `${file} (${role})`), harnessFailure)
      }
      choice = { _tag: "Script", file, byRole }
    }
    const result = yield* loopBody({ ...a, choice }).pipe(Effect.provide(AgentProcess.layer))
    yield* Output.result(a.json, result, (r) => [r.stop, r.detail].join("\n"))
    if (result.failed) return yield* new NegativeResult({ reason: result.stop })
  })
