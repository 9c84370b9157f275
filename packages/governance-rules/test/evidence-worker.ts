/**
 * A separate OS process appending evidence (used by EvidenceConcurrency.test.ts).
 * argv: <sqlite-file | postgres-url> <worker-name> <count>
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Redacted } from "effect"
import * as Evidence from "../src/Evidence.js"

const [database, name, count] = process.argv.slice(2) as [string, string, string]

const client: Layer.Layer<SqlClient.SqlClient, unknown> = database.startsWith("postgres")
  ? PgClient.layer({ url: Redacted.make(database) })
  : Layer.effectDiscard(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("PRAGMA busy_timeout = 20000"))).pipe(
    Layer.provideMerge(SqliteClient.layer({ filename: database }))
  )

const program = Effect.gen(function*() {
  const log = yield* Evidence.EvidenceLog
  const seqs: Array<number> = []
  for (let k = 0; k < Number(count); k++) {
    const event = yield* log.append({ kind: "note", runId: name, data: { worker: name, k } })
    seqs.push(event.seq)
  }
  process.stdout.write(JSON.stringify(seqs))
})

Effect.runPromise(program.pipe(Effect.provide(Evidence.layerSql.pipe(Layer.provide(client))))).then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(String(e))
    process.exit(1)
  }
)
