/**
 * Several hosts opening one fresh PostgreSQL database at once all run the host migrations: the
 * migrator's check-then-create of its own table races between connections, and the loser must
 * retry rather than fail the command with "cannot migrate" (ADR 0600).
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Effect } from "effect"
import { migrate } from "../src/HostSql.js"

describe.skipIf(SqlBackends.postgresSkipReason !== undefined)("host migrations on PostgreSQL", () => {
  it.scoped("eight pools migrating one fresh database at once all succeed; one of them applies the migrations", () =>
    Effect.gen(function*() {
      const applied = yield* SqlBackends.migrateConcurrently(migrate, 8)
      assert.strictEqual(applied.length, 8)
      assert.strictEqual(applied.filter((ids) => ids.length > 0).length, 1)
    }))
})
