import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Stream, TestClock } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Evidence, Files, Governance, GovernanceError, Hooks, Policy, Responder, ShellParser } from "../src/index.js"
import { decide, Parser, tempWorkspace } from "./helpers.js"

// Issue 18: the suite runs against the real filesystem and against an in-memory tree (the engine
// and the built-in hooks look files up through the `Files` service).
interface Disk {
  readonly name: string
  /** A workspace holding `files` (workspace-relative path → text) and its file view. */
  readonly workspace: (
    files?: Readonly<Record<string, string>>
  ) => { readonly ws: string; readonly view: Files.FileView }
}

const disks: ReadonlyArray<Disk> = [
  {
    name: "real filesystem",
    workspace: (files = {}) => {
      const ws = tempWorkspace()
      for (const [rel, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true })
        fs.writeFileSync(path.join(ws, rel), text)
      }
      return { ws, view: Files.node }
    }
  },
  {
    name: "in-memory filesystem",
    workspace: (files = {}) => {
      const ws = "/mem/ws"
      const entries: Record<string, Files.MemoryEntry> = { [ws]: "directory", "/etc/hosts": "file" }
      for (const [rel, text] of Object.entries(files)) entries[path.join(ws, rel)] = { content: text }
      return { ws, view: Files.memory(entries) }
    }
  }
]

const sha256 = (text: string) => crypto.createHash("sha256").update(text).digest("hex")
const expectedBundle = sha256(JSON.stringify([
  { path: "README.md", sha256: sha256("# x\n") },
  { path: "gone.txt", sha256: null },
  { path: "src/a.ts", sha256: sha256("export const a = 1\n") }
]))

const allEvents = Effect.flatMap(Evidence.EvidenceLog, (log) => Stream.runCollect(log.stream())).pipe(
  Effect.map(Chunk.toReadonlyArray)
)

