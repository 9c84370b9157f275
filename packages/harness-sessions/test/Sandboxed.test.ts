/**
 * The shell tool inside the OS sandbox (issue 31 item 3, ADR 0563), with governance-rules' real
 * bubblewrap layer: an allowed call runs contained; what the analyser cannot resolve is allowed
 * there (`sandbox.contained`) instead of asked; a write outside the workspace and a process that
 * leaves its group with `setsid` do not escape — neither the call nor a killed harness; at
 * `read_only` the workspace is mounted read-only; with the sandbox unavailable the gate alone
 * decides (an ask, and the run pauses at it).
 */
import { assert, describe, it } from "@effect/vitest"
import { Sandbox } from "@steward/governance-rules"
import { Effect, Option } from "effect"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Boundary from "../src/internal/boundary.js"
import * as Meta from "../src/internal/meta.js"
import * as Session from "../src/Session.js"
import { events, layer, script, workspace } from "./support/env.js"

const availability = Effect.runSync(
  Effect.flatMap(Sandbox.Sandbox, (s) => s.availability).pipe(Effect.provide(Sandbox.layerLinux()))
)
const skip = !availability.available && process.env.CI !== "true"
  ? `skipped: no sandbox here (${availability.available ? "" : availability.reason})`
  : undefined

const sandboxed = (text: string) => layer(text, { extra: Sandbox.layerLinux() })
const grantAll = [
  { id: "grant.shell", action: "shell" as const, resource: "*", effect: "allow" as const },
  { id: "grant.write", action: "write" as const, resource: "**", effect: "allow" as const }
]

// Processes whose command line has `needle` (a unique sleep duration), other than pgrep itself.
const running = (needle: string): ReadonlyArray<string> => {
  try {
    return execFileSync("pgrep", ["-f", needle], { encoding: "utf8" }).trim().split("\n").filter((l) => l !== "")
  } catch {
    return []
  }
}

const lastResult = (id: string) =>
  Effect.map(events(id), (es) => {
    const found = es.filter(([t]) => t === "tool.result").at(-1)
    assert.isDefined(found, JSON.stringify(es.filter(([t]) => t.startsWith("tool"))))
    return found![1]
  })

