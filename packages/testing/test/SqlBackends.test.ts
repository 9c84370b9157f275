import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as SqlBackends from "../src/SqlBackends.js"

for (const backend of SqlBackends.all) {
  describe.skipIf(backend.skip !== undefined)(`${backend.name} test backend ${backend.skip ?? ""}`, () => {
    it.live("each layer build is a fresh, empty database; bigint columns read back as numbers", () =>
      Effect.gen(function*() {
        const write = Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE t (n BIGINT NOT NULL)`
          yield* sql`INSERT INTO t (n) VALUES (${1_700_000_000_123})`
          return yield* sql<{ n: number; c: number }>`SELECT n, (SELECT COUNT(*) FROM t) AS c FROM t`
        })
        const first = yield* write.pipe(Effect.provide(backend.layer()))
        assert.deepStrictEqual(first, [{ n: 1_700_000_000_123, c: 1 }])
        // a second build starts empty: the table does not exist yet, so creating it succeeds again
        const second = yield* write.pipe(Effect.provide(backend.layer()))
        assert.deepStrictEqual(second, [{ n: 1_700_000_000_123, c: 1 }])
      }))
  })
}