for (const disk of disks) {
  const stack = (
    workspace: { readonly ws: string; readonly view: Files.FileView },
    responder: Layer.Layer<Responder.Responder>,
    extra: ReadonlyArray<Hooks.Hook> = []
  ) => {
    const { view, ws } = workspace
    const files = Layer.succeed(Files.Files, view)
    const evidence = Evidence.layerMemory
    const hooks = Hooks.layer({ workspace: ws, home: os.homedir(), extra }).pipe(
      Layer.provide(Layer.merge(evidence, files))
    )
    const engine = Policy.layer({ level: "execute", workspace: ws }).pipe(
      Layer.provide(Layer.merge(ShellParser.layer, files))
    )
    return Governance.layer.pipe(
      Layer.provideMerge(Layer.mergeAll(engine, responder, hooks)),
      Layer.provideMerge(evidence),
      Layer.orDie
    )
  }

  describe(`Governance (${disk.name})`, () => {
    it.effect("allow proceeds; the decision and audit_pretool are evidence, in seq order", () =>
      Effect.gen(function*() {
        const gate = yield* Governance.Governance
        const granted = yield* gate.authorize({ tool: "shell", command: "npm test" }, { runId: "r1" })
        assert.strictEqual(granted.grantedBy, "policy")
        const events = yield* allEvents
        assert.deepStrictEqual(events.map((e) => [e.seq, e.kind, e.hook]), [[1, "decision", null], [
          2,
          "hook",
          "audit_pretool"
        ]])
        assert.strictEqual(events[0]!.runId, "r1")
        assert.strictEqual((events[1]!.data as any).command, "npm test")
      }).pipe(Effect.provide(stack(disk.workspace(), Responder.layerNone))))

    it.effect("deny fails closed with the citation, and the blocked attempt is recorded", () =>
      Effect.gen(function*() {
        const gate = yield* Governance.Governance
        const error = yield* Effect.flip(gate.authorize({ tool: "shell", command: "ls && rm -rf ~" }))
        assert.strictEqual(error._tag, "GovernanceError")
        assert.strictEqual(error.code, "denied")
        assert.strictEqual((error.detail as any).citation.ruleId, "universal.rm-home")
        const events = yield* allEvents
        const audit = events.find((e) => e.hook === "audit_pretool")!
        assert.isTrue((audit.data as any).blocked)
        assert.strictEqual((audit.data as any).citation.ruleId, "universal.rm-home")
      }).pipe(Effect.provide(stack(disk.workspace(), Responder.layerNone))))

    it.effect("ask with nobody to answer fails closed with the citation", () =>
      Effect.gen(function*() {
        const gate = yield* Governance.Governance
        const error = yield* Effect.flip(gate.authorize({ tool: "shell", command: "git push origin main" }))
        assert.strictEqual(error.code, "ask-unanswered")
        assert.strictEqual((error.detail as any).citation.ruleId, "universal.publish.git-push")
        assert.include(error.message, "failing closed")
        const answer = (yield* allEvents).find((e) => e.kind === "answer")!
        assert.strictEqual((answer.data as any).answer, "unanswered")
      }).pipe(Effect.provide(stack(disk.workspace(), Responder.layerNone))))

    it.effect("ask resolved by the Responder: allow grants, deny refuses", () =>
      Effect.gen(function*() {
        const seen: Array<string> = []
        const responder = Responder.layerWith((request) =>
          Effect.sync(() => {
            seen.push(request.decision.citation.ruleId ?? "none")
            return { answer: request.call.tool === "fetch" ? "allow" as const : "deny" as const, by: "alice" }
          })
        )
        yield* Effect.gen(function*() {
          const gate = yield* Governance.Governance
          const granted = yield* gate.authorize({ tool: "fetch", url: "https://example.com" })
          assert.strictEqual(granted.grantedBy, "alice")
          const refused = yield* Effect.flip(gate.authorize({ tool: "shell", command: "git push" }))
          assert.strictEqual(refused.code, "denied")
          assert.include(refused.message, "alice")
        }).pipe(Effect.provide(stack(disk.workspace(), responder)))
        assert.deepStrictEqual(seen, ["none", "universal.publish.git-push"])
      }))

    it.effect("a failing hook never breaks the run: it becomes evidence naming the hook", () =>
      Effect.gen(function*() {
        const gate = yield* Governance.Governance
        const granted = yield* gate.authorize({ tool: "shell", command: "ls" })
        assert.strictEqual(granted.decision.decision, "allow")
        const events = yield* allEvents
        const failures = events.filter((e) => e.kind === "hook_error")
        assert.deepStrictEqual(failures.map((e) => e.hook), ["explodes", "dies"])
        assert.include((failures[0]!.data as any).error, "boom")
        assert.strictEqual((failures[0]!.data as any).summary, "hook error (run continued)")
        // seq is strictly increasing
        assert.deepStrictEqual(events.map((e) => e.seq), events.map((_, i) => i + 1))
      }).pipe(Effect.provide(stack(disk.workspace(), Responder.layerNone, [
        { id: "explodes", points: ["pre_tool"], run: () => Effect.fail(new Error("boom")) },
        { id: "dies", points: ["pre_tool"], run: () => Effect.die("kaput") }
      ]))))

    it.effect("post-tool, failure, guardrail_verify and completion_evidence hooks", () => {
      const workspace = disk.workspace({ "src/a.ts": "export const a = 1\n", "README.md": "# x\n" })
      const ws = workspace.ws
      return Effect.gen(function*() {
        const gate = yield* Governance.Governance
        yield* gate.completed({ tool: "shell", command: "npm test" }, {
          exitCode: 0,
          claimedFiles: ["src/a.ts", "src/missing.ts", "/etc/hosts"]
        })
        yield* gate.completed({ tool: "shell", command: "npm test" }, {
          exitCode: 1,
          error: "Error: expected 3 got 4 TOKEN=abc123456"
        })
        const done = yield* gate.taskCompleted({
          touchedFiles: ["src/a.ts", "README.md", "./src/a.ts", "gone.txt"],
          mode: "build"
        })
        const events = yield* allEvents
        const byHook = (id: string) => events.filter((e) => e.hook === id).map((e) => e.data as any)
        assert.strictEqual(byHook("audit_posttool")[0].exitCode, 0)
        const verify = byHook("guardrail_verify")[0]
        assert.isFalse(verify.ok)
        assert.deepStrictEqual(verify.verified, ["src/a.ts"])
        assert.deepStrictEqual(verify.missing, ["src/missing.ts"])
        assert.deepStrictEqual(verify.outside, ["/etc/hosts"])
        const failure = byHook("tool_failure")[0]
        assert.strictEqual(failure.exitCode, 1)
        assert.notInclude(failure.error, "abc123456")
        const bundle = done.find((e) => e.hook === "completion_evidence")!.data as any
        assert.deepStrictEqual(bundle.files.map((f: any) => f.path), ["README.md", "gone.txt", "src/a.ts"])
        assert.isNull(bundle.files[1].sha256)
        assert.strictEqual(bundle.mode, "build")
        // deterministic: the same files give the same digest
        assert.strictEqual(
          Hooks.touchedBundle(ws, ws, ["README.md", "src/a.ts", "gone.txt"], workspace.view).digest,
          bundle.digest
        )
        // the same files give the same bundle on either filesystem
        assert.strictEqual(bundle.digest, expectedBundle)
      }).pipe(Effect.provide(stack(workspace, Responder.layerNone)))
    })
  })
}

describe("Evidence.redact", () => {
  it("removes secrets from command text", () => {
    const text = Evidence.redact(
      "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 curl -H 'Authorization: Bearer abcdefghijkl' https://u:p@x.io --password hunter2"
    )
    assert.notInclude(text, "ghp_abcdefghijklmnopqrstuvwxyz0123")
    assert.notInclude(text, "abcdefghijkl'")
    assert.notInclude(text, "u:p@")
    assert.notInclude(text, "hunter2")
    assert.include(text, "curl")
  })
})

