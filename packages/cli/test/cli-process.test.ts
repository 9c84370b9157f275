import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { stewardArgv } from "./support/stewardProcess.js"

// The CLI as a process: under a pseudo-terminal (util-linux `script`) and with pipes, and stopped
// by signals. The process is the one support/stewardProcess chooses (sources, or the bundle).

const pkg = path.resolve(import.meta.dirname, "..")
const fixture = path.join(pkg, "test", "fixtures", "reflex", "route.valid.jsonl")
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-process-"))
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`
const stewardArgs = stewardArgv

interface Ended {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

const collect = (child: ChildProcess): Promise<Ended> =>
  new Promise((resolve) => {
    let stdout = ""
    let stderr = ""
    child.stdout?.on("data", (d) => void (stdout += String(d)))
    child.stderr?.on("data", (d) => void (stderr += String(d)))
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })

/** Run `steward ARGS` with stdout and stderr on a pseudo-terminal; returns what the terminal showed. */
const underPty = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  collect(
    spawn("script", ["-qec", [process.execPath, ...stewardArgs(args)].map(quote).join(" "), "/dev/null"], {
      env: { ...process.env, TERM: "xterm", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
  )

const piped = (args: ReadonlyArray<string>, cwd?: string) =>
  spawn(process.execPath, stewardArgs(args), { cwd, env: process.env, stdio: ["pipe", "pipe", "pipe"] })

describe("progress and colour follow the terminal", () => {
  it("reflex import shows a progress line on a terminal and erases it; nothing when piped or --json", async () => {
    const state = tempDir()
    const args = ["reflex", "import", "route", fixture, "--dry-run", "--state-dir", state]
    const tty = await underPty(args)
    assert.strictEqual(tty.code, 0, tty.stdout)
    assert.include(tty.stdout, "reflex import route: reading")
    assert.include(tty.stdout, "\r\u001b[2K")
    const pipe = await collect(piped(args))
    assert.strictEqual(pipe.code, 0, pipe.stderr)
    assert.strictEqual(pipe.stderr, "")
    assert.notInclude(pipe.stdout, "reflex import route:")
    const json = await underPty([...args, "--json"])
    assert.strictEqual(json.code, 0, json.stdout)
    assert.notInclude(json.stdout, "reflex import route:")
  }, 240_000)

  it("audit export-state shows a progress line on a terminal and erases it; nothing when piped or --json", async () => {
    const project = tempDir()
    const init = await collect(piped(["audit", "--project", project, "init"]))
    assert.strictEqual(init.code, 0, init.stderr)
    const out = path.join(project, "state.json")
    const args = [
      "audit",
      "--project",
      project,
      "export-state",
      out,
      "--events-out",
      path.join(project, "events.jsonl")
    ]
    const tty = await underPty(args)
    assert.strictEqual(tty.code, 0, tty.stdout)
    assert.include(tty.stdout, "audit export-state: reading the state")
    assert.include(tty.stdout, `audit export-state: writing ${out} (`)
    assert.include(tty.stdout, "\r\u001b[2K")
    assert.include(tty.stdout, `wrote ${out}`)
    const pipe = await collect(piped(args))
    assert.strictEqual(pipe.code, 0, pipe.stderr)
    assert.strictEqual(pipe.stderr, "")
    assert.notInclude(pipe.stdout, "audit export-state:")
    const json = await underPty([...args, "--json"])
    assert.strictEqual(json.code, 0, json.stdout)
    assert.notInclude(json.stdout, "audit export-state:")
  }, 240_000)

  it("reflex train shows each fit and certification on a terminal; nothing when piped or --json", async () => {
    const state = tempDir()
    const args = ["reflex", "train", "settle", "--state-dir", state]
    const tty = await underPty(args)
    assert.strictEqual(tty.code, 0, tty.stdout)
    assert.match(tty.stdout, /reflex train: settle: fitting \w+ from 0 label\(s\) \(step 1 of \d+\)/)
    assert.include(tty.stdout, "reflex train: settle: certifying")
    assert.include(tty.stdout, "\r\u001b[2K")
    const pipe = await collect(piped(args))
    assert.strictEqual(pipe.code, 0, pipe.stderr)
    assert.strictEqual(pipe.stderr, "")
    assert.notInclude(pipe.stdout, "reflex train:")
    const json = await underPty([...args, "--json"])
    assert.strictEqual(json.code, 0, json.stdout)
    assert.notInclude(json.stdout, "reflex train:")
  }, 240_000)

  it("the demo shows its stages on one progress line on a terminal and erases it; nothing when piped", async () => {
    const tty = await underPty(["demo", "--state-dir", tempDir()])
    assert.strictEqual(tty.code, 0, tty.stdout)
    assert.include(tty.stdout, "steward demo: 1 of 4: importing the synthetic history")
    assert.include(tty.stdout, "steward demo: 4 of 4: verifying the session")
    // rewritten in place, and erased before the report
    assert.include(tty.stdout, "\r\u001b[2Ksteward demo: 2 of 4")
    assert.include(tty.stdout, "\r\u001b[2KSteward demo — state in")
    const pipe = await collect(piped(["demo", "--state-dir", tempDir()]))
    assert.strictEqual(pipe.code, 0, pipe.stderr)
    assert.strictEqual(pipe.stderr, "")
    assert.notInclude(pipe.stdout, "steward demo:")
    assert.include(pipe.stdout, "Steward demo — state in")
  }, 240_000)

  it("help is bold on a terminal, plain with NO_COLOR and when piped", async () => {
    const tty = await underPty(["algal", "--help"])
    assert.include(tty.stdout, "\u001b[1mUsage:")
    const noColor = await underPty(["algal", "--help"], { NO_COLOR: "1" })
    assert.notInclude(noColor.stdout, "\u001b[")
    const pipe = await collect(piped(["algal", "--help"]))
    assert.notInclude(pipe.stdout, "\u001b[")
    assert.include(pipe.stdout, "Usage: steward algal COMMAND")
  }, 240_000)
})

describe("pnpm steward: relative paths are the caller's", () => {
  // `pnpm steward …` (and `node scripts/pnpm.mjs steward …`) run the script in the repository
  // root; the caller's folder arrives as INIT_CWD (pnpm) or STEWARD_CWD (the launcher)
  for (const variable of ["INIT_CWD", "STEWARD_CWD"] as const) {
    it(`${variable}: --state-dir and --workspace are taken against the caller's folder`, async () => {
      const caller = tempDir()
      fs.mkdirSync(path.join(caller, "state"))
      fs.mkdirSync(path.join(caller, "ws"))
      const root = path.resolve(pkg, "..", "..")
      const env = {
        ...process.env,
        ...(variable === "INIT_CWD" ? { npm_lifecycle_event: "steward", INIT_CWD: caller } : { STEWARD_CWD: caller })
      }
      const run = (args: ReadonlyArray<string>) =>
        collect(spawn(process.execPath, stewardArgs(args), { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] }))
      const ok = await run(["doctor", "--json", "--state-dir", "./state"])
      assert.strictEqual(ok.code, 0, ok.stderr)
      assert.strictEqual(JSON.parse(ok.stdout).stateDir.path, path.join(caller, "state"))
      const typo = await run(["doctor", "--json", "--state-dir", "./sate"])
      assert.strictEqual(typo.code, 2)
      assert.include(JSON.parse(typo.stderr).error.message, `(./sate is relative to ${caller})`)
      const policy = await run([
        "policy",
        "check",
        "--json",
        "--state-dir",
        "./state",
        "--workspace",
        "./ws",
        "--",
        "ls"
      ])
      assert.strictEqual(policy.code, 0, policy.stderr)
      assert.strictEqual(JSON.parse(policy.stdout).workspace, path.join(caller, "ws"))
    }, 240_000)
  }
})

