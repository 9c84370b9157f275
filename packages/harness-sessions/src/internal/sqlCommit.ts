/**
 * One commit of the SQL store: one transaction that renews the writer's lease, bumps the
 * session's `last_seq` and writes the events, step and revision together — on SQLite, when it is
 * only events and steps under a fresh lease, one statement instead (ADR 0582). A lost connection is
 * retried within the reconnect window (ADR 0562); when it is lost at the COMMIT itself the outcome
 * is unknown, so the commit is read back (the events at the seqs it took, or its step or revision)
 * before anything is tried again: a commit that landed is never written twice, one that did not
 * is written again, and one that cannot be read back stays a typed failure — never a retry.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Event from "../Event.js"
import type * as EventStore from "../EventStore.js"
import { HarnessError } from "../HarnessError.js"
import * as FrozenJson from "./frozenJson.js"
import * as Reconnect from "./reconnect.js"
import * as Rows from "./rows.js"
import type * as SqlLease from "./sqlLease.js"

/** The COMMIT statement failed: whether the transaction landed is not known yet. */
export class CommitUnknown extends Data.TaggedError("CommitUnknown")<{ readonly error: SqlError.SqlError }> {}

const isSqlError = (u: unknown): u is SqlError.SqlError =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "SqlError"

/**
 * `body` in one transaction. A statement's failure is kept: when SQLite has rolled the transaction
 * back itself (after SQLITE_FULL), the ROLLBACK fails and would report only that. A failure of
 * the COMMIT (which `withTransaction` turns into a defect) is `CommitUnknown`.
 */
export const transaction = (sql: SqlClient.SqlClient) =>
<A, E, R>(
  body: Effect.Effect<A, E | SqlError.SqlError, R>
): Effect.Effect<A, E | SqlError.SqlError | CommitUnknown, Exclude<R, SqlClient.TransactionConnection>> =>
  Effect.suspend(() => {
    let first: SqlError.SqlError | undefined
    let finished = false
    return body.pipe(
      Effect.tapError((error) => Effect.sync(() => void (isSqlError(error) ? (first ??= error) : undefined))),
      Effect.tap(() => Effect.sync(() => void (finished = true))),
      sql.withTransaction,
      // `withTransaction` provides its connection (`onConnection`) to the body.
      (self) => self as Effect.Effect<A, E | SqlError.SqlError, Exclude<R, SqlClient.TransactionConnection>>,
      Effect.catchAllDefect((defect) => {
        if (first !== undefined) return Effect.fail(first)
        if (!isSqlError(defect)) return Effect.die(defect)
        return Effect.fail(finished ? new CommitUnknown({ error: defect }) : defect)
      })
    )
  })

/**
 * `body` with a runner of statements on the transaction's own connection: each statement compiled
 * by the client (its dialect's placeholders and names) and executed directly, without the
 * per-statement span, scope and connection lookup of a client statement (issue 38: those cost
 * more than SQLite executing it). Rows come back untransformed, as the store's SQL names them.
 * Only inside `transaction`, which provides the connection.
 */
const onConnection = <A, E, R>(
  body: (
    run: (statement: Statement.Statement<unknown>) => Effect.Effect<ReadonlyArray<any>, SqlError.SqlError>
  ) => Effect.Effect<A, E, R>
) =>
  Effect.flatMap(SqlClient.TransactionConnection, ([connection]) =>
    body((statement) => {
      const [text, params] = statement.compile()
      return connection.execute(text, params, undefined)
    }))

// Rows per INSERT: 6 parameters each stays well under every engine's parameter limit.
const BATCH = 500

/**
 * SQLite: one INSERT that numbers `rows` after the session's last event (`MAX(seq)`, the events'
 * key) and writes them only when the session exists (and `fence` holds); the seqs it took. One
 * statement, so it takes the writer lock before it reads the last seq (ADR 0577). The last seq is
 * a scalar subquery, read once from the key's last entry: as a joined subquery (`FROM v, (SELECT
 * COALESCE(MAX(seq), 0) …)`) SQLite materialized it without its min/max shortcut and walked
 * every event of the session on every commit (ADR 0579).
 */
