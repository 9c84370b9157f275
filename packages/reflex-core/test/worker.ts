/**
 * A child process for the concurrency test: decides and labels against one SQLite ledger file.
 * Usage: node --import tsx test/worker.ts FILE NAME COUNT
 */
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import * as Reflexes from "../src/Reflexes.js"
import * as ReflexLedger from "../src/ReflexLedger.js"

const [file, name, count] = process.argv.slice(2) as [string, string, string]

const sqlite = Layer.effectDiscard(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe("PRAGMA busy_timeout = 15000")
  })
).pipe(Layer.provideMerge(SqliteClient.layer({ filename: file })))

const program = Effect.gen(function*() {
  const reflexes = yield* Reflexes.Reflexes
  for (let i = 0; i < Number(count); i++) {
    const subject = `${name}-${i}`
    const text = i % 2 === 0 ? "Parser updated. Next, I'll wire the CLI:" : "All tests pass; the PR is merged."
    const d = yield* reflexes.decide("settle", { text, toolCalls: 40 }, { subject })
    if (d.skipped) return yield* Effect.die("skipped")
    yield* reflexes.reply(i % 2 === 0 ? "keep going" : "now write the docs", subject)
  }
})

Effect.runPromise(
  program.pipe(Effect.provide(Reflexes.layer().pipe(Layer.provide(ReflexLedger.layerSql), Layer.provide(sqlite))))
).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(String(error) + "\n")
    process.exit(1)
  }
)
