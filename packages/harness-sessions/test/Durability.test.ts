import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
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

// A side-effecting call killed between its decision and its result: it appends to runs.log, so
// a second run of it would show; its shell's pid is kept to show it does not outlive the harness.
const LONG = "echo ran >> runs.log && echo $$ > sh.pid && touch marker && sleep 61.25"
const turns = script({ toolCalls: [{ name: "shell", input: { command: LONG } }] }, { text: "Finished." })
// A read-only call (the gate allows `cat` at the read_only level) blocked on a FIFO.
const READ = script({ toolCalls: [{ name: "shell", input: { command: "cat gate.fifo" } }] }, { text: "Read it." })

/** Whether a process runs (a zombie left for a reaper does not). */
const alive = (pid: number): boolean => {
  try {
    return !fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").startsWith("Z")
  } catch {
    return false
  }
}

const sqlLayer = (file: string, offsets: ScriptedModel.Offsets, text = turns) =>
  Session.layer().pipe(
    Layer.provideMerge(Layer.mergeAll(
      EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: file }))),
      ScriptedModel.layerFromText(text, offsets),
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

/** Start the child, wait until the long shell call is in flight (`ready`), then kill -9 it. */
const killMidRun = (
  file: string,
  ws: string,
  id: string,
  text = turns,
  ready = () => fs.existsSync(path.join(ws, "marker"))
) =>
  Effect.async<void>((resume) => {
    const child: ChildProcess = spawn(process.execPath, [
      "--import",
      tsx,
      path.join(__dirname, "support/child.ts"),
      file,
      ws,
      id,
      text
    ], {
      cwd: path.resolve(__dirname, ".."),
      stdio: ["ignore", "ignore", "pipe"],
      // a short lease, so the parent takes the killed child's session over soon (ADR 0558)
      env: { ...process.env, STEWARD_SESSION_LEASE: "1 second" }
    })
    let stderr = ""
    child.stderr!.on("data", (d) => (stderr += String(d)))
    const timer = setInterval(() => {
      if (!ready()) return
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
    "kill -9 between a call's decision and its result, then resume: not run again, the model reads outcome unknown, no orphan",
    () =>
      Effect.gen(function*() {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-kill-"))
        const file = path.join(dir, "steward.sqlite")
        const ws = workspace()
        yield* killMidRun(file, ws, "k1")
        // The killed harness's command dies with it (its supervisor kills the process group).
        const shell = Number(fs.readFileSync(path.join(ws, "sh.pid"), "utf8"))
        for (let i = 0; i < 100 && alive(shell); i++) yield* Effect.sleep("50 millis")
        assert.isFalse(alive(shell), "the killed harness's tool process is gone")
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
        // The transcript says what was reused and what is unknown; the call ran once.
        const notice = JSON.parse(after.find((r) => r.type === "notice")!.data)
        assert.strictEqual(notice.cause, "resume")
        assert.isAbove(notice.reused, 0)
        const result = JSON.parse(after.find((r) => r.type === "tool.result")!.data)
        assert.strictEqual(result.outcome, "unknown")
        assert.include(result.output, "outcome unknown")
        assert.strictEqual(fs.readFileSync(path.join(ws, "runs.log"), "utf8"), "ran\n")
        assert.strictEqual(after.filter((r) => r.type === "tool.call").length, 1)
      }),
    90_000
  )

  it.live(
    "a read-only call killed between its decision and its result runs again on resume",
    () =>
      Effect.gen(function*() {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-kill-"))
        const file = path.join(dir, "steward.sqlite")
        const ws = workspace()
        const fifo = path.join(ws, "gate.fifo")
        execFileSync("mkfifo", [fifo])
        // In flight once `cat` holds the FIFO open for reading (a non-blocking writer can open it).
        let writer: number | undefined
        const reading = () => {
          try {
            writer ??= fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)
            return true
          } catch {
            return false
          }
        }
        yield* killMidRun(file, ws, "k3", READ, reading)
        fs.closeSync(writer!)
        // The re-run `cat` reads what a writer waiting on the FIFO sends.
        const feeder = spawn("sh", ["-c", "echo again > gate.fifo"], { cwd: ws })
        const outcome = yield* Effect.gen(function*() {
          const sessions = yield* Session.Sessions
          return yield* untilFree(sessions.resume("k3"))
        }).pipe(Effect.provide(sqlLayer(file, { agent: 1 }, READ)))
        feeder.kill()
        assert.strictEqual(outcome.status, "completed")
        const result = JSON.parse((yield* rows(file)).find((r) => r.type === "tool.result")!.data)
        assert.strictEqual(result.outcome, "rerun")
        assert.include(result.output, "again")
      }),
    90_000
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

describe("a store written before migration 0003 (ADR 0577)", () => {
  it.live(
    "is migrated: last_seq dropped on SQLite, the next run continues the seqs and the session verifies",
    () =>
      Effect.gen(function*() {
        const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "harness-migrate-")), "steward.sqlite")
        const ws = workspace()
        const text = script({ text: "First." }, { text: "Second." })
        const runOnce = (prompt: string, offsets: ScriptedModel.Offsets) =>
          Effect.gen(function*() {
            const sessions = yield* Session.Sessions
            if (offsets.agent === undefined) yield* sessions.create({ id: "m1", workspace: ws, level: "execute" })
            return yield* sessions.run("m1", prompt)
          }).pipe(Effect.provide(sqlLayer(file, offsets, text)))
        assert.strictEqual((yield* runOnce("one", {})).status, "completed")
        // Back to the previous schema: the session row's `last_seq` column, kept equal to its events.
        const before = yield* onFile(file, (sql) =>
          Effect.gen(function*() {
            yield* sql`ALTER TABLE harness_sessions ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0`
            yield* sql`UPDATE harness_sessions SET last_seq =
            (SELECT MAX(seq) FROM harness_events WHERE session = harness_sessions.id)`
            yield* sql`DELETE FROM harness_sessions_migrations WHERE migration_id >= 3`
            return (yield* sql<{ n: number }>`SELECT MAX(seq) AS n FROM harness_events`)[0]!.n
          }))
        assert.strictEqual((yield* runOnce("two", { agent: 1 })).status, "completed")
        const columns = yield* onFile(
          file,
          (sql) => sql<{ name: string }>`SELECT name FROM pragma_table_info('harness_sessions')`
        )
        assert.notInclude(columns.map((c) => c.name), "last_seq")
        const seqs = (yield* rows(file)).map((r) => r.seq)
        assert.deepStrictEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1))
        assert.isAbove(seqs.length, before)
        const verified = yield* Effect.gen(function*() {
          const sessions = yield* Session.Sessions
          return yield* sessions.verify("m1")
        }).pipe(Effect.provide(sqlLayer(file, {})))
        assert.isTrue(verified.verified)
      }),
    60_000
  )
})
