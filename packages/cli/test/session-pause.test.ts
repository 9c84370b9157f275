/**
 * Approval inside the run, through the CLI (issue 35 item 2, ADR 0016): piped, an ask pauses the
 * run and `session run` exits 0 saying how to answer; `approve` completes the same run without a
 * model call of its own (the script has exactly the turns the run needs, and the model-call events
 * count them); `reject --reason` gives the model the person's reason; under a pseudo-terminal
 * (`script` from util-linux) `session run` asks inline, `a` saves the shown scope, and the next
 * matching call runs citing the saved rule without asking.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"
import { stewardArgv } from "./support/stewardProcess.js"

const node = (n: number) => ({ toolCalls: [{ name: "shell", input: { command: `node -e "console.log(${n})"` } }] })

const setup = (...turns: ReadonlyArray<unknown>) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-pause-")))
  const ws = path.join(dir, "ws")
  const state = path.join(dir, "state")
  fs.mkdirSync(ws)
  fs.mkdirSync(state)
  const script = path.join(dir, "script.jsonl")
  fs.writeFileSync(script, turns.map((t) => JSON.stringify(t)).join("\n"))
  const run = (...args: ReadonlyArray<string>) =>
    runCli(["session", "run", "--state-dir", state, "--script", script, "--workspace", ws, "--sandbox", "off", ...args])
  const cli = (verb: string, ...args: ReadonlyArray<string>) => runCli(["session", verb, "--state-dir", state, ...args])
  return { dir, ws, state, script, run, cli }
}

/** `steward session run …` under a pseudo-terminal (`script` from util-linux), as a person runs it. */
const inTerminal = (t: ReturnType<typeof setup>, prompt: string) => {
  const command = [process.execPath, ...stewardArgv(["session", "run", "--state-dir", t.state, "--script"])]
    .concat([t.script, "--workspace", t.ws, "--sandbox", "off", prompt])
    .map((a) => `'${a}'`).join(" ")
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: t.ws, stdio: ["pipe", "pipe", "pipe"] })
  let out = ""
  child.stdout.on("data", (d) => void (out += String(d)))
  const ended = new Promise<number | null>((resolve) => child.on("close", resolve))
  let exited = false
  void ended.then(() => (exited = true))
  const waitFor = async (text: string) => {
    for (let i = 0; i < 600 && !exited && !out.includes(text); i++) await new Promise((r) => setTimeout(r, 50))
    assert.include(out, text)
  }
  return { child, ended, waitFor, out: () => out }
}

const modelCalls = (events: ReadonlyArray<any>) => events.filter((e) => e.type === "model.call").length

