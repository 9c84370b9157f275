/**
 * A lost PostgreSQL connection (issue 34 item 5, ADR 0562), with a real server restarted under a
 * running `steward session run`: a restart shorter than the reconnect window is survived (every
 * call ran once, every event is stored once, `verify` passes); an outage longer than the window
 * ends the command `storage`, and once the server is back a `continue` takes the run over.
 * The server is a cluster of this suite's own (scripts/postgres.sh with its own root and port),
 * so restarting it disturbs no other suite.
 */
import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import * as Ndjson from "./support/ndjson.js"
import { stewardArgv } from "./support/stewardProcess.js"

const pkg = path.resolve(import.meta.dirname, "..")
const repo = path.resolve(pkg, "..", "..")

const pgCtl = fs.existsSync("/usr/lib/postgresql")
  ? fs.readdirSync("/usr/lib/postgresql").map((v) => `/usr/lib/postgresql/${v}/bin/pg_ctl`).find((p) =>
    fs.existsSync(p)
  )
  : undefined
const skip = pgCtl === undefined && process.env.CI !== "true"
  ? "skipped: no PostgreSQL server installed (Debian's postgresql)"
  : undefined

const root = path.join(os.tmpdir(), `steward-pg-reconnect-${process.pid}`)
const port = String(55_000 + (process.pid % 2_000))
const cluster = { STEWARD_PG_ROOT: root, STEWARD_PG_PORT: port }
let url = ""

const pg = (...args: ReadonlyArray<string>) => {
  const line = `'${pgCtl}' -D '${root}/data' -w -t 60 ${args.join(" ")}`
  execFileSync(
    process.getuid?.() === 0 ? "su" : "sh",
    process.getuid?.() === 0 ? ["postgres", "-s", "/bin/sh", "-c", line] : ["-c", line],
    { stdio: "ignore" }
  )
}

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

const waitFor = async (what: string, ready: () => boolean, limit = 1200) => {
  for (let i = 0; i < limit && !ready(); i++) await new Promise((r) => setTimeout(r, 50))
  assert.isTrue(ready(), `waited for ${what}`)
}

const setup = (turns: ReadonlyArray<unknown>, env: Record<string, string>) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-reconnect-")))
  const ws = path.join(dir, "ws")
  const state = path.join(dir, "state")
  fs.mkdirSync(ws)
  fs.mkdirSync(state)
  const script = path.join(dir, "script.jsonl")
  fs.writeFileSync(script, turns.map((t) => JSON.stringify(t)).join("\n"))
  const start = (args: ReadonlyArray<string>) =>
    spawn(process.execPath, stewardArgv([...args, "--state-dir", state, "--database-url", url]), {
      cwd: ws,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
  const steward = (...args: ReadonlyArray<string>) => collect(start(args))
  const run = () => start(["session", "run", "--script", script, "--workspace", ws, "--json", "Go"])
  return { ws, start, steward, run }
}

describe.skipIf(skip !== undefined)(`a PostgreSQL restart under a running session ${skip ?? ""}`, () => {
  beforeAll(() => {
    const out = execFileSync(path.join(repo, "scripts", "postgres.sh"), ["start"], {
      env: { ...process.env, ...cluster },
      encoding: "utf8"
    })
    url = /STEWARD_TEST_DATABASE_URL=(\S+)/.exec(out)![1]!
  }, 120_000)
  afterAll(() => {
    execFileSync(path.join(repo, "scripts", "postgres.sh"), ["stop"], { env: { ...process.env, ...cluster } })
  })

  it("a restart shorter than the reconnect window: the run completes, each call ran once, verify passes", async () => {
    const calls = 30
    const t = setup([
      ...Array.from({ length: calls }, (_, i) => ({
        toolCalls: [{ name: "shell", input: { command: `sleep 0.1; echo call ${i} >> log.txt` } }]
      })),
      { text: "Done." }
    ], {})
    const log = path.join(t.ws, "log.txt")
    const lines = () => fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : []
    const run = collect(t.run())
    await waitFor("a few calls", () => lines().length >= 4)
    pg("-m", "fast", "restart")
    const ended = await run
    assert.strictEqual(ended.code, 0, ended.stderr)
    assert.strictEqual(Ndjson.outcome(ended.stdout).status, "completed")
    assert.deepStrictEqual(lines(), Array.from({ length: calls }, (_, i) => `call ${i}`))
    const id = Ndjson.outcome(ended.stdout).session as string
    const verify = await t.steward("session", "verify", "--json", id)
    assert.strictEqual(verify.code, 0, verify.stderr)
    const read = await t.steward("session", "events", "--json", id)
    assert.strictEqual(read.code, 0, read.stderr)
    const events = Ndjson.events(read.stdout) as ReadonlyArray<{ seq: number; type: string }>
    assert.deepStrictEqual(events.map((e) => e.seq), events.map((_, i) => i + 1))
    assert.strictEqual(events.filter((e) => e.type === "tool.result").length, calls)
  }, 180_000)

  it("an outage longer than the window ends the command `storage`; a continue takes the run over later", async () => {
    const t = setup([
      { toolCalls: [{ name: "shell", input: { command: "touch marker && cat gate.fifo" } }] },
      { text: "Done." }
    ], { STEWARD_SESSION_RECONNECT: "2 seconds", STEWARD_SESSION_LEASE: "2 seconds" })
    execFileSync("mkfifo", [path.join(t.ws, "gate.fifo")])
    const run = collect(t.run())
    await waitFor("the gated call", () => fs.existsSync(path.join(t.ws, "marker")))
    pg("-m", "fast", "stop")
    try {
      await collect(spawn("sh", ["-c", "echo go > gate.fifo"], { cwd: t.ws }))
      const ended = await run
      assert.strictEqual(ended.code, 2, ended.stdout)
      const error = JSON.parse(ended.stderr).error
      assert.strictEqual(error.code, "storage")
      assert.include(error.message, "connection to the database was lost")
    } finally {
      // `restart` starts a stopped server with the options it last ran with (postmaster.opts).
      pg("-l", `'${root}/server.log'`, "restart")
    }
    const list = await t.steward("session", "list", "--json")
    assert.strictEqual(list.code, 0, list.stderr)
    // The suite's sessions share the cluster's database: this one is the newest.
    const id = JSON.parse(list.stdout).at(-1).id as string
    const resumed = await t.steward("session", "continue", "--json", id)
    assert.strictEqual(resumed.code, 0, resumed.stderr)
    assert.strictEqual((await t.steward("session", "verify", id)).code, 0)
  }, 180_000)
})