describe("a reader that goes away", () => {
  it("steward … | head: a closed stdout ends the command quietly, no EPIPE trace", async () => {
    const dir = tempDir()
    // a receipt of a few hundred KB: far more than the pipe holds once the reader has gone
    const args = path.join(dir, "args.json")
    fs.writeFileSync(args, JSON.stringify({ in: { v: "x".repeat(200_000) } }))
    const manifest = path.join(dir, "tiny.algal.json")
    fs.writeFileSync(
      manifest,
      JSON.stringify({
        contract: "algal.organism.v1",
        key: "organism:tiny",
        name: "Tiny",
        cells: [{ id: "in", kind: "input", outputs: { v: "json" } }, { id: "out", kind: "fn", fn: "echo.v1" }],
        edges: [{ from: { cell: "in", port: "v" }, to: { cell: "out", port: "value" } }]
      })
    )
    const child = piped(["algal", "run", manifest, "--args", args, "--state-dir", dir, "--json"])
    child.stdin?.end()
    let stderr = ""
    child.stderr?.on("data", (d) => void (stderr += String(d)))
    child.stdout?.once("data", () => child.stdout?.destroy())
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)))
    assert.notInclude(stderr, "EPIPE")
    assert.notInclude(stderr, "Unhandled 'error' event")
    assert.strictEqual(code, 0, stderr)
  }, 240_000)
})

describe("signals", () => {
  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
    it(`${signal} stops a waiting command with exit ${code}`, async () => {
      // the default state dir is created in the cwd before the command waits on stdin: that is
      // the sign it is running (and its signal handlers are installed)
      const cwd = tempDir()
      const child = piped(["config", "set", "sessions.note", "-", "--json"], cwd)
      const ended = collect(child)
      const deadline = Date.now() + 200_000
      while (!fs.existsSync(path.join(cwd, ".steward")) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50))
      }
      child.kill(signal)
      const result = await ended
      assert.strictEqual(result.code, code, result.stderr)
      assert.strictEqual(JSON.parse(result.stderr).error.code, "interrupted")
      assert.isFalse(fs.existsSync(path.join(cwd, ".steward", "config.json")))
    }, 240_000)
  }
})
