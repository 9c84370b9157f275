/**
 * One `steward audit loop` session on Steward's built-in harness: the role-tagged script or the
 * real provider it runs with, the session's prompt, and its dispatch opened and finished around a
 * governed harness session whose only writes are the audit verbs (`tools.ts`).
 *
 * @since 0.1.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as AuditStore from "@steward/audit-state/AuditStore"
import * as Decision from "@steward/audit-state/Decision"
import type * as Project from "@steward/audit-state/Project"
import * as EventStore from "@steward/harness-sessions/EventStore"
import * as Goal from "@steward/harness-sessions/Goal"
import * as HarnessError from "@steward/harness-sessions/HarnessError"
import * as Providers from "@steward/harness-sessions/Providers"
import * as ScriptedModel from "@steward/harness-sessions/ScriptedModel"
import * as Session from "@steward/harness-sessions/Session"
import * as Tools from "@steward/harness-sessions/Tools"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { randomBytes } from "node:crypto"
import * as os from "node:os"
import * as nodePath from "node:path"
import { cannotRun, type CommandFailure } from "../../CliError.js"
import { excludedPaths, settleWorkspace } from "./externalSession.js"
import * as GitState from "./gitState.js"
import { LOOP_EXECUTABLE } from "./maintenance.js"
import type * as RoleAgents from "./roleAgents.js"
import * as AuditTools from "./tools.js"
import * as Snapshot from "./workspaceSnapshot.js"

/**
 * A harness failure as the CLI reports it.
 *
 * @since 0.1.0
 * @category errors
 */
export const harnessFailure = (e: HarnessError.HarnessError): CommandFailure => cannotRun(e.code, e.message)

/**
 * The loop's agents: every role on the built-in harness with a role-tagged script or one real
 * provider (`--script`, `--model`), or each role on its agent from the operator's role map (ADR 0018).
 *
 * @since 0.1.0
 * @category models
 */
export type ModelChoice =
  | { readonly _tag: "Script"; readonly file: string; readonly byRole: Readonly<Record<string, string>> }
  | { readonly _tag: "Model"; readonly spec: string }
  | { readonly _tag: "Agents"; readonly map: RoleAgents.RoleMap }

/**
 * Split a loop script into one harness script per role (each line names its `role`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseScript = (
  text: string,
  file: string
): Either.Either<Readonly<Record<string, string>>, CommandFailure> => {
  const byRole: Record<string, Array<string>> = {}
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line === "" || line.startsWith("//")) continue
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch (error) {
      return Either.left(cannotRun("invalid-input", `${file}:${i + 1}: not JSON (${(error as Error).message})`))
    }
    const role = typeof json === "object" && json !== null ? (json as { role?: unknown }).role : undefined
    if (typeof role !== "string" || !Object.hasOwn(ROLES, role)) {
      return Either.left(
        cannotRun(
          "invalid-input",
          `${file}:${i + 1}: each turn names the role it answers (role: ${Object.keys(ROLES).join(", ")})`
        )
      )
    }
    const { role: _role, ...turn } = json as Record<string, unknown>
    ;(byRole[role] ??= []).push(JSON.stringify(turn))
  }
  if (Object.keys(byRole).length === 0) {
    return Either.left(cannotRun("invalid-input", `${file}: the script has no turns`))
  }
  return Either.right(Object.fromEntries(Object.entries(byRole).map(([r, l]) => [r, l.join("\n")])))
}

// The roles a loop dispatches (the Planner's work is a Markdown plan: the person's, see `stopFor`).
const ROLES = { Auditor: 1, Remediator: 1, Verifier: 1 } as const

/** How many agent turns earlier loop sessions of `role` on this project used (script offsets). */
const usedTurns = (store: EventStore.EventStore["Type"], project: string, role: string) =>
  Effect.gen(function*() {
    let used = 0
    for (const row of yield* store.list) {
      const audit = (row.meta as { host?: { audit?: { project?: string; role?: string } } }).host?.audit
      if (audit?.project !== project || audit.role !== role) continue
      const events = yield* store.read(row.id)
      used += events.filter((e) => e.type === "model.call" && (e.data as { for?: string }).for !== "checker").length
    }
    return used
  })

const modelLayer = (choice: HarnessChoice, role: string, offset: number) =>
  choice._tag === "Model"
    ? Goal.layerChecker.pipe(Layer.provideMerge(Providers.layer(choice.spec)), Layer.provide(FetchHttpClient.layer))
    : choice.byRole[role] === undefined
    ? Layer.fail(
      new HarnessError.HarnessError({ code: "INVALID_INPUT", message: `${choice.file} has no turns for the ${role}` })
    )
    : ScriptedModel.layerFromText(choice.byRole[role], { agent: offset }, `${choice.file} (${role})`)

/** The prompt of a dispatched session. */
const promptFor = (role: string, charter: string, session: string, decision: Decision.Decision): string =>
  decision.kind === "run-construal"
    ? Decision.construalPrompt(role, charter, String((decision.detail as ReadonlyArray<string>)[3]))
    : [
      `You are the ${role} of this audit (xcheck's protocol). Your dispatch is session ${session}.`,
      `Your charter: <<<CHARTER>>>${charter}<<<END CHARTER>>>`,
      "Read the state with audit_status and the material with read. You change the audit only through the",
      "audit_* tools; a refused verb tells you why. When your charter is done, say what you did and stop."
    ].join("\n")

/** Map a harness settle to a dispatch outcome (`undefined`: the operator cancelled it). */
const dispatchOutcome = (o: Session.RunOutcome | undefined): string =>
  o === undefined
    ? "cancelled"
    : o.status === "completed"
    ? "ok"
    : o.status === "failed"
    ? o.code === "MODEL_FAILED" ? "provider-error" : "crash"
    : o.code === "aborted"
    ? "cancelled"
    : o.code === "needs_person"
    ? "blocked"
    : "stalled"

