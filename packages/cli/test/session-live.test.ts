/**
 * A run is printed as it goes (issue 35 item 1), through real CLI processes: the tool call's line
 * is on stdout while the tool still waits on a FIFO only the test opens, so nothing but a live
 * stream can print it first; `--json` is NDJSON, each line a stored event on its own, the last one
 * the run's settle. No clock is read: the order of what the test sees is the assertion.
 */
import { assert, describe, it } from "@effect/vitest"
import * as EventJson from "@steward/harness-sessions/EventJson"
import { Effect } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Ndjson from "./support/ndjson.js"
import { stewardArgv } from "./support/stewardProcess.js"

// The slow tool: it waits on the FIFO until the test writes to it, then prints `gate-opened`
// (a word its own command line does not contain).
const GATED = "cat gate.fifo && printf 'gate-%s' opened"
const OPENED = "gate-opened"

interface Live {
  readonly child: ChildProcess
  /** stdout so far, as the chunks arrived. */
  readonly stdout: () => string
  readonly ended: Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>
}

const setup = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-live-")))
  const ws = path.join(dir, "ws")
  const state = path.join(dir, "state")
  fs.mkdirSync(ws)
  fs.mkdirSync(state)
  execFileSync("mkfifo", [path.join(ws, "gate.fifo")])
  const script = path.join(dir, "script.jsonl")
  const turns = [
    { toolCalls: [{ name: "shell", input: { command: GATED } }] },
    { text: "First done." },
    { toolCalls: [{ name: "shell", input: { command: GATED } }] },
    { text: "Second done." }
  ]
  fs.writeFileSync(script, turns.map((t) => JSON.stringify(t)).join("\n"))
  const start = (args: ReadonlyArray<string>): Live => {
    const child = spawn(process.execPath, stewardArgv([...args, "--state-dir", state]), {
      cwd: ws,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => void (stdout += String(d)))
    child.stderr.on("data", (d) => void (stderr += String(d)))
    const ended = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.on("close", (code) => resolve({ code, stdout, stderr }))
    )
    return { child, stdout: () => stdout, ended }
  }
  // Writing to the FIFO from a child process: the test's own event loop never blocks on it.
  const release = () =>
    new Promise<void>((resolve) => spawn("sh", ["-c", "echo go > gate.fifo"], { cwd: ws }).on("close", () => resolve()))
  return { ws, script, start, release }
}

// Bounded, so a run that prints nothing until it ends fails here instead of hanging the suite.
const waitFor = async (what: string, live: Live, ready: (stdout: string) => boolean) => {
  let exited = false
  void live.ended.then(() => (exited = true))
  for (let i = 0; i < 600 && !exited && !ready(live.stdout()); i++) await new Promise((r) => setTimeout(r, 50))
  assert.isTrue(ready(live.stdout()), `waited for ${what}; stdout so far: ${live.stdout()}`)
}

describe("session verbs print each event as it is committed", () => {
  it.effect(
    "run prints the call before its tool finishes; continue --json streams NDJSON ending with the settle",
    () =>
      Effect.promise(async () => {
        const t = setup()
        const run = t.start(["session", "run", "--script", t.script, "--workspace", t.ws, "--sandbox", "off", "Go"])
        await waitFor(
          "the gated call's line",
          run,
          (out) => out.includes(`→ shell ${JSON.stringify({ command: GATED })}`)
        )
        // The tool is still waiting on the gate: its result is not printed, the process still runs.
        assert.notInclude(run.stdout(), OPENED)
        assert.notInclude(run.stdout(), "── settled")
        assert.isNull(run.child.exitCode)
        await t.release()
        const ran = await run.ended
        assert.strictEqual(ran.code, 0, ran.stderr)
        const lines = ran.stdout.split("\n")
        const id = /^session (\S+)$/.exec(lines[0]!)![1]!
        assert.isTrue(
          lines.indexOf(lines.find((l) => l.includes("→ shell"))!) < lines.findIndex((l) => l.includes(OPENED))
        )
        assert.strictEqual(lines.filter((l) => l !== "").at(-1), "── settled completed")

        const next = t.start(["session", "continue", "--json", id, "Again"])
        await waitFor("the gated call's event", next, (out) => out.includes(`"type":"tool.call"`))
        assert.isNull(next.child.exitCode)
        // every line printed so far is one whole stored event, read back by the library's decoder
        const early = next.stdout().split("\n").filter((l) => l !== "")
        for (const [i, l] of early.entries()) {
          const e = await Effect.runPromise(EventJson.parse(l, `stdout line ${i + 1}`))
          assert.strictEqual(e.session, id)
        }
        assert.notInclude(early.map((l) => JSON.parse(l).type), "tool.result")
        await t.release()
        const continued = await next.ended
        assert.strictEqual(continued.code, 0, continued.stderr)
        const events = Ndjson.events(continued.stdout)
        for (const [i, l] of continued.stdout.trimEnd().split("\n").entries()) {
          await Effect.runPromise(EventJson.parse(l, `stdout line ${i + 1}`))
        }
        assert.deepStrictEqual(events.map((e) => e.seq), events.map((_, i) => events[0].seq + i))
        assert.strictEqual(events[0].type, "run.start")
        assert.strictEqual(Ndjson.outcome(continued.stdout).status, "completed")
      }),
    120_000
  )
})
