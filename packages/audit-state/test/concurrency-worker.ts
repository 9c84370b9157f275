/**
 * A separate OS process issuing verbs against one SQLite file (used by Concurrency.test.ts).
 * argv: <database> <worker-name> <count>
 */
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import * as AuditStore from "../src/AuditStore.js"

const [database, name, count] = process.argv.slice(2) as [string, string, string]

const client = Layer.effectDiscard(
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("PRAGMA busy_timeout = 20000"))
).pipe(Layer.provideMerge(SqliteClient.layer({ filename: database })))

const program = Effect.gen(function*() {
  const store = yield* AuditStore.AuditStore
  const revisions: Array<number> = []
  for (let k = 0; k < Number(count); k++) {
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
  process.stdout.write(JSON.stringify(revisions))
})

Effect.runPromise(program.pipe(Effect.provide(AuditStore.layerSql.pipe(Layer.provide(client))))).catch((e) => {
  process.stderr.write(String(e))
  process.exitCode = 1
})
