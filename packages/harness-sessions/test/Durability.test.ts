import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as EventStore from "../src/EventStore.js"
import type { HarnessError } from "../src/HarnessError.js"
import * as ScriptedModel from "../src/ScriptedModel.js"
import * as Session from "../src/Session.js"
import * as Tools from "../src/Tools.js"
import { script, workspace } from "./support/env.js"

const repoRoot = path.resolve(__dirname, "../../..")
const tsx = path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")

// The long call finishes only when it runs the second time (after the resume).
const LONG = "test -f marker && echo resumed || (touch marker && sleep 60)"
const turns = script({ toolCalls: [{ name: "shell", input: { command: LONG } }] }, { text: "Finished." })

const sqlLayer = (file: string, offsets: ScriptedModel.Offsets) =>
  Session.layer().pipe(
    Layer.provideMerge(Layer.mergeAll(
      EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: file }))),
      ScriptedModel.layerFromText(turns, offsets),
      NodeContext.layer,
      FetchHttpClient.layer,
      Tools.layerAskUserUnavailable
    )),
    Layer.orDie
  )

interface Row {
  readonly seq: number
  readonly run: string
  readonly type: string
  readonly data: string
}

/** Run raw SQL against the file (what another process would see on disk). */
const onFile = <A>(file: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(SqliteClient.layer({ filename: file })), Effect.orDie)

const rows = (file: string) =>
  onFile(file, (sql) => sql<Row>`SELECT seq, run, type, data FROM harness_events ORDER BY session, seq`)

/** Start the child, wait until the long shell call is in flight, then kill -9 it. */
const killMidRun = (file: string, ws: string, id: string) =>
  Effect.async<void>((resume) => {
    const child: ChildProcess = spawn(process.execPath, [
      "--import",
      tsx,
      path.join(__dirname, "support/child.ts"),
      file,
      ws,
      id,
      turns
    ], {
      cwd: path.resolve(__dirname, ".."),
      stdio: ["ignore", "ignore", "pipe"],
      // a short lease, so the parent takes the killed child's session over soon (ADR 0558)
      env: { ...process.env, STEWARD_SESSION_LEASE: "1 second" }
    })
    let stderr = ""
    child.stderr!.on("data", (d) => (stderr += String(d)))
    const timer = setInterval(() => {
      if (!fs.existsSync(path.join(ws, "marker"))) return
      clearInterval(timer)
      child.kill("SIGKILL")
      child.on("close", () => resume(Effect.void))
    }, 50)
    child.on("exit", (code) => {
      if (code !== null) {
        clearInterval(timer)
        resume(Effect.die(new Error(`child exited ${code}: ${stderr}`)))
      }
    })
  })

/** Retry while the killed owner's lease is live (`BUSY`), until it expires. */
const untilFree = <A, R>(effect: Effect.Effect<A, HarnessError, R>) =>
  Effect.retry(effect, { while: (e) => e.code === "BUSY", schedule: Schedule.spaced("100 millis"), times: 100 })

describe("Session durability (SQLite, kill -9)", () => {
  it.live(
    "kill -9 mid-run, then resume: no committed event is lost, the run completes, the chain verifies",
    () =>
      Effect.gen(function*() {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-kill-"))
        const file = path.join(dir, "steward.sqlite")
        const ws = workspace()
        yield* killMidRun(file, ws, "k1")
        // What the killed process had committed.
        const before = yield* rows(file)
        assert.isTrue(before.some((r) => r.type === "tool.call"), JSON.stringify(before))
        assert.isFalse(before.some((r) => r.type === "run.settle"))
        const outcome = yield* Effect.gen(function*() {
          const sessions = yield* Session.Sessions
          const resumed = yield* untilFree(sessions.resume("k1"))
          const verified = yield* sessions.verify("k1")
          return { resumed, verified }
        }).pipe(Effect.provide(sqlLayer(file, { agent: 1 })))
        assert.strictEqual(outcome.resumed.status, "completed")
        assert.isTrue(outcome.verified.verified, JSON.stringify(outcome.verified))
        const after = yield* rows(file)
        assert.deepStrictEqual(after.slice(0, before.length), before)
        assert.deepStrictEqual(after.map((r) => r.seq), after.map((_, i) => i + 1))
        const result = after.find((r) => r.type === "tool.result")!
        assert.include(JSON.parse(result.data).output, "resumed")
        assert.strictEqual(after.filter((r) => r.type === "tool.call").length, 1)
      }),
    60_000
  )

  it.live(
    "a reopened session settles the killed run interrupted{aborted} with a checkpoint; verify fails on a tampered row",
    () =>
      Effect.gen(function*() {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-kill-"))
        const file = path.join(dir, "steward.sqlite")
        const ws = workspace()
        yield* killMidRun(file, ws, "k2")
        const view = yield* Effect.gen(function*() {
          const sessions = yield* Session.Sessions
          return yield* untilFree(sessions.reopen("k2"))
        }).pipe(Effect.provide(sqlLayer(file, { agent: 1 })))
        assert.deepStrictEqual(view.runs.map((r) => [r.status, r.code]), [["interrupted", "aborted"]])
        assert.strictEqual(view.runs[0]!.checkpoint!.asked, "Do the long thing")
        const verify = () =>
          Effect.gen(function*() {
            const sessions = yield* Session.Sessions
            return yield* sessions.verify("k2")
          }).pipe(Effect.provide(sqlLayer(file, {})))
        assert.isTrue((yield* verify()).verified)
        const [original] = yield* onFile(file, (sql) =>
          sql<{ data: string }>`SELECT data FROM harness_events WHERE session = 'k2' AND seq = 2`)
        const forged = JSON.stringify({ role: "user", text: "something else" })
        yield* onFile(file, (sql) =>
          sql`UPDATE harness_events SET data = ${forged} WHERE session = 'k2' AND seq = 2`)
        const tampered = yield* verify()
        assert.isFalse(tampered.verified)
        assert.strictEqual((tampered as { revision: number }).revision, 1)
        // Restored, it verifies again; a tampered receipt row is found as well.
        yield* onFile(file, (sql) =>
          sql`UPDATE harness_events SET data = ${original!.data} WHERE session = 'k2' AND seq = 2`)
        assert.isTrue((yield* verify()).verified)
        yield* onFile(file, (sql) =>
          sql`UPDATE harness_receipts SET record = replace(record, '"aborted"', '"completed"')`)
        const receipt = yield* verify()
        assert.isFalse(receipt.verified)
        assert.strictEqual((receipt as { revision: number }).revision, 1)
      }),
    60_000
  )
})
