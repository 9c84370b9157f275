/**
 * What the hooks remember between calls, in the state directory's database (its own migrations,
 * table `steward_hooks_migrations`): per agent session, the progress model's state and the turn's
 * counters (tool calls since the person last wrote, continuations made, the last settle
 * observation); and the asks waiting for `steward hooks approve`. Evidence itself goes to the
 * governance evidence log in the same database.
 *
 * @since 0.3.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Progress from "@steward/governance-rules/Progress"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"

const migrations = Migrator.fromRecord({
  "0001_hooks": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS steward_hook_sessions (
      id TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      updated_at BIGINT NOT NULL
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS steward_hook_approvals (
      id TEXT PRIMARY KEY,
      workspace TEXT NOT NULL,
      call TEXT NOT NULL,
      reason TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      approved_at BIGINT,
      used_at BIGINT
    )`
  })
})

const Sets = Schema.Array(Schema.String)

/**
 * One agent session's state (JSON in the store).
 *
 * @since 0.3.0
 * @category models
 */
export const SessionState = Schema.Struct({
  /** Tool calls since the person last wrote or Steward last continued the turn. */
  toolCalls: Schema.Int,
  /** Continuations Steward made since the person last wrote. */
  attempts: Schema.Int,
  /** The final text of the turn Steward last continued (a repeat never continues again). */
  continuedText: Schema.NullOr(Schema.String),
  /** The settle task (`hook:<client>:<session>`) and the number of settles so far. */
  stops: Schema.Int,
  /** A settle observation waiting for the person's reply (cleared when they write). */
  awaitingReply: Schema.Boolean,
  lastStopAt: Schema.NullOr(Schema.Int),
  promptAt: Schema.NullOr(Schema.Int),
  progress: Schema.Struct({
    seenPaths: Sets,
    seenContent: Sets,
    seenSymbols: Sets,
    pathDigests: Schema.Array(Schema.Tuple(Schema.String, Sets)),
    tests: Schema.Array(Schema.Tuple(Schema.String, Schema.Boolean)),
    exitPattern: Schema.NullOr(Schema.String),
    errorClasses: Sets,
    taskState: Schema.NullOr(Schema.String),
    idle: Schema.Int,
    nudged: Schema.Boolean
  })
})

/**
 * @since 0.3.0
 * @category models
 */
export type SessionState = typeof SessionState.Type

const fromProgress = (p: Progress.ProgressState): SessionState["progress"] => ({
  seenPaths: [...p.seenPaths],
  seenContent: [...p.seenContent],
  seenSymbols: [...p.seenSymbols],
  pathDigests: [...p.pathDigests].map(([k, v]) => [k, [...v]] as const),
  tests: [...p.tests],
  exitPattern: p.exitPattern,
  errorClasses: [...p.errorClasses],
  taskState: p.taskState,
  idle: p.idle,
  nudged: p.nudged
})

/**
 * The progress model's state of a session.
 *
 * @since 0.3.0
 * @category models
 */
export const toProgress = (p: SessionState["progress"]): Progress.ProgressState => ({
  seenPaths: new Set(p.seenPaths),
  seenContent: new Set(p.seenContent),
  seenSymbols: new Set(p.seenSymbols),
  pathDigests: new Map(p.pathDigests.map(([k, v]) => [k, new Set(v)])),
  tests: new Map(p.tests),
  exitPattern: p.exitPattern,
  errorClasses: new Set(p.errorClasses),
  taskState: p.taskState,
  idle: p.idle,
  nudged: p.nudged
})

/**
 * @since 0.3.0
 * @category constructors
 */
export const emptySession: SessionState = {
  toolCalls: 0,
  attempts: 0,
  continuedText: null,
  stops: 0,
  awaitingReply: false,
  lastStopAt: null,
  promptAt: null,
  progress: fromProgress(Progress.empty)
}

/**
 * @since 0.3.0
 * @category constructors
 */
export const withProgress = (state: SessionState, progress: Progress.ProgressState): SessionState => ({
  ...state,
  progress: fromProgress(progress)
})

/**
 * An ask waiting for (or given) the person's approval.
 *
 * @since 0.3.0
 * @category models
 */
export interface Approval {
  readonly id: string
  readonly workspace: string
  readonly call: string
  readonly reason: string
  readonly createdAt: number
  readonly approvedAt: number | null
  readonly usedAt: number | null
}

const ApprovalRow = Schema.Struct({
  id: Schema.String,
  workspace: Schema.String,
  call: Schema.String,
  reason: Schema.String,
  created_at: Schema.Union(Schema.Number, Schema.NumberFromString),
  approved_at: Schema.NullOr(Schema.Union(Schema.Number, Schema.NumberFromString)),
  used_at: Schema.NullOr(Schema.Union(Schema.Number, Schema.NumberFromString))
})

const decodeState = Schema.decodeUnknown(Schema.parseJson(SessionState))
const decodeApprovals = Schema.decodeUnknown(Schema.Array(ApprovalRow))

/**
 * The id of an ask: the workspace and the exact call, hashed (the same call asks under the same id).
 *
 * @since 0.3.0
 * @category utils
 */