export const append = (
  sql: SqlClient.SqlClient,
  id: string,
  at: number,
  rows: ReadonlyArray<{ readonly run: string | null; readonly type: string; readonly data: string }>,
  fence: Statement.Fragment
) =>
  sql`WITH v(k, run, type, data) AS (VALUES ${
    sql.unsafe(rows.map(() => "(?, ?, ?, ?)").join(", "), rows.flatMap((r, k) => [k + 1, r.run, r.type, r.data]))
  })
  INSERT INTO harness_events (session, seq, at, run, type, data)
  SELECT ${id}, COALESCE((SELECT MAX(seq) FROM harness_events WHERE session = ${id}), 0) + k, ${at}, run, type, data
  FROM v
  WHERE EXISTS (SELECT 1 FROM harness_sessions WHERE id = ${id}) ${fence}
  ORDER BY k RETURNING seq`

const json = (value: unknown): string => JSON.stringify(value ?? null)

/**
 * SQLite (migration 0005, ADR 0582): the view a commit of events and steps is inserted into, one
 * row per event (`step` NULL) or step (`step` its index, `data` its result), and the trigger that
 * writes each row where it belongs. One INSERT is one statement, and SQLite runs a statement
 * atomically: every row is written or none. A row whose session is missing, or whose `owner` (the
 * lease fence) no longer holds the session's lease, aborts the whole statement.
 */
export const commitRowsSchema: ReadonlyArray<string> = [
  `CREATE VIEW IF NOT EXISTS harness_commit_rows (session, owner, at, run, type, data, step) AS
    SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0`,
  `CREATE TRIGGER IF NOT EXISTS harness_commit_rows_insert INSTEAD OF INSERT ON harness_commit_rows BEGIN
    SELECT RAISE(ABORT, 'harness commit refused: no session')
      WHERE NOT EXISTS (SELECT 1 FROM harness_sessions WHERE id = NEW.session);
    SELECT RAISE(ABORT, 'harness commit refused: lease not held')
      WHERE NEW.owner IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM harness_leases WHERE session = NEW.session AND owner = NEW.owner);
    INSERT INTO harness_events (session, seq, at, run, type, data)
      SELECT NEW.session, COALESCE((SELECT MAX(seq) FROM harness_events WHERE session = NEW.session), 0) + 1,
        NEW.at, NEW.run, NEW.type, NEW.data
      WHERE NEW.step IS NULL;
    INSERT INTO harness_steps (session, run, idx, result)
      SELECT NEW.session, NEW.run, NEW.step, NEW.data
      WHERE NEW.step IS NOT NULL;
  END`
]

// Rows in one commit statement: 7 parameters each, well under SQLite's parameter limit. A larger
// commit (a long deferred run) takes the transaction.
const SINGLE_ROWS = 200

