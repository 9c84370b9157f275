/**
 * One owner per session (issue 34 item 1, ADR 0558), with real CLI processes on SQLite and on
 * PostgreSQL: two `continue`s at once — one drives, the other exits `busy`; a live run cannot be
 * resumed or continued from another process; after `kill -9` of the owner the session shows
 * `orphaned`, `events --follow` ends, and a `continue` takes the run over once the lease expires;
 * `approve` of a session a live owner drives exits `busy` too, and works once the owner is done.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Effect } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Ndjson from "./support/ndjson.js"
import { stewardArgv } from "./support/stewardProcess.js"

interface Ended {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const collect = (child: ChildProcess): Promise<Ended> =>
  new Promise((resolve) => {
    let stdout = ""
    let stderr = ""
    child.stdout?.on("data", (d) => void (stdout += String(d)))
    child.stderr?.on("data", (d) => void (stderr += String(d)))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

// A short lease, so a takeover after kill -9 comes soon; renewed every third of it.
const LEASE = "2 seconds"

// The winner's long call: it waits on a FIFO until the test writes to it (the resumed run finds
// the marker and goes on).
const GATED = "test -f marker && echo resumed || (touch marker && cat gate.fifo)"

const TURNS = [
  { text: "Ready." },
  { toolCalls: [{ name: "shell", input: { command: GATED } }] },
  { text: "Finished." },
  { text: "Finished again." }
]

const setup = (database: string | undefined, turns: ReadonlyArray<unknown> = TURNS) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-owner-")))
  const ws = path.join(dir, "ws")
  const state = path.join(dir, "state")
  fs.mkdirSync(ws)
  fs.mkdirSync(state)
  execFileSync("mkfifo", [path.join(ws, "gate.fifo")])
  const script = path.join(dir, "script.jsonl")
  fs.writeFileSync(
    script,
    turns.map((t) => JSON.stringify(t)).join("\n")
  )
  const db = database === undefined ? [] : ["--database-url", database]
  const start = (args: ReadonlyArray<string>) =>
    spawn(process.execPath, stewardArgv([...args, "--state-dir", state, ...db]), {
      cwd: ws,
      env: { ...process.env, STEWARD_SESSION_LEASE: LEASE },
      stdio: ["ignore", "pipe", "pipe"]
    })
  const steward = (...args: ReadonlyArray<string>) => collect(start(args))
  const marker = () => fs.existsSync(path.join(ws, "marker"))
  // Writing to the FIFO from a child process: the test's own event loop never blocks on it.
  const release = () => collect(spawn("sh", ["-c", "echo go > gate.fifo"], { cwd: ws }))
  return { ws, script, start, steward, marker, release }
}

const waitFor = async (what: string, ready: () => boolean, limit = 600) => {
  for (let i = 0; i < limit && !ready(); i++) await new Promise((r) => setTimeout(r, 50))
  assert.isTrue(ready(), `waited for ${what}`)
}

/** A session with one settled run, its id. */
const created = async (t: ReturnType<typeof setup>) => {
  const run = await t.steward("session", "run", "--script", t.script, "--workspace", t.ws, "--json", "Get ready")
  assert.strictEqual(run.code, 0, run.stderr)
  return Ndjson.outcome(run.stdout).session as string
}

const busy = (ended: Ended, id: string) => {
  assert.strictEqual(ended.code, 1, ended.stderr)
  const error = JSON.parse(ended.stderr).error
  assert.strictEqual(error.code, "busy")
  assert.match(error.message, new RegExp(`session ${id} is driven by .+ pid \\d+ .*; its lease expires at \\d{4}-`))
}

const withDatabase = (
  backend: (typeof SqlBackends.all)[number],
  body: (database: string | undefined) => Promise<void>
) =>
  backend.name === "SQLite"
    ? body(undefined)
    : Effect.runPromise(
      Effect.scoped(Effect.flatMap(SqlBackends.freshPostgresDatabase(), (url) => Effect.promise(() => body(url))))
    )