describe("approval inside the run, through the CLI", () => {
  it.live("piped: the ask pauses (exit 0, how to answer); approve completes the same run with no model call of its own", () =>
    Effect.gen(function*() {
      // exactly the turns the run needs: the call, then the reply to its result
      const t = setup(node(41), { text: "It printed 41." })
      const text = yield* t.run("Print")
      assert.strictEqual(text.exitCode, 0, text.stderr)
      const id = /^session (\S+)$/m.exec(text.stdout)![1]!
      assert.include(text.stdout, `answer with: steward session approve ${id} call_1_1 [--remember]`)
      assert.include(text.stdout, `steward session reject ${id} call_1_1 [--reason TEXT]`)
      assert.notInclude(text.stdout, "── settled")
      const paused = (yield* t.cli("events", "--json", id)).events()
      assert.strictEqual(paused.at(-1).type, "run.pause")
      assert.strictEqual(modelCalls(paused), 1)
      // a follow ends at the pause too (the run waits for a person; it is not orphaned)
      const followed = yield* t.cli("events", "--follow", "--json", id)
      assert.strictEqual(followed.exitCode, 0, followed.stderr)
      assert.strictEqual(followed.events().at(-1).type, "run.pause")

      const approved = yield* t.cli("approve", "--json", id, "call_1_1")
      assert.strictEqual(approved.exitCode, 0, approved.stderr)
      const outcome = approved.outcome()
      assert.deepStrictEqual([outcome.status, outcome.run, outcome.modelCalls], ["completed", paused[0].run, 2])
      const all = (yield* t.cli("events", "--json", id)).events()
      // one run, two model calls: the one that proposed the call and the one after its result
      assert.deepStrictEqual([...new Set(all.map((e) => e.run))], [paused[0].run])
      assert.strictEqual(modelCalls(all), 2)
      assert.include(approved.stdout, "41")
    }))

  it.live("reject --reason: the model reads the person's reason in the same run", () =>
    Effect.gen(function*() {
      const t = setup(node(41), { text: "Understood." })
      const run = yield* t.run("--json", "Print")
      assert.strictEqual(run.outcome().status, "paused")
      const id = run.outcome().session
      const rejected = yield* t.cli("reject", id, "call_1_1", "--reason", "use the test runner instead")
      assert.strictEqual(rejected.exitCode, 0, rejected.stderr)
      assert.match(rejected.stdout, /✗ \S+ rejected call_1_1: use the test runner instead/)
      assert.include(rejected.stdout, "── settled completed")
      const refusal = (yield* t.cli("show", "--json", id, "call_1_1")).events().find((e) => e.type === "tool.refused")
      assert.strictEqual(refusal.data.by, "person")
      assert.include(refusal.data.reason, "use the test runner instead")
      const wrong = yield* t.cli("reject", "--json", id, "call_1_1")
      assert.strictEqual(wrong.exitCode, 2)
    }))

  it.effect(
    "in a terminal: Ctrl-C at the question stops with exit 130 and the run stays paused",
    () =>
      Effect.promise(async () => {
        const t = setup(node(41), { text: "Printed." })
        const tty = inTerminal(t, "Print")
        await tty.waitFor("Allow?")
        tty.child.stdin.write("\x03")
        assert.strictEqual(await tty.ended, 130, tty.out())
        assert.include(tty.out(), "interrupted by SIGINT")
        const list = await Effect.runPromise(t.cli("list", "--json"))
        assert.deepStrictEqual([list.json()[0].summary.status, list.json()[0].summary.pending], ["paused", 1])
      }),
    120_000
  )

  it.effect(
    "in a terminal: `a` saves the shown scope and the next matching call runs citing it, unasked",
    () =>
      Effect.promise(async () => {
        // `git push origin main` is remembered as `git push origin *` (ADR 0218), which the second
        // push matches; the remote is a bare repository beside the workspace.
        const t = setup(
          { toolCalls: [{ name: "shell", input: { command: "git push origin main" } }] },
          { toolCalls: [{ name: "shell", input: { command: "git push origin main:feature" } }] },
          { text: "Both pushed." }
        )
        const git = (cwd: string, ...args: ReadonlyArray<string>) =>
          execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, stdio: "pipe" })
        git(t.dir, "init", "-q", "--bare", "remote.git")
        git(t.ws, "init", "-q", "-b", "main")
        fs.writeFileSync(path.join(t.ws, "a.txt"), "a\n")
        git(t.ws, "add", "a.txt")
        git(t.ws, "commit", "-q", "-m", "a")
        git(t.ws, "remote", "add", "origin", path.join(t.dir, "remote.git"))
        const tty = inTerminal(t, "Push twice")
        await tty.waitFor("Allow?")
        assert.include(tty.out(), `Allow? [y]es once / [a]lways git push origin * / [n]o (reason)`)
        tty.child.stdin.write("a\n")
        const code = await tty.ended
        const out = tty.out()
        assert.strictEqual(code, 0, out)
        const after = out.slice(out.indexOf("Allow?"))
        // asked once: the second call matched the saved rule
        assert.strictEqual(out.split("Allow?").length - 1, 1)
        assert.match(after, /✓ \S+ approved call_1_1 \(saved remembered\.shell\.1\)/)
        assert.match(
          after,
          /→ shell \{"command":"git push origin main:feature"\} +\[allow: user rule remembered\.shell\.1/
        )
        assert.include(after, "── settled completed")
        const show = await Effect.runPromise(t.cli("show", "--json", /^session (\S+)/m.exec(out)![1]!))
        assert.deepStrictEqual(show.json().remembered.map((r: any) => r.resource), ["git push origin *"])
        // both pushes ran: the remote has main and feature
        assert.strictEqual(
          String(git(path.join(t.dir, "remote.git"), "branch", "--format=%(refname:short)")),
          "feature\nmain\n"
        )
      }),
    120_000
  )
})