describe.skipIf(skip !== undefined)(`the shell tool in the sandbox ${skip ?? ""}`, () => {
  it.live(
    "an allowed call runs contained; a write outside the workspace does not land; setsid does not outlive the call",
    () => {
      const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "harness-outside-")))
      // The destination comes from a file, so only the boundary can stop the write (the gate cannot see it).
      const command =
        `echo inside > in.txt; echo leak > "$(cat where.txt)/leak.txt"; setsid sleep 1013.5 & echo started`
      return Effect.gen(function*() {
        const sessions = yield* Session.Sessions
        const ws = workspace()
        fs.writeFileSync(path.join(ws, "where.txt"), outside)
        const { id } = yield* sessions.create({ workspace: ws, rules: grantAll })
        const outcome = yield* sessions.run(id, "Write")
        assert.strictEqual(outcome.status, "completed")
        const result = yield* lastResult(id)
        assert.include(result.output, "(in the sandbox)")
        assert.include(result.output, "started")
        assert.strictEqual(fs.readFileSync(path.join(ws, "in.txt"), "utf8"), "inside\n")
        assert.isFalse(fs.existsSync(path.join(outside, "leak.txt")), "nothing written outside the workspace")
        assert.deepStrictEqual(running("sleep 1013.5"), [], "the setsid process died with the call")
      }).pipe(Effect.provide(sandboxed(script(
        { toolCalls: [{ name: "shell", input: { command } }] },
        { text: "Done." }
      ))))
    },
    60_000
  )

  it.live(
    "what the analyser cannot resolve runs contained instead of asking (sandbox.contained)",
    () =>
      Effect.gen(function*() {
        const sessions = yield* Session.Sessions
        const { id } = yield* sessions.create({ workspace: workspace() })
        yield* sessions.run(id, "Print")
        const es = yield* events(id)
        const call = es.find(([t]) => t === "tool.call")![1]
        assert.deepStrictEqual([call.decision, call.citation.layer, call.citation.ruleId], [
          "allow",
          "sandbox",
          "sandbox.contained"
        ])
        assert.include((yield* lastResult(id)).output, "41")
      }).pipe(Effect.provide(sandboxed(script(
        { toolCalls: [{ name: "shell", input: { command: `node -e "console.log(41)"` } }] },
        { text: "It printed 41." }
      )))),
    60_000
  )

  it.live(
    "at read_only the workspace is mounted read-only: a write the gate cannot see still fails",
    () =>
      Effect.gen(function*() {
        // The gate denies every write it can see at read_only; the boundary holds the rest.
        const ws = workspace()
        const meta = yield* Meta.initial({ workspace: ws, level: "read_only" })
        const sandbox = yield* Sandbox.Sandbox
        const boundary = yield* Boundary.forRun(Option.some(sandbox), meta, os.homedir())
        assert.deepStrictEqual(boundary.state, { state: "on", allowDomains: [], writable: false })
        const done = yield* Option.getOrThrow(boundary.contained).run({ argv: Sandbox.shell("touch new.txt") })
        assert.notStrictEqual(done.exitCode, 0)
        assert.isFalse(fs.existsSync(path.join(ws, "new.txt")))
        const writable = yield* Boundary.forRun(Option.some(sandbox), { ...meta, level: "execute" }, os.homedir())
        assert.strictEqual(
          (yield* Option.getOrThrow(writable.contained).run({ argv: Sandbox.shell("touch new.txt") })).exitCode,
          0
        )
        assert.isTrue(fs.existsSync(path.join(ws, "new.txt")))
      }).pipe(Effect.provide(Sandbox.layerLinux())),
    60_000
  )

  it.live(
    "the sandbox unavailable: the gate alone decides (an ask; the run pauses for want of a person)",
    () =>
      Effect.gen(function*() {
        const sessions = yield* Session.Sessions
        const { id } = yield* sessions.create({ workspace: workspace() })
        const outcome = yield* sessions.run(id, "Print")
        assert.strictEqual(outcome.status, "paused")
        const call = (yield* events(id)).find(([t]) => t === "tool.call")![1]
        assert.strictEqual(call.decision, "ask")
      }).pipe(Effect.provide(layer(
        script({ toolCalls: [{ name: "shell", input: { command: `node -e "console.log(41)"` } }] }, { text: "Asked." }),
        { extra: Sandbox.layerUnavailable("no boundary in this test") }
      ))),
    60_000
  )

  it.live(
    "kill -9 of the harness during a contained call: a setsid process does not outlive it",
    () =>
      Effect.promise(async () => {
        const ws = workspace()
        const file = path.join(ws, "..", `${path.basename(ws)}.sqlite`)
        const repoRoot = path.resolve(__dirname, "../../..")
        const command = "setsid sleep 1014.5 > /dev/null 2>&1 & touch marker; sleep 1015.5"
        const text = script({ toolCalls: [{ name: "shell", input: { command } }] }, { text: "Finished." })
        const child = spawn(process.execPath, [
          "--import",
          path.join(repoRoot, "node_modules/tsx/dist/loader.mjs"),
          path.join(__dirname, "support/child.ts"),
          file,
          ws,
          "s1",
          text
        ], { cwd: path.resolve(__dirname, ".."), stdio: "ignore", env: { ...process.env, STEWARD_TEST_SANDBOX: "1" } })
        const closed = new Promise((r) => child.on("close", r))
        for (let i = 0; i < 600 && !fs.existsSync(path.join(ws, "marker")); i++) {
          await new Promise((r) => setTimeout(r, 50))
        }
        assert.isTrue(fs.existsSync(path.join(ws, "marker")), "the contained call started")
        assert.isNotEmpty(running("sleep 1014.5"))
        child.kill("SIGKILL")
        await closed
        for (let i = 0; i < 100 && running("sleep 101[45].5").length > 0; i++) {
          await new Promise((r) => setTimeout(r, 50))
        }
        assert.deepStrictEqual(running("sleep 101[45].5"), [], "nothing the call started outlives the harness")
      }),
    60_000
  )
})