export const approvalId = (workspace: string, call: string): string =>
  crypto.createHash("sha256").update(`steward-hook-approval\0${workspace}\0${call}`).digest("hex").slice(0, 12)

/**
 * The store service.
 *
 * @since 0.3.0
 * @category tags
 */
export class HookStore extends Context.Tag("@steward/cli/HookStore")<HookStore, {
  /** Read-modify-write one session's state in a transaction. */
  readonly update: <A>(
    session: string,
    f: (state: SessionState) => Effect.Effect<readonly [A, SessionState]>
  ) => Effect.Effect<A, HookStoreError>
  readonly ask: (workspace: string, call: string, reason: string) => Effect.Effect<Approval, HookStoreError>
  /** Use an approval of this exact call once (true when one was waiting). */
  readonly consume: (workspace: string, call: string) => Effect.Effect<boolean, HookStoreError>
  readonly approve: (id: string) => Effect.Effect<Approval | undefined, HookStoreError>
  readonly approvals: Effect.Effect<ReadonlyArray<Approval>, HookStoreError>
}>() {}

/**
 * @since 0.3.0
 * @category errors
 */
export class HookStoreError extends Schema.TaggedError<HookStoreError>()("HookStoreError", {
  message: Schema.String
}) {}

const failed = (what: string) => (e: { readonly message: string }) =>
  new HookStoreError({ message: `hook store: ${what}: ${e.message}` })

const toApproval = (r: typeof ApprovalRow.Type): Approval => ({
  id: r.id,
  workspace: r.workspace,
  call: r.call,
  reason: r.reason,
  createdAt: r.created_at,
  approvedAt: r.approved_at,
  usedAt: r.used_at
})

/**
 * The store over the abstract `SqlClient` (runs its migrations first).
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Migrator.make({})({ loader: migrations, table: "steward_hooks_migrations" }).pipe(
    Effect.mapError(failed("migration"))
  )
  const byId = (id: string) =>
    sql`SELECT * FROM steward_hook_approvals WHERE id = ${id}`.pipe(
      Effect.flatMap(decodeApprovals),
      Effect.map((rows) => (rows[0] === undefined ? undefined : toApproval(rows[0]))),
      Effect.mapError(failed("reading an approval"))
    )
  return HookStore.of({
    update: (session, f) =>
      sql.withTransaction(Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        // Write first: the row exists and this transaction holds the write lock before it reads,
        // so concurrent hooks of one session (parallel tool calls) never lose an update.
        yield* sql`INSERT INTO steward_hook_sessions (id, state, updated_at)
          VALUES (${session}, ${JSON.stringify(emptySession)}, ${now}) ON CONFLICT (id) DO NOTHING`
        const rows = yield* sql.onDialectOrElse({
          pg: () => sql<{ state: string }>`SELECT state FROM steward_hook_sessions WHERE id = ${session} FOR UPDATE`,
          orElse: () => sql<{ state: string }>`SELECT state FROM steward_hook_sessions WHERE id = ${session}`
        })
        const state = rows[0] === undefined ? emptySession : yield* decodeState(rows[0].state)
        const [result, next] = yield* f(state)
        yield* sql`UPDATE steward_hook_sessions SET state = ${JSON.stringify(next)}, updated_at = ${now}
          WHERE id = ${session}`
        return result
      })).pipe(Effect.mapError(failed(`session ${session}`))),
    ask: (workspace, call, reason) =>
      Effect.gen(function*() {
        const id = approvalId(workspace, call)
        const now = yield* Clock.currentTimeMillis
        const existing = yield* byId(id)
        if (existing === undefined || existing.usedAt !== null) {
          yield* sql`DELETE FROM steward_hook_approvals WHERE id = ${id}`
          yield* sql`INSERT INTO steward_hook_approvals (id, workspace, call, reason, created_at)
            VALUES (${id}, ${workspace}, ${call}, ${reason}, ${now})`
        }
        return (yield* byId(id))!
      }).pipe(Effect.mapError(failed("recording an ask"))),
    consume: (workspace, call) =>
      Effect.gen(function*() {
        const id = approvalId(workspace, call)
        const now = yield* Clock.currentTimeMillis
        const found = yield* byId(id)
        if (found === undefined || found.approvedAt === null || found.usedAt !== null) return false
        yield* sql`UPDATE steward_hook_approvals SET used_at = ${now} WHERE id = ${id}`
        return true
      }).pipe(Effect.mapError(failed("using an approval"))),
    approve: (id) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const found = yield* byId(id)
        if (found === undefined) return undefined
        yield* sql`UPDATE steward_hook_approvals SET approved_at = ${now}, used_at = NULL WHERE id = ${id}`
        return yield* byId(id)
      }).pipe(Effect.mapError(failed("approving"))),
    approvals: sql`SELECT * FROM steward_hook_approvals ORDER BY created_at DESC`.pipe(
      Effect.flatMap(decodeApprovals),
      Effect.map((rows) => rows.map(toApproval)),
      Effect.mapError(failed("listing approvals"))
    )
  })
})

/**
 * @since 0.3.0
 * @category layers
 */
export const layer: Layer.Layer<HookStore, HookStoreError, SqlClient.SqlClient> = Layer.effect(HookStore, make)