for (const backend of SqlBackends.all) {
  describe.skipIf(backend.skip !== undefined)(`one owner per session (${backend.name}) ${backend.skip ?? ""}`, () => {
    it(
      "two continues at once: exactly one drives the session, the other exits busy; verify passes",
      () =>
        withDatabase(backend, async (database) => {
          const t = setup(database)
          const id = await created(t)
          const first = collect(t.start(["session", "continue", "--json", id, "Carry on"]))
          const second = collect(t.start(["session", "continue", "--json", id, "Carry on"]))
          // The driver waits on the gate; the other one ends first.
          const loser = await Promise.race([
            first.then((e) => ["first", e] as const),
            second.then((e) => ["second", e] as const)
          ])
          busy(loser[1], id)
          await waitFor("the driver's gated call", t.marker)
          await t.release()
          const winner = await (loser[0] === "first" ? second : first)
          assert.strictEqual(winner.code, 0, winner.stderr)
          const verify = await t.steward("session", "verify", "--json", id)
          assert.strictEqual(verify.code, 0, verify.stderr)
          assert.isTrue(JSON.parse(verify.stdout).verified)
        }),
      120_000
    )

    it(
      "a live run is neither resumed nor continued by another process; show names its owner",
      () =>
        withDatabase(backend, async (database) => {
          const t = setup(database)
          const id = await created(t)
          const owner = collect(t.start(["session", "continue", "--json", id, "Carry on"]))
          await waitFor("the owner's gated call", t.marker)
          busy(await t.steward("session", "continue", "--json", id), id)
          busy(await t.steward("session", "continue", "--json", id, "Something else"), id)
          const show = await t.steward("session", "show", "--json", id)
          assert.strictEqual(show.code, 0, show.stderr)
          const view = JSON.parse(show.stdout)
          assert.isFalse(view.orphaned)
          assert.match(view.owner.id, / pid \d+ /)
          await t.release()
          assert.strictEqual((await owner).code, 0)
          const after = JSON.parse((await t.steward("session", "show", "--json", id)).stdout)
          assert.deepStrictEqual([after.owner, after.orphaned], [null, false])
          assert.strictEqual((await t.steward("session", "verify", id)).code, 0)
        }),
      120_000
    )

    it(
      "approve while another process drives the session: busy; once the owner is done, the call is answered",
      () =>
        withDatabase(backend, async (database) => {
          // the paused call, once approved, waits on the gate: its approver drives the session
          const gated = `node -e "require('fs').writeFileSync('marker','');require('fs').readFileSync('gate.fifo')"`
          const t = setup(database, [
            { toolCalls: [{ name: "shell", input: { command: gated } }] },
            { text: "Released." }
          ])
          const run = await t.steward(
            "session",
            "run",
            "--script",
            t.script,
            "--workspace",
            t.ws,
            // inline code asks only without the boundary (with it, it runs contained: ADR 0563)
            "--sandbox",
            "off",
            "--json",
            "Print"
          )
          assert.strictEqual(run.code, 0, run.stderr)
          const paused = Ndjson.outcome(run.stdout)
          assert.strictEqual(paused.status, "paused")
          const id = paused.session as string
          const owner = collect(t.start(["session", "approve", "--json", id, paused.callId]))
          await waitFor("the approved call's gate", t.marker)
          busy(await t.steward("session", "approve", "--json", id, paused.callId), id)
          busy(await t.steward("session", "reject", "--json", id, paused.callId), id)
          await t.release()
          const approved = await owner
          assert.strictEqual(approved.code, 0, approved.stderr)
          assert.strictEqual(Ndjson.outcome(approved.stdout).status, "completed")
          // answered: nothing is paused at it any more
          assert.strictEqual((await t.steward("session", "approve", "--json", id, paused.callId)).code, 2)
          assert.strictEqual((await t.steward("session", "verify", id)).code, 0)
        }),
      120_000
    )

    it(
      "after kill -9 of the owner: orphaned, --follow ends, and a continue takes over once the lease expires",
      () =>
        withDatabase(backend, async (database) => {
          const t = setup(database)
          const id = await created(t)
          const owner = t.start(["session", "continue", "--json", id, "Carry on"])
          const gone = collect(owner)
          await waitFor("the owner's gated call", t.marker)
          const follow = collect(t.start(["session", "events", id, "--follow", "--json"]))
          owner.kill("SIGKILL")
          await gone
          // The follow ends by itself once the lease lapses: exit 1, `orphaned`, saying how to resume.
          const followed = await follow
          assert.strictEqual(followed.code, 1, followed.stderr)
          const error = JSON.parse(followed.stderr).error
          assert.strictEqual(error.code, "orphaned")
          assert.include(error.message, `steward session continue ${id}`)
          // what it printed before is NDJSON, line by line, up to the gated call
          assert.include(Ndjson.events(followed.stdout).map((e) => e.type), "tool.call")
          const show = JSON.parse((await t.steward("session", "show", "--json", id)).stdout)
          assert.deepStrictEqual([show.orphaned, show.owner], [true, null])
          assert.include((await t.steward("session", "show", id)).stdout, "orphaned")
          const resumed = await t.steward("session", "continue", "--json", id)
          assert.strictEqual(resumed.code, 0, resumed.stderr)
          assert.strictEqual(Ndjson.outcome(resumed.stdout).status, "completed")
          const verify = await t.steward("session", "verify", id)
          assert.strictEqual(verify.code, 0, verify.stderr)
        }),
      120_000
    )
  })
}
