/**
 * ADR 0114: a store another process opens trusts the rows its last validated write sealed, and
 * anything that changed the tables since — a row, an event line, a dispatch key — unseals it, so
 * the next open validates and verifies everything again (SQLite and PostgreSQL).
 */
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Effect, Layer } from "effect"
import * as AuditStore from "../src/AuditStore.js"
import * as Events from "../src/Events.js"
import * as Json from "../src/internal/json.js"
import { harness } from "./helpers.js"

const clients = [
  { name: "SQLite", skip: undefined, layer: () => SqliteClient.layer({ filename: ":memory:" }) },
  { name: "PostgreSQL", skip: SqlBackends.postgresSkipReason, layer: () => SqlBackends.postgresLayer() }
] as const

/** A fresh engine (an empty snapshot cache, as in a new process) over the same database. */
const opened = <A, E>(body: (store: AuditStore.AuditStoreShape) => Effect.Effect<A, E>) =>
  Effect.flatMap(AuditStore.AuditStore, body).pipe(Effect.provide(Layer.orDie(AuditStore.layerSql)))

const seal = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ gen: number; sealed: number }>`SELECT gen, sealed FROM audit_state_seal WHERE id = 1`
).pipe(Effect.map((rows) => Number(rows[0]!.gen) === Number(rows[0]!.sealed)), Effect.orDie)

for (const backend of clients) {
  describe.skipIf(backend.skip !== undefined)(`the store's seal (${backend.name})`, () => {
    const run = <A, E>(body: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      Effect.scoped(Effect.flatMap(Layer.build(backend.layer()), (ctx) => Effect.provide(body, ctx)))

    it.live("every validated write seals; a fresh process reads the sealed state unchanged", () =>
      run(Effect.gen(function*() {
        yield* opened((s) => s.importState(harness()))
        assert.isTrue(yield* seal, "import seals")
        const applied = yield* opened((s) => s.apply({ verb: "set-status", id: "F-0001", status: "accepted" }))
        assert.isTrue(yield* seal, "a commit seals")
        yield* opened((s) => Effect.flip(s.apply({ verb: "set-status", id: "F-0001", status: "closed" })))
        assert.isTrue(yield* seal, "a refused verb's lease pair seals")
        const again = yield* opened((s) =>
          Effect.all({ doc: s.load, text: s.exportState, stream: s.streamStatus, events: s.exportEvents })
        )
        assert.strictEqual(again.doc.state_revision, applied.revision)
        assert.strictEqual(again.stream.state, "intact")
        const [first] = yield* opened((s) => Effect.all([s.exportState, s.exportEvents]))
        assert.strictEqual(first, again.text)
        // the sealed document is frozen like a validated one: the next commit changes one row
        const next = yield* opened((s) => s.apply({ verb: "set-status", id: "F-0001", status: "validated" }))
        assert.strictEqual(next.revision, applied.revision + 1)
      })))

    it.live("a sealed stream's events read as the verified stream's, float spellings included (ADR 0140)", () =>
      run(Effect.gen(function*() {
        // legacy (unchained) lines with an integral float and a float-looking string, then chained ones
        const legacy = [
          {
            ts: "2026-01-01T00:00:00Z",
            event: "session_finished",
            session_id: "S-1",
            duration_s: new Json.PyFloat(12)
          },
          { ts: "2026-01-01T00:00:01Z", event: "gate_reached", session_id: null, gate: "g", detail: "ratio 3:1.5" }
        ].map((e) => Json.dumpsCompact(e, true) + "\n").join("")
        yield* opened((s) => s.importState(harness(), legacy))
        yield* opened((s) => s.apply({ verb: "set-status", id: "F-0001", status: "accepted" }))
        yield* opened((s) => Effect.flip(s.apply({ verb: "set-status", id: "F-0001", status: "closed" })))
        assert.isTrue(yield* seal)
        const lines = (yield* opened((s) => s.exportEvents)).split("\n").filter((l) => l !== "")
        const verified = Events.verify(lines)
        if (Events.isDefect(verified)) return assert.fail(verified.message)
        const read = yield* opened((s) => s.events)
        assert.deepStrictEqual(read, verified.events)
        assert.instanceOf((read[0] as unknown as { duration_s: unknown }).duration_s, Json.PyFloat)
        // unsealed, the same events come from the verified path
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE audit_state_seal SET sealed = gen - 1 WHERE id = 1`.pipe(Effect.orDie)
        assert.deepStrictEqual(yield* opened((s) => s.events), verified.events)
      })))

    it.live("a row changed outside the store unseals it: the next open validates and refuses", () =>
      run(Effect.gen(function*() {
        yield* opened((s) => s.importState(harness()))
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE audit_state_rows SET doc = replace(doc, '"major"', '"huge"')
          WHERE collection = 'findings'`.pipe(Effect.orDie)
        assert.isFalse(yield* seal)
        const e = yield* opened((s) => Effect.flip(s.load))
        assert.strictEqual(e.code, "invalid-state")
        assert.include(e.message, "huge")
      })))

    it.live("an event line rewritten outside the store unseals it: the next write finds the broken chain", () =>
      run(Effect.gen(function*() {
        yield* opened((s) => s.importState(harness()))
        yield* opened((s) => s.apply({ verb: "set-status", id: "F-0001", status: "accepted" }))
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE audit_state_events SET line = replace(line, 'accepted', 'rejected') WHERE seq = 1`.pipe(
          Effect.orDie
        )
        assert.isFalse(yield* seal)
        const e = yield* opened((s) => Effect.flip(s.apply({ verb: "set-status", id: "F-0001", status: "validated" })))
        assert.strictEqual(e.code, "ledger")
        assert.include(e.message, "(broken)")
        assert.strictEqual((yield* opened((s) => s.streamStatus)).state, "broken")
      })))
  })
}