/** The statement was refused by the commit trigger (no session, or a lost lease). */
const isRefused = (error: unknown): boolean => {
  for (let e: unknown = error, i = 0; i < 8 && typeof e === "object" && e !== null; i++) {
    if (String((e as { message?: unknown }).message ?? "").includes("harness commit refused")) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

/**
 * SQLite: `rows` (events and steps, in order) as one INSERT into `harness_commit_rows`. Each row
 * returns the session's last seq after its trigger ran, so the highest is the last event's seq.
 */
export const commitRows = (
  sql: SqlClient.SqlClient,
  id: string,
  owner: string | null,
  at: number,
  rows: ReadonlyArray<
    { readonly run: string | null; readonly type: string | null; readonly data: string; readonly step: number | null }
  >
) =>
  sql<{ top: unknown }>`INSERT INTO harness_commit_rows (session, owner, at, run, type, data, step) VALUES ${
    sql.unsafe(
      rows.map(() => "(?, ?, ?, ?, ?, ?, ?)").join(", "),
      rows.flatMap((r) => [id, owner, at, r.run, r.type, r.data, r.step])
    )
  } RETURNING (SELECT MAX(seq) FROM harness_events WHERE session = harness_commit_rows.session) AS top`

/** What a commit needs of its store. */
export interface Deps {
  readonly sql: SqlClient.SqlClient
  readonly renewLease: (
    id: string,
    owner: EventStore.Owner,
    now: number,
    take: boolean
  ) => Effect.Effect<unknown, HarnessError | SqlError.SqlError>
  readonly renewals: SqlLease.Renewals
  readonly now: Effect.Effect<number>
  readonly window: Duration.Duration
  readonly failed: (what: string) => (error: { readonly message: string }) => HarnessError
  /** SQLite: `last_seq` is not stored; a commit numbers its events from the events' key (ADR 0577). */
  readonly appendOnly: boolean
}

// What one attempt wrote, to recognise it when the COMMIT's outcome is unknown.
interface Written {
  readonly first: number
  readonly data: ReadonlyArray<string>
  readonly events: ReadonlyArray<Event.SessionEvent>
}

/** Commit `commit` to session `id`; the events as stored. */
export const commit = (deps: Deps) => (id: string, commit: EventStore.Commit) => {
  const { sql } = deps
  const n = commit.events.length
  const data = commit.events.map((e) => FrozenJson.text(e.data) ?? "null")
  const once = Effect.suspend(() => {
    let written: Written | undefined
    let renewed: number | undefined
    const body = onConnection((run) =>
      Effect.gen(function*() {
        const at = commit.at ?? (yield* deps.now)
        const { owner } = commit
        const now = yield* deps.now
        // The lease first: the writer lock is taken by this write, and a lost lease writes nothing.
        // Renewed a moment ago, it is checked by the UPDATE below instead (ADR 0567).
        const fenced = owner !== undefined && deps.renewals.fresh(id, owner, now)
        if (owner !== undefined && !fenced) {
          yield* deps.renewLease(id, owner, now, false)
          renewed = now
        }
        const fence = fenced
          ? sql`AND EXISTS (SELECT 1 FROM harness_leases WHERE session = ${id} AND owner = ${owner.id})`
          : sql``
        // No session at all, or (fenced) the lease is no longer this writer's: the renewal says which.
        const missing = Effect.gen(function*() {
          if (fenced) yield* deps.renewLease(id, owner, now, false)
          return yield* new HarnessError({ code: "SESSION_NOT_FOUND", message: `no session ${id}` })
        })
        const rows = commit.events.map((e, i) => ({ run: e.run, type: e.type, data: data[i]! }))
        let first: number
        if (deps.appendOnly) {
          // SQLite (ADR 0577): the session's row is written only when its meta changes, or to take
          // the writer lock for a commit without events; the events' INSERT numbers them itself.
          if (commit.meta !== undefined || n === 0) {
            const touched = yield* run(
              commit.meta === undefined
                ? sql`UPDATE harness_sessions SET meta = meta WHERE id = ${id} ${fence} RETURNING id`
                : sql`UPDATE harness_sessions SET meta = ${json(commit.meta)} WHERE id = ${id} ${fence} RETURNING id`
            )
            if (touched.length === 0) return yield* missing
          }
          first = 0
          for (let i = 0; i < rows.length; i += BATCH) {
            const seqs = yield* run(append(sql, id, at, rows.slice(i, i + BATCH), fence))
            if (seqs.length === 0) return yield* missing
            if (i === 0) first = Math.min(...seqs.map((r) => Number(r["seq"])))
          }
        } else {
          // never below the session's events: a session copied in from SQLite arrives with 0
          const bump = sql`GREATEST(last_seq, (SELECT COALESCE(MAX(seq), 0) FROM harness_events WHERE session = ${id}))`
          const bumped = yield* run(
            commit.meta === undefined
              ? sql`UPDATE harness_sessions SET last_seq = ${bump} + ${n} WHERE id = ${id} ${fence} RETURNING last_seq`
              : sql`UPDATE harness_sessions SET last_seq = ${bump} + ${n}, meta = ${
                json(commit.meta)
              } WHERE id = ${id} ${fence} RETURNING last_seq`
          )
          const last = bumped[0]?.["last_seq"]
          if (typeof last !== "number") return yield* missing
          first = last - n + 1
          const numbered = rows.map((r, i) => ({ session: id, seq: first + i, at, ...r }))
          for (let i = 0; i < numbered.length; i += BATCH) {
            yield* run(sql`INSERT INTO harness_events ${sql.insert(numbered.slice(i, i + BATCH))}`)
          }
        }
        const steps = stepsOf(commit)
        if (steps.length > 0) {
          const stepRows = steps.map((s) => ({ session: id, run: s.run, idx: s.index, result: FrozenJson.stepText(s) }))
          yield* run(sql`INSERT INTO harness_steps ${sql.insert(stepRows)}`)
        }
        if (commit.revision !== undefined) yield* revise(sql, id, commit.revision)
        // Frozen data (built by `Event.redact`) cannot change and is kept as it is; other data is
        // read back from the JSON just written, as a copy the caller cannot reach.
        const events = commit.events.map((e, i) =>
          Rows.written(id, first + i, at, e, FrozenJson.isImmutable(e.data) ? e.data : JSON.parse(data[i]!))
        )
        written = { first, data, events }
        return events
      })
    )
    return transaction(sql)(body).pipe(
      Effect.catchTag("CommitUnknown", ({ error }) =>
        written === undefined || !Reconnect.isConnectionLoss(error)
          ? Effect.fail(error)
          : resolve(deps, id, commit, written, error)),
      Effect.tap(() => {
        if (renewed !== undefined && commit.owner !== undefined) deps.renewals.set(id, commit.owner.id, renewed)
      })
    )
  })
  const inTransaction = once.pipe(
    Reconnect.retrying(deps.window),
    Effect.mapError((error) => isSqlError(error) ? deps.failed("commit")(error) : error)
  )
  const steps = stepsOf(commit)
  // SQLite, events and at least one step (what a lost connection's read-back finds it by), the
  // lease (if any) fresh: one statement (ADR 0582). A commit that renews the lease, changes meta,
  // stores a revision or has no step takes the transaction.
  const single = deps.appendOnly && commit.meta === undefined && commit.revision === undefined &&
    steps.length > 0 && n + steps.length <= SINGLE_ROWS
  if (!single) return inTransaction
  return Effect.flatMap(deps.now, (now) => {
    const { owner } = commit
    if (owner !== undefined && !deps.renewals.fresh(id, owner, now)) return inTransaction
    const at = commit.at ?? now
    const stored = (first: number) =>
      commit.events.map((e, i) =>
        Rows.written(id, first + i, at, e, FrozenJson.isImmutable(e.data) ? e.data : JSON.parse(data[i]!))
      )
    const rows = [
      ...commit.events.map((e, i) => ({ run: e.run, type: e.type, data: data[i]!, step: null })),
      ...steps.map((s) => ({ run: s.run, type: null, data: FrozenJson.stepText(s), step: s.index }))
    ]
    const once = commitRows(sql, id, owner?.id ?? null, at, rows).pipe(
      Effect.map((returned) => stored(n === 0 ? 0 : Math.max(...returned.map((r) => Number(r.top))) - n + 1)),
      // Refused: the renewal says whether the lease was lost (BUSY); else the session is missing.
      Effect.catchIf(isRefused, () =>
        Effect.gen(function*() {
          if (owner !== undefined) yield* deps.renewLease(id, owner, now, false)
          return yield* new HarnessError({ code: "SESSION_NOT_FOUND", message: `no session ${id}` })
        })),
      // The connection was lost with the statement sent: read back whether it landed (ADR 0562).
      Effect.catchIf(Reconnect.isConnectionLoss, (error) =>
        landedRows(sql, id, commit, data, steps.at(-1)!).pipe(
          Reconnect.retrying(deps.window),
          Effect.mapError((readError) => unreadable(deps, readError)),
          Effect.flatMap((first) => first === undefined ? Effect.fail(error) : Effect.succeed(stored(first)))
        ))
    )
    return once.pipe(
      Reconnect.retrying(deps.window),
      Effect.mapError((error) => isSqlError(error) ? deps.failed("commit")(error) : error)
    )
  })
}

/**
 * Whether a one-statement commit landed, found by its last step (a step is stored once): `undefined`
 * when it did not; else the seq of its first event, its events being the session's last ones (a
 * statement that landed wrote them all, and the lease keeps other writers out).
 */
const landedRows = (
  sql: SqlClient.SqlClient,
  id: string,
  commit: EventStore.Commit,
  data: ReadonlyArray<string>,
  step: EventStore.Step
): Effect.Effect<number | undefined, SqlError.SqlError | HarnessError> =>
  Effect.gen(function*() {
    const found = yield* sql<{ result: unknown }>`SELECT result FROM harness_steps
      WHERE session = ${id} AND run = ${step.run} AND idx = ${step.index}`
    if (found[0]?.result !== FrozenJson.stepText(step)) return undefined
    const n = commit.events.length
    if (n === 0) return 0
    const last = yield* sql<{ seq: unknown; run: unknown; type: unknown; data: unknown }>`SELECT seq, run, type, data
      FROM harness_events WHERE session = ${id} ORDER BY seq DESC LIMIT ${n}`
    const rows = [...last].reverse()
    const same = rows.length === n && rows.every((row, i) => {
      const e = commit.events[i]!
      return row.type === e.type && (row.run ?? null) === e.run && row.data === data[i]
    })
    if (!same) {
      return yield* new HarnessError({
        code: "STORE_FAILED",
        message: `session store: commit failed: its step landed but its events are not the session's last`
      })
    }
    return Number(rows[0]!.seq)
  })

const unreadable = (deps: Deps, readError: SqlError.SqlError | HarnessError) =>
  readError instanceof HarnessError ? readError : new HarnessError({
    code: "STORE_FAILED",
    message: `session store: commit failed: the connection was lost at COMMIT and the outcome could not be read back (${
      deps.failed("read-back")(readError).message
    }); check the session with \`session verify\` before resuming`
  })

/** Every step a commit stores: its deferred ones, then its own. */
const stepsOf = (commit: EventStore.Commit): ReadonlyArray<EventStore.Step> =>
  commit.step === undefined ? commit.steps ?? [] : [...(commit.steps ?? []), commit.step]

const revise = (sql: SqlClient.SqlClient, id: string, r: EventStore.Revision) =>
  Effect.gen(function*() {
    const top = yield* sql`SELECT COALESCE(MAX(revision), 0) AS top FROM harness_receipts WHERE session = ${id}`
    if (Number(top[0]?.["top"] ?? 0) + 1 !== r.revision) {
      return yield* new HarnessError({
        code: "STORE_FAILED",
        message: `revision ${r.revision} does not follow ${String(top[0]?.["top"])}`
      })
    }
    yield* sql`INSERT INTO harness_receipts (session, revision, digest, record, payload)
            VALUES (${id}, ${r.revision}, ${r.digest}, ${json(r.record)}, ${json(r.receipt)})`
  })

// The COMMIT was sent and the connection was lost: read back whether it landed (retrying the
// read within the window). Landed: its events are the result. Not landed: the lost connection
// again, so the commit is tried anew (its lease renewal then says whether this writer still owns
// the session). Unreadable: a typed failure that is never retried, so nothing is written twice.
const resolve = (
  deps: Deps,
  id: string,
  commit: EventStore.Commit,
  written: Written,
  error: SqlError.SqlError
) =>
  landed(deps.sql, id, commit, written).pipe(
    Reconnect.retrying(deps.window),
    Effect.mapError((readError) => unreadable(deps, readError)),
    Effect.flatMap((ok) => ok ? Effect.succeed(written.events) : Effect.fail(error))
  )

/** Whether the commit `written` describes is stored: its events at its seqs, else its step or revision. */
export const landed = (
  sql: SqlClient.SqlClient,
  id: string,
  commit: EventStore.Commit,
  written: Written
): Effect.Effect<boolean, SqlError.SqlError> => {
  const n = commit.events.length
  if (n > 0) {
    return sql<{ seq: unknown; run: unknown; type: unknown; data: unknown }>`SELECT seq, run, type, data
      FROM harness_events WHERE session = ${id} AND seq >= ${written.first} AND seq < ${written.first + n}
      ORDER BY seq`.pipe(Effect.map((rows) =>
      rows.length === n && rows.every((row, i) => {
        const e = commit.events[i]!
        return Number(row.seq) === written.first + i && row.type === e.type && (row.run ?? null) === e.run &&
          row.data === written.data[i]
      })
    ))
  }
  const step = stepsOf(commit).at(-1)
  if (step !== undefined) {
    const { index, run } = step
    return sql<{ result: unknown }>`SELECT result FROM harness_steps
      WHERE session = ${id} AND run = ${run} AND idx = ${index}`.pipe(
      Effect.map((rows) => rows[0]?.result === FrozenJson.stepText(step))
    )
  }
  if (commit.revision !== undefined) {
    return sql<{ digest: unknown }>`SELECT digest FROM harness_receipts
      WHERE session = ${id} AND revision = ${commit.revision.revision}`.pipe(
      Effect.map((rows) => rows[0]?.digest === commit.revision!.digest)
    )
  }
  // A commit of meta alone: writing it again changes nothing.
  return Effect.succeed(false)
}
