/**
 * The host database's durability setting (issue 38 item 2, ADR 0565): SQLite in WAL with
 * `synchronous = NORMAL` by default, `FULL` on request (`STEWARD_SQLITE_SYNCHRONOUS`), anything
 * else refused as invalid input naming the values. The kill -9 suites (session-owner,
 * multihost-kill) run on this setting.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as HostSql from "../src/HostSql.js"

const file = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "steward-sync-")), "steward.sqlite")

const settings = (env: ReadonlyArray<readonly [string, string]>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [sync] = yield* sql<{ synchronous: number }>`PRAGMA synchronous`
    const [journal] = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
    return { synchronous: sync!.synchronous, journal: journal!.journal_mode }
  }).pipe(
    Effect.provide(
      HostSql.layerFile(file()).pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(env)))))
    )
  )

describe("the host SQLite database's synchronous setting", () => {
  it.effect("NORMAL in WAL by default; FULL on request", () =>
    Effect.gen(function*() {
      // SQLite's numbers: 1 = NORMAL, 2 = FULL
      assert.deepStrictEqual(yield* settings([]), { synchronous: 1, journal: "wal" })
      assert.deepStrictEqual(yield* settings([["STEWARD_SQLITE_SYNCHRONOUS", "FULL"]]), {
        synchronous: 2,
        journal: "wal"
      })
    }))

  it.effect("any other value is invalid input naming the choices", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(settings([["STEWARD_SQLITE_SYNCHRONOUS", "OFF"]]))
      assert.strictEqual("code" in error ? error.code : error._tag, "invalid-input")
      assert.include(error.message, "STEWARD_SQLITE_SYNCHRONOUS")
      assert.include(error.message, "NORMAL or FULL")
    }))
})