describe("Governance.layerFrom", () => {
  it.effect("composes parser, engine, hooks and gate over the host's responder and evidence store", () =>
    Effect.gen(function*() {
      const gate = yield* Governance.Governance
      const engine = yield* Policy.PolicyEngine
      assert.strictEqual(engine.level, "assist")
      const error = yield* Effect.flip(gate.authorize({ tool: "shell", command: "npm test" }, { runId: "s1" }))
      assert.strictEqual(error.code, "ask-unanswered")
      const events = yield* allEvents
      assert.deepStrictEqual(events.map((e) => [e.kind, e.hook]), [["decision", null], ["hook", "audit_pretool"], [
        "hook",
        "mine"
      ], ["answer", null]])
      assert.isTrue(events.every((e) => e.runId === "s1"))
    }).pipe(Effect.provide(
      Governance.layerFrom({
        home: os.homedir(),
        level: "assist",
        workspace: tempWorkspace(),
        hooks: [{ id: "mine", points: ["pre_tool"], run: (ctx) => Effect.succeed({ point: ctx.point }) }]
      }).pipe(Layer.provideMerge(Layer.merge(Responder.layerNone, Evidence.layerMemory)), Layer.orDie)
    )))
})

describe("Hooks", () => {
  it.effect("a hook that never finishes is abandoned after the timeout and recorded; the run continues", () =>
    Effect.gen(function*() {
      const hooks = yield* Hooks.Hooks
      const fiber = yield* Effect.fork(hooks.fire({ point: "task_completed", touchedFiles: [] }))
      yield* TestClock.adjust("2 seconds")
      const events = yield* Fiber.join(fiber)
      const hung = events.find((e) => e.hook === "hangs")!
      assert.strictEqual(hung.kind, "hook_error")
      assert.include((hung.data as any).error, "timed out")
      assert.isDefined(events.find((e) => e.hook === "after"))
    }).pipe(Effect.provide(
      Hooks.layer({
        home: os.homedir(),
        workspace: tempWorkspace(),
        timeout: "1 second",
        extra: [
          { id: "hangs", points: ["task_completed"], run: () => Effect.never },
          { id: "after", points: ["task_completed"], run: () => Effect.succeed({ fine: true }) }
        ]
      }).pipe(Layer.provideMerge(Evidence.layerMemory))
    )))

  it.effect("a synchronous hook is called in order: its output, nothing for undefined, a throw as hook_error", () =>
    Effect.gen(function*() {
      const hooks = yield* Hooks.Hooks
      const events = yield* hooks.fire({ point: "post_tool", call: { tool: "mcp", name: "noop" }, runId: "r1" })
      assert.deepStrictEqual(events.map((e) => [e.kind, e.hook]), [
        ["hook", "audit_posttool"],
        ["hook", "first"],
        ["hook_error", "throws"],
        ["hook", "effectful"]
      ])
      assert.deepStrictEqual(events[1]!.data, { point: "post_tool", output: 1 })
      assert.include((events[2]!.data as any).error, "sync boom")
      assert.isTrue(events.every((e) => e.runId === "r1"))
      const decision = yield* decide({ tool: "mcp", name: "noop" }).pipe(Effect.provide(Parser))
      assert.deepStrictEqual(
        yield* hooks.fire({ point: "pre_tool", call: { tool: "mcp", name: "noop" }, decision }),
        []
      )
      // The hook as an effect (what a host calling `run` itself sees) gives the same output.
      const first = hooks.hooks.find((h) => h.id === "first")!
      assert.strictEqual(yield* first.run({ point: "post_tool", call: { tool: "mcp", name: "noop" } }), 1)
    }).pipe(Effect.provide(
      Hooks.layer({
        home: os.homedir(),
        workspace: tempWorkspace(),
        extra: [
          Hooks.sync({ id: "first", points: ["post_tool"], run: () => 1 }),
          Hooks.sync({ id: "nothing", points: ["post_tool", "pre_tool"], run: () => undefined }),
          Hooks.sync({
            id: "throws",
            points: ["post_tool"],
            run: () => {
              throw new Error("sync boom")
            }
          }),
          { id: "effectful", points: ["post_tool"], run: () => Effect.succeed({ fine: true }) }
        ]
      }).pipe(Layer.provideMerge(Evidence.layerMemory))
    )))

  it.effect("a failing evidence store does not break hooks", () =>
    Effect.gen(function*() {
      const hooks = yield* Hooks.Hooks
      const events = yield* hooks.fire({ point: "task_completed", touchedFiles: ["a"] })
      assert.deepStrictEqual(events, [])
    }).pipe(Effect.provide(
      Hooks.layer({ workspace: tempWorkspace(), home: os.homedir() }).pipe(
        Layer.provide(Layer.succeed(
          Evidence.EvidenceLog,
          Evidence.EvidenceLog.of({
            append: () => Effect.fail(GovernanceError.make("evidence-store", "disk full")),
            stream: () => Stream.empty,
            live: Stream.empty
          })
        ))
      )
    )))
})
