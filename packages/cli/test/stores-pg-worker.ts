/**
 * A separate OS process writing to one shared database (used by the multihost-*.test.ts suites).
 * argv: <mode> <sqlite-file | postgres-url> <worker-name> <count> [session]
 *
 * - `events`: `count` commits of three events each to `session`; prints the seqs it was given.
 * - `audit`: `count` catalog verbs, and every fifth one a contested `set-status F-0001 accepted`
 *   (only one process in the whole run can win it); prints revisions, wins and refusal codes.
 * - `bigcommit`: one commit of `count` events to `session`; prints `ready` just before it starts
 *   and `committed` after (the kill test SIGKILLs it in between).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as AuditStore from "@steward/audit-state/AuditStore"
import * as Event from "@steward/harness-sessions/Event"
import * as EventStore from "@steward/harness-sessions/EventStore"
import { Effect, Layer, Redacted } from "effect"

const [mode, database, name, count, session] = process.argv.slice(2) as [string, string, string, string, string]
const n = Number(count)

const client: Layer.Layer<SqlClient.SqlClient, unknown> = database.startsWith("postgres")
  ? PgClient.layer({ url: Redacted.make(database), maxConnections: 2 })
  : Layer.effectDiscard(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("PRAGMA busy_timeout = 30000"))).pipe(
    Layer.provideMerge(SqliteClient.layer({ filename: database }))
  )

const say = (line: string) => Effect.sync(() => process.stdout.write(line + "\n"))

const events = Effect.gen(function*() {
  const store = yield* EventStore.EventStore
  const seqs: Array<number> = []
  for (let k = 0; k < n; k++) {
    const written = yield* store.commit(session, {
      events: [0, 1, 2].map((i) => Event.make(name, "note", { worker: name, k, i }))
    })
    seqs.push(...written.map((e) => e.seq))
  }
  yield* say(JSON.stringify(seqs))
}).pipe(Effect.provide(EventStore.layerSql.pipe(Layer.provide(client))))

const audit = Effect.gen(function*() {
  const store = yield* AuditStore.AuditStore
  const revisions: Array<number> = []
  const refused: Array<string> = []
  let won = 0
  for (let k = 0; k < n; k++) {
    if (k % 5 === 0) {
      const contested = yield* Effect.either(store.apply({ verb: "set-status", id: "F-0001", status: "accepted" }))
      if (contested._tag === "Right") {
        won++
        revisions.push(contested.right.revision)
      } else {
        refused.push(contested.left.code)
      }
    }
    const applied = yield* store.apply({
      verb: "update-catalog",
      kind: "unit",
      key: `U-${name}-${k}`,
      material: `m${k}`,
      size: "1",
      responsibility: name
    })
    revisions.push(applied.revision)
  }
  yield* say(JSON.stringify({ revisions, won, refused }))
}).pipe(Effect.provide(AuditStore.layerSql.pipe(Layer.provide(client))))

const bigcommit = Effect.gen(function*() {
  const store = yield* EventStore.EventStore
  const batch = Array.from({ length: n }, (_, k) => Event.make(name, "note", { k, pad: "x".repeat(64) }))
  yield* say("ready")
  yield* store.commit(session, { events: batch })
  yield* say("committed")
}).pipe(Effect.provide(EventStore.layerSql.pipe(Layer.provide(client))))

const program = mode === "events" ? events : mode === "audit" ? audit : mode === "bigcommit" ? bigcommit : Effect.die(
  new Error(`unknown mode ${mode}`)
)

Effect.runPromise(program as Effect.Effect<void, unknown>).then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(String(e))
    process.exit(1)
  }
)