/**
 * One line of the loop's report: a session it ran.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionLine {
  readonly n: number
  readonly role: string
  readonly charter: string
  readonly dispatch: string
  readonly session: string
  /** The external agent that ran it (none: the built-in harness). */
  readonly agent?: string
  readonly status: string
  readonly code: string | null
  readonly revision: readonly [number, number]
}

/**
 * The choices the built-in harness runs a session with.
 *
 * @since 0.1.0
 * @category models
 */
export type HarnessChoice = Exclude<ModelChoice, { readonly _tag: "Agents" }>

/**
 * Where a built-in-harness session runs: the state directory its workspace snapshot goes to, and
 * what completes when the operator runs `steward audit cancel`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Guard {
  readonly stateDir: string
  readonly cancel: Effect.Effect<void>
}

/**
 * Run one dispatched session on the built-in harness and finish its dispatch. `steward audit
 * cancel` interrupts it (the run settles `aborted`, the dispatch `cancelled`) and, as for an agent
 * CLI, anything the workspace gained during a session that did not end `ok` is quarantined and
 * undone (ADR 0024).
 *
 * @since 0.1.0
 * @category sessions
 */
export const runHarnessSession = (
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  events: Context.Context<EventStore.EventStore>,
  choice: HarnessChoice,
  lease: string,
  decision: Decision.Decision,
  revision: number,
  guard: Guard
) =>
  Effect.gen(function*() {
    const rc = Decision.roleAndCharter(decision)
    const construal = decision.kind === "run-construal" ? (decision.detail as ReadonlyArray<string>) : undefined
    const role = rc?.role ?? construal![0]!
    const charter = rc?.charter ?? construal![1]!
    const modelName = choice._tag === "Model" ? choice.spec : `script:${choice.file}`
    const dispatch = randomBytes(8).toString("hex")
    const prompt = promptFor(role, charter, dispatch, decision)
    yield* store.openDispatch({
      role,
      executable: LOOP_EXECUTABLE,
      charter,
      prompt,
      sessionId: dispatch,
      agentModel: modelName,
      provider: choice._tag === "Model" ? choice.spec.split(":")[0] : "scripted"
    }).pipe(Effect.catchAll((e) => Effect.fail(cannotRun(e.code, e.message))))
    const offset = yield* usedTurns(Context.get(events, EventStore.EventStore), p.project, role)
    const platform = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
    const tools = [...AuditTools.make({ p, store, lease, session: dispatch, platform }), Tools.read]
    const gitBefore = yield* GitState.capture(p.project)
    const snapshot = yield* Snapshot.take(
      p.project,
      excludedPaths(p, guard.stateDir),
      nodePath.join(guard.stateDir, "audit-sessions", dispatch, "snapshot")
    )
    let harnessId = ""
    const outcome = yield* Effect.scoped(Effect.gen(function*() {
      const ctx = yield* Layer.build(
        Session.layer({ tools, modelName, home: os.homedir() }).pipe(
          Layer.provide(Layer.mergeAll(Layer.succeedContext(events), modelLayer(choice, role, offset)))
        )
      )
      const sessions = Context.get(ctx, Session.Sessions)
      const created = yield* sessions.create({
        workspace: p.project,
        level: "assist",
        rules: AuditTools.rules(role),
        host: { model: modelName, audit: { project: p.project, role, dispatch } }
      })
      harnessId = created.id
      // cancel wins the race: the run is interrupted and settles `aborted` (its own onInterrupt)
      return yield* Effect.raceFirst(
        sessions.run(created.id, prompt, { unattended: true }),
        Effect.as(guard.cancel, undefined)
      )
    })).pipe(
      Effect.mapError((e) => e instanceof HarnessError.HarnessError ? harnessFailure(e) : e),
      // the loop itself is stopped (Ctrl-C): the session is undone and its dispatch finished
      // cancelled before the loop lets go of the lease (as for an agent CLI, ADR 0019)
      Effect.onInterrupt(() =>
        settleWorkspace(snapshot, gitBefore, "cancelled", { p, session: dispatch, role }).pipe(
          Effect.zipRight(store.finishDispatch({
            sessionId: dispatch,
            outcome: "cancelled",
            exitStatus: 1,
            note: `harness session ${harnessId} interrupted with the loop; its changes were quarantined and undone`
          })),
          Effect.ignore
        )
      )
    )
    const status = dispatchOutcome(outcome)
    const settled = yield* settleWorkspace(snapshot, gitBefore, status, { p, session: dispatch, role })
    const finished = yield* store.finishDispatch({
      sessionId: dispatch,
      outcome: status,
      exitStatus: outcome?.status === "completed" ? 0 : 1,
      note: [
        outcome === undefined
          ? `harness session ${harnessId} cancelled by \`steward audit cancel\``
          : `harness session ${outcome.session} run ${outcome.run} settled ${outcome.status}${
            outcome.code === null ? "" : `{${outcome.code}}`
          }`,
        ...(settled.quarantine === null
          ? []
          : [`${settled.changes} change(s) quarantined in ${nodePath.relative(p.project, settled.quarantine)}`])
      ].join("; ")
    }).pipe(Effect.catchAll((e) => Effect.fail(cannotRun(e.code, e.message))))
    return {
      outcome,
      quarantine: settled.quarantine,
      line: {
        n: 0,
        role,
        charter,
        dispatch,
        session: outcome?.session ?? harnessId,
        status: outcome?.status ?? "cancelled",
        code: outcome?.code ?? null,
        revision: [revision, finished.revision] as const
      }
    }
  })
