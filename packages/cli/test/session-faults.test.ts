/**
 * Faults named (issue 34 item 5) through the CLI: a refused `--goal` writes nothing; a damaged
 * event row makes `verify` exit 1 `mismatch` naming the session and the seq; a read-only state
 * directory still lists, shows, prints and verifies; a full disk is `storage` naming the file.
 */
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const setup = (...turns: ReadonlyArray<unknown>) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-faults-")))
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws)
  const script = path.join(dir, "script.jsonl")
  fs.writeFileSync(script, turns.map((t) => JSON.stringify(t)).join("\n"))
  const state = path.join(dir, "state")
  fs.mkdirSync(state)
  return { dir, ws, script, state }
}

const onDb = <A>(state: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(SqliteClient.layer({ filename: path.join(state, "steward.sqlite") })),
    Effect.orDie
  )

const run = (t: ReturnType<typeof setup>, ...extra: ReadonlyArray<string>) =>
  runCli(["session", "run", "--state-dir", t.state, "--script", t.script, "--workspace", t.ws, "--json", ...extra])

describe("steward session: faults named", () => {
  it.live("a refused --goal writes nothing: no session is left behind", () =>
    Effect.gen(function*() {
      const t = setup({ text: "x" })
      const refused = yield* run(t, "--goal", "g".repeat(5000), "Do it")
      assert.strictEqual(refused.exitCode, 1, refused.stderr)
      assert.strictEqual(refused.errorJson().error.code, "refused")
      assert.include(refused.errorJson().error.message, "at most 4000")
      const list = yield* runCli(["session", "list", "--state-dir", t.state, "--json"])
      assert.deepStrictEqual(list.json(), [])
    }))

  it.live("a damaged event row: verify exits 1 mismatch naming the session and the seq", () =>
    Effect.gen(function*() {
      const t = setup({ text: "One." })
      const id = (yield* run(t, "First")).outcome().session
      yield* onDb(t.state, (sql) => sql`UPDATE harness_events SET data = '{not json' WHERE session = ${id} AND seq = 3`)
      const verify = yield* runCli(["session", "verify", "--state-dir", t.state, "--json", id])
      assert.strictEqual(verify.exitCode, 1, verify.stderr)
      const doc = verify.json()
      assert.deepStrictEqual([doc.verified, doc.seq], [false, 3])
      assert.include(doc.reason, `session ${id}: the stored event seq 3 is damaged`)
      assert.notInclude(doc.reason, "\n")
      assert.strictEqual(verify.errorJson().error.code, "mismatch")
      const human = yield* runCli(["session", "verify", "--state-dir", t.state, id])
      assert.strictEqual(human.exitCode, 1)
      assert.include(human.stdout, "seq 3 is damaged")
    }))

  it.live("a read-only state directory: list, show, events and verify work and change nothing", () =>
    Effect.gen(function*() {
      const t = setup({ text: "One." })
      const id = (yield* run(t, "First")).outcome().session
      const db = path.join(t.state, "steward.sqlite")
      const before = fs.readFileSync(db)
      fs.chmodSync(t.state, 0o555)
      try {
        const list = yield* runCli(["session", "list", "--state-dir", t.state, "--json"])
        assert.strictEqual(list.exitCode, 0, list.stderr)
        assert.deepStrictEqual(list.json().map((s: any) => s.id), [id])
        const show = yield* runCli(["session", "show", "--state-dir", t.state, id])
        assert.strictEqual(show.exitCode, 0, show.stderr)
        const events = yield* runCli(["session", "events", "--state-dir", t.state, "--json", id])
        assert.strictEqual(events.exitCode, 0, events.stderr)
        assert.strictEqual(events.events().at(-1).type, "run.settle")
        const verify = yield* runCli(["session", "verify", "--state-dir", t.state, id])
        assert.strictEqual(verify.exitCode, 0, verify.stderr)
        // a command that writes is still refused, naming the directory
        const write = yield* run(t, "Second")
        assert.strictEqual(write.exitCode, 2)
        assert.strictEqual(write.errorJson().error.code, "state-dir")
      } finally {
        fs.chmodSync(t.state, 0o755)
      }
      assert.isTrue(fs.readFileSync(db).equals(before), "the database file is unchanged")
    }))

  // A small tmpfs where root may mount one (the library test simulates SQLITE_FULL everywhere).
  it.live("a full disk: the run fails storage, naming the file whose disk is full", () =>
    Effect.gen(function*() {
      const big = "z".repeat(4000)
      const t = setup(
        ...Array.from(
          { length: 400 },
          (_, i) => ({ toolCalls: [{ name: "write", input: { path: `f${i}.txt`, content: big } }] })
        ),
        { text: "Done." }
      )
      const mnt = path.join(t.dir, "small")
      fs.mkdirSync(mnt)
      try {
        execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt], { stdio: "ignore" })
      } catch {
        return // not allowed to mount here: covered by harness-sessions' simulated SQLITE_FULL
      }
      try {
        const full = yield* runCli([
          "session",
          "run",
          "--state-dir",
          mnt,
          "--script",
          t.script,
          "--workspace",
          t.ws,
          "--json",
          "Fill it"
        ])
        assert.strictEqual(full.exitCode, 2, full.stdout)
        const error = full.errorJson().error
        assert.strictEqual(error.code, "storage", JSON.stringify(error))
        assert.include(error.message, `the disk holding ${path.join(mnt, "steward.sqlite")} is full`)
      } finally {
        execFileSync("umount", ["-l", mnt])
      }
    }), 120_000)
})
