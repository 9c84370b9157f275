import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Policy, Rule, ShellParser } from "@steward/governance-rules"
import { Effect, Layer, type Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { HarnessError, Tools } from "../src/index.js"

const workspace = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-tools-")))
const context = (dir: string): Tools.ToolContext => ({ workspace: dir, runId: "r1", callId: "c1" })

const run = <F extends Schema.Struct.Fields, R>(tool: Tools.Tool<F, R>, input: unknown, dir: string) =>
  Effect.flatMap(Tools.decodeInput(tool, input), (decoded) => tool.execute(decoded, context(dir)))

const env = Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici, Tools.layerAskUserUnavailable)

describe("Tools", () => {
  it("the default toolkit has the seven tools, in order", () => {
    assert.deepStrictEqual(Tools.defaults.map((t) => t.name), [
      "shell",
      "read",
      "write",
      "edit",
      "todo_write",
      "ask_user",
      "fetch"
    ])
  })

  it("each tool names its governance action and resource", () => {
    const ctx = context("/ws")
    assert.deepStrictEqual(Tools.shell.governance({ command: "npm test" }, ctx), { tool: "shell", command: "npm test" })
    assert.deepStrictEqual(Tools.read.governance({ path: "src/a.ts" }, ctx), { tool: "read", paths: ["/ws/src/a.ts"] })
    assert.deepStrictEqual(Tools.write.governance({ path: "/ws/b", content: "" }, ctx), {
      tool: "write",
      paths: ["/ws/b"]
    })
    assert.deepStrictEqual(Tools.edit.governance({ path: "c", oldString: "a", newString: "b" }, ctx), {
      tool: "write",
      paths: ["/ws/c"]
    })
    assert.deepStrictEqual(Tools.todoWrite.governance({ todos: [] }, ctx), { tool: "mcp", name: "todo_write" })
    assert.deepStrictEqual(Tools.askUser.governance({ question: "?" }, ctx), { tool: "mcp", name: "ask_user" })
    assert.deepStrictEqual(Tools.fetch.governance({ url: "https://example.com/x" }, ctx), {
      tool: "fetch",
      url: "https://example.com/x"
    })
  })

  const governed = workspace()
  it.effect("governance decides the mapped calls: a .env read is not allowed, a workspace write is", () =>
    Effect.gen(function*() {
      const dir = governed
      const engine = yield* Policy.PolicyEngine
      const secret = yield* engine.decide(Tools.read.governance({ path: ".env" }, context(dir)))
      assert.notStrictEqual(secret.decision, "allow")
      assert.strictEqual(secret.citation.action, "read")
      const source = yield* engine.decide(Tools.write.governance({ path: "src/x.ts", content: "" }, context(dir)))
      assert.strictEqual(source.decision, "allow")
      assert.strictEqual(source.citation.action, "write")
    }).pipe(
      Effect.provide(
        Policy.layer({ level: "execute", workspace: governed }).pipe(
          Layer.provide(ShellParser.layer),
          Layer.orDie
        )
      )
    ))

  it.effect("baseline rules let todo_write and ask_user through at every level; a later user rule still wins", () =>
    Effect.gen(function*() {
      const decide = (
        level: "read_only" | "assist" | "execute",
        rules: ReadonlyArray<Rule.RuleInput>,
        call: Policy.ToolCall
      ) =>
        Effect.flatMap(Policy.PolicyEngine, (engine) => engine.decide(call)).pipe(
          Effect.provide(
            Policy.layer({ level, workspace: governed, rules: rules.map(Rule.make) }).pipe(
              Layer.provide(ShellParser.layer),
              Layer.orDie
            )
          )
        )
      const ctx = context(governed)
      const todo = Tools.todoWrite.governance({ todos: [] }, ctx)
      const ask = Tools.askUser.governance({ question: "?" }, ctx)
      for (const level of ["read_only", "assist", "execute"] as const) {
        assert.strictEqual((yield* decide(level, [], todo)).decision, "ask", `without the baseline at ${level}`)
        const allowed = yield* decide(level, Tools.baselineRules, todo)
        assert.deepStrictEqual([allowed.decision, allowed.citation.ruleId], ["allow", "harness.todo_write"], level)
        assert.strictEqual((yield* decide(level, Tools.baselineRules, ask)).citation.ruleId, "harness.ask_user")
      }
      const denied = yield* decide("execute", [...Tools.baselineRules, {
        id: "no-questions",
        action: "mcp",
        resource: "ask_user",
        effect: "deny"
      }], ask)
      assert.deepStrictEqual([denied.decision, denied.citation.ruleId], ["deny", "no-questions"])
    }))

  it.effect("bad input is a typed INVALID_INPUT naming the tool and the field", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Tools.decodeInput(Tools.edit, { path: "a", oldString: 1, newString: "b" }))
      assert.instanceOf(error, HarnessError.HarnessError)
      assert.strictEqual(error.code, "INVALID_INPUT")
      assert.include(error.message, "tool edit")
      assert.include(error.message, "oldString")
      const extra = yield* Effect.flip(Tools.decodeInput(Tools.read, { path: "a", bogus: true }))
      assert.include(extra.message, "bogus")
    }))

  describe("shell", () => {
    it("budget: 120 s by default, 300 s without a reason, 900 s at most", () => {
      assert.deepStrictEqual(Tools.shellBudget(undefined, undefined), { seconds: 120 })
      assert.deepStrictEqual(Tools.shellBudget(45, undefined), { seconds: 45 })
      assert.deepStrictEqual(Tools.shellBudget(300, undefined), { seconds: 300 })
      const capped = Tools.shellBudget(600, undefined)
      assert.strictEqual(capped.seconds, 300)
      assert.include(capped.note, "state a reason")
      assert.deepStrictEqual(Tools.shellBudget(600, "full integration suite"), { seconds: 600 })
      assert.deepStrictEqual(Tools.shellBudget(600, "  "), capped)
      assert.strictEqual(Tools.shellBudget(5000, "migration").seconds, 900)
    })

    it.effect("runs in the workspace, merges stdout and stderr, reports the exit code as a check", () =>
      Effect.gen(function*() {
        const dir = workspace()
        const ok = yield* run(Tools.shell, { command: "pwd; echo err >&2" }, dir)
        assert.isTrue(ok.ok)
        assert.include(ok.output, dir)
        assert.include(ok.output, "err")
        assert.include(ok.output, "[exit code 0]")
        assert.deepStrictEqual(ok.check, { command: "pwd; echo err >&2", exitCode: 0 })
        const bad = yield* run(Tools.shell, { command: "exit 3" }, dir)
        assert.isFalse(bad.ok)
        assert.deepStrictEqual(bad.check, { command: "exit 3", exitCode: 3 })
      }).pipe(Effect.provide(env)))

    it.live("a timeout returns the partial output and an instruction to narrow the command", () =>
      Effect.gen(function*() {
        const dir = workspace()
        const result = yield* run(
          Tools.shell,
          { command: "echo started; sleep 30; echo never", timeoutSeconds: 1 },
          dir
        )
        assert.isFalse(result.ok)
        assert.isTrue(result.timedOut)
        assert.include(result.output, "started")
        assert.notInclude(result.output, "never")
        assert.include(result.output, "timed out after 1 s")
        assert.include(result.output, "Narrow it")
        assert.isUndefined(result.check)
      }).pipe(Effect.provide(env)))

    it.effect("a budget above the ceiling is lowered and the model is told why", () =>
      Effect.gen(function*() {
        const dir = workspace()
        const result = yield* run(Tools.shell, { command: "echo hi", timeoutSeconds: 1200 }, dir)
        assert.isTrue(result.ok)
        assert.match(result.output, /^\[time budget lowered to 300 s; state a reason to allow up to 900 s\]\nhi\n/)
        const explained = yield* run(
          Tools.shell,
          { command: "echo hi", timeoutSeconds: 1200, reason: "full build" },
          dir
        )
        assert.match(explained.output, /^\[time budget lowered to the maximum of 900 s\]/)
      }).pipe(Effect.provide(env)))

    it.live(
      "a timeout stops background children; attached jobs stop with the shell, detached ones run on",
      () =>
        Effect.gen(function*() {
          const dir = workspace()
          const marker = `${dir}/late`
          const timedOut = yield* run(
            Tools.shell,
            { command: `(sleep 3; touch ${marker}) & echo started; wait`, timeoutSeconds: 1 },
            dir
          )
          assert.isTrue(timedOut.timedOut)
          assert.include(timedOut.output, "started")
          yield* Effect.sleep("3500 millis")
          assert.isFalse(fs.existsSync(marker), "the background child was killed with the group")
          // A job still attached to the output pipes is stopped when the shell ends (after a grace)
          const stray = `(sleep 3; touch ${marker}) & echo done`
          const attached = yield* run(Tools.shell, { command: stray }, dir)
          assert.deepStrictEqual(attached.check, { command: stray, exitCode: 0 })
          assert.include(attached.output, "done")
          assert.include(attached.output, "background processes still writing to this output were stopped")
          yield* Effect.sleep("1500 millis")
          assert.isFalse(fs.existsSync(marker), "the attached job was stopped")
          const detached = `(sleep 3; touch ${marker}) > /dev/null 2>&1 & echo quiet`
          const left = yield* run(Tools.shell, { command: detached }, dir)
          assert.notInclude(left.output, "background processes")
          yield* Effect.sleep("3500 millis")
          assert.isTrue(fs.existsSync(marker), "a detached job with its own output keeps running")
        }).pipe(Effect.provide(env)),
      30_000
    )

    it.effect("long output is bounded, head and tail kept", () =>
      Effect.gen(function*() {
        const dir = workspace()
        const result = yield* run(Tools.shell, { command: "seq 1 20000; echo tail-marker" }, dir)
        assert.isTrue(result.truncated)
        assert.isBelow(result.output.length, 31_000)
        assert.match(result.output, /^1\n2\n/)
        assert.include(result.output, "tail-marker")
        assert.include(result.output, "characters omitted")
      }).pipe(Effect.provide(env)))
  })
})
