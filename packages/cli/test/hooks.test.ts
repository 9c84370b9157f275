import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import * as Learning from "@steward/reflex-core/Learning"
import * as Reflexes from "@steward/reflex-core/Reflexes"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import * as ReflexEngine from "../src/commands/reflex/engine.js"
import * as CodexSandbox from "../src/hooks/CodexSandbox.js"
import * as HookRuntime from "../src/hooks/HookRuntime.js"
import * as Host from "../src/hooks/Host.js"
import * as Input from "../src/hooks/Input.js"
import * as PreTool from "../src/hooks/PreTool.js"
import type { Containment } from "../src/hooks/PreTool.js"
import * as SandboxRewrite from "../src/hooks/SandboxRewrite.js"
import * as Wire from "../src/hooks/Wire.js"
import { runCli } from "./harness.js"

const fixtures = path.join(import.meta.dirname, "fixtures", "agent-clis")
const inputs = (name: string): Array<{ event: string; input: Record<string, unknown> }> =>
  fs.readFileSync(path.join(fixtures, name), "utf8").trim().split("\n").map((l) => JSON.parse(l))

const project = () => {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-hooks-")))
  fs.mkdirSync(path.join(ws, ".steward"))
  return { ws, state: path.join(ws, ".steward") }
}

/** The captured input of an event, moved into `ws` and changed by `patch`. */
const event = (file: string, name: string, ws: string, patch: Record<string, unknown> = {}) => {
  const found = inputs(file).find((e) => e.event === name)!
  return { ...found.input, cwd: ws, ...patch }
}

const hook = (client: string, name: string, input: unknown, ws: string, extra: ReadonlyArray<string> = []) =>
  Effect.promise(() =>
    Host.runOnce({
      args: [client, name, "--workspace", ws, "--state-dir", path.join(ws, ".steward"), ...extra],
      home: os.homedir(),
      cwd: ws,
      stdin: typeof input === "string" ? input : JSON.stringify(input)
    })
  ).pipe(Effect.map((o) => ({ ...o, json: JSON.parse(o.stdout === "" ? "null" : o.stdout) })))

const bash = (command: string) => ({ tool_input: { command, description: "run" } })

describe("steward hook: before a tool call", () => {
  it.live("each client gets the deny in its own form, with the rule's citation", () =>
    Effect.gen(function*() {
      const { ws } = project()
      const claude = yield* hook(
        "claude-code",
        "PreToolUse",
        event("claude-hook-inputs.jsonl", "PreToolUse", ws, bash("git push --force origin main")),
        ws
      )
      assert.strictEqual(claude.json.hookSpecificOutput.permissionDecision, "deny")
      assert.include(claude.json.hookSpecificOutput.permissionDecisionReason, "universal.force-push")
      const codex = yield* hook(
        "codex",
        "PreToolUse",
        event("codex-hook-inputs.jsonl", "PreToolUse", ws, { tool_input: { command: "git push --force origin main" } }),
        ws
      )
      assert.strictEqual(codex.json.hookSpecificOutput.permissionDecision, "deny")
      const gemini = yield* hook(
        "gemini",
        "BeforeTool",
        event("gemini-hook-inputs.jsonl", "BeforeTool", ws, bash("git push --force origin main")),
        ws
      )
      assert.strictEqual(gemini.json.decision, "deny")
      assert.include(gemini.json.reason, "universal.force-push")
      // Gemini ignores Claude's form (the command would run): it never gets it.
      assert.isUndefined(gemini.json.hookSpecificOutput)
      const allowed = yield* hook(
        "gemini",
        "BeforeTool",
        event("gemini-hook-inputs.jsonl", "BeforeTool", ws, bash("ls")),
        ws
      )
      assert.deepStrictEqual([allowed.json.decision, allowed.exitCode], ["allow", 0])
    }))

  it.live("file, fetch, MCP and unknown tools are decided as what they are", () =>
    Effect.gen(function*() {
      const { ws } = project()
      const base = event("claude-hook-inputs.jsonl", "PreToolUse", ws)
      const decide = (tool_name: string, tool_input: unknown) =>
        Effect.map(hook("claude-code", "PreToolUse", { ...base, tool_name, tool_input }, ws), (r) =>
          r.json.hookSpecificOutput)
      assert.strictEqual((yield* decide("Read", { file_path: path.join(ws, "a.txt") })).permissionDecision, "allow")
      const outside = yield* decide("Write", { file_path: "/etc/passwd", content: "x" })
      assert.notStrictEqual(outside.permissionDecision, "allow")
      assert.include(outside.permissionDecisionReason, "outside")
      assert.strictEqual(
        (yield* decide("Edit", { file_path: path.join(ws, ".git/hooks/pre-commit") })).permissionDecision,
        "ask"
      )
      assert.strictEqual((yield* decide("mcp__github__delete_repo", { repo: "x" })).permissionDecision, "ask")
      const bad = yield* decide("Write", { path: "no file_path" })
      assert.strictEqual(bad.permissionDecision, "deny")
      assert.include(bad.permissionDecisionReason, "file_path")
    }))

  it.live("an ask names `steward hooks approve`, and an approval allows the same call once", () =>
    Effect.gen(function*() {
      const { state, ws } = project()
      const input = event("claude-hook-inputs.jsonl", "PreToolUse", ws, bash("eval \"$(cat x)\""))
      const asked = yield* hook("claude-code", "PreToolUse", input, ws)
      assert.strictEqual(asked.json.hookSpecificOutput.permissionDecision, "ask")
      const reason: string = asked.json.hookSpecificOutput.permissionDecisionReason
      const id = /steward hooks approve (\w+)/.exec(reason)![1]!
      // Codex has no approval prompt in exec mode: the same ask is a deny there.
      const codex = yield* hook(
        "codex",
        "PreToolUse",
        event("codex-hook-inputs.jsonl", "PreToolUse", ws, { tool_input: { command: "eval \"$(cat x)\"" } }),
        ws
      )
      assert.strictEqual(codex.json.hookSpecificOutput.permissionDecision, "deny")
      assert.include(codex.json.hookSpecificOutput.permissionDecisionReason, `steward hooks approve ${id}`)
      const approved = yield* runCli(["hooks", "approve", id, "--state-dir", state, "--json"])
      assert.strictEqual(approved.exitCode, 0)
      const once = yield* hook("claude-code", "PreToolUse", input, ws)
      assert.strictEqual(once.json.hookSpecificOutput.permissionDecision, "allow")
      const again = yield* hook("claude-code", "PreToolUse", input, ws)
      assert.strictEqual(again.json.hookSpecificOutput.permissionDecision, "ask")
      const unknown = yield* runCli(["hooks", "approve", "nope", "--state-dir", state])
      assert.strictEqual(unknown.exitCode, 1)
    }))
})

describe("steward hook: fails closed", () => {
  it.live("bad input, an unreadable store, a bad policy: deny for a tool call, no opinion otherwise", () =>
    Effect.gen(function*() {
      const { state, ws } = project()
      const pre = event("claude-hook-inputs.jsonl", "PreToolUse", ws, bash("ls"))
      const notJson = yield* hook("claude-code", "PreToolUse", "{not json", ws)
      assert.strictEqual(notJson.json.hookSpecificOutput.permissionDecision, "deny")
      const noSession = yield* hook("gemini", "BeforeTool", { cwd: ws, tool_name: "run_shell_command" }, ws)
      assert.strictEqual(noSession.json.decision, "deny")
      assert.include(noSession.json.reason, "session_id")
      const stopBad = yield* hook("claude-code", "Stop", "[]", ws)
      assert.deepStrictEqual(stopBad.json, {})
      fs.writeFileSync(path.join(state, "steward.sqlite"), "this is not a database, it is a hostile file".repeat(100))
      const store = yield* hook("claude-code", "PreToolUse", pre, ws)
      assert.strictEqual(store.json.hookSpecificOutput.permissionDecision, "deny")
      assert.include(store.json.hookSpecificOutput.permissionDecisionReason, "store")
      const missing = yield* hook("codex", "PreToolUse", pre, ws, ["--state-dir", path.join(ws, "nope")])
      assert.strictEqual(missing.json.hookSpecificOutput.permissionDecision, "deny")
      const other = project()
      fs.writeFileSync(path.join(other.state, "policy.yaml"), "rules: [{id: x, effect: maybe}]\n")
      const policy = yield* hook(
        "gemini",
        "BeforeTool",
        event("gemini-hook-inputs.jsonl", "BeforeTool", other.ws, bash("ls")),
        other.ws
      )
      assert.strictEqual(policy.json.decision, "deny")
      assert.include(policy.json.reason, "policy")
      const unknown = yield* Effect.promise(() =>
        Host.runOnce({ args: ["cursor", "PreToolUse"], home: ws, cwd: ws, stdin: "{}" })
      )
      assert.deepStrictEqual([unknown.exitCode, unknown.stdout], [2, ""])
    }))
})

const SHORT = "Schema migrated. Next, I'll update the callers:"
/** The tool calls of a turn that did real work before it stopped short. */
const WORK = 20

/** A session id whose first settle is not in the one-in-ten hold-back. */
const sessionFor = (client: string, prefix: string): string => {
  for (let i = 0;; i++) {
    if (!Learning.heldTurn("stopped_short", `hook:${client}:${prefix}${i}`, 0)) return `${prefix}${i}`
  }
}

const certify = (state: string) =>
  Effect.gen(function*() {
    const reflexes = yield* Reflexes.Reflexes
    for (let i = 1; i <= 60; i++) {
      yield* reflexes.decide("settle", { text: SHORT, toolCalls: WORK }, { subject: `history${i}` })
      yield* reflexes.label("settle", `history${i}`, i % 10 === 0 ? "done" : "stopped_short")
    }
  }).pipe(Effect.provide(ReflexEngine.engineLayer(Option.some(state))), Effect.provide(NodeContext.layer))

describe("steward hook: the turn", () => {
  it.live("a no-progress stretch is nudged through additionalContext", () =>
    Effect.gen(function*() {
      const { ws } = project()
      const post = event("claude-hook-inputs.jsonl", "PostToolUse", ws)
      const answers = []
      for (let i = 0; i < 5; i++) answers.push((yield* hook("claude-code", "PostToolUse", post, ws)).json)
      assert.deepStrictEqual(answers[0], {})
      const nudge = answers.find((a) => a.hookSpecificOutput !== undefined)
      assert.include(nudge.hookSpecificOutput.additionalContext, "changed nothing")
      // Gemini's output names a new process group each run: the same output all the same.
      const gemini = (i: number) =>
        event("gemini-hook-inputs.jsonl", "AfterTool", ws, {
          tool_response: { llmContent: `Output: marker-created\nProcess Group PGID: ${1000 + i}`, returnDisplay: "x" }
        })
      for (let i = 0; i < 5; i++) answers.push((yield* hook("gemini", "AfterTool", gemini(i), ws)).json)
      assert.strictEqual(answers.at(-1).hookSpecificOutput.hookEventName, "AfterTool")
    }))

  it.live("Stop continues a stopped-short turn only with a certified head; a reply labels the turn", () =>
    Effect.gen(function*() {
      const { state, ws } = project()
      const turn = (client: string, session: string, text: string, active = false) =>
        Effect.gen(function*() {
          const file = client === "codex" ? "codex-hook-inputs.jsonl" : "claude-hook-inputs.jsonl"
          for (let i = 0; i < WORK; i++) {
            const post = event(file, "PostToolUse", ws, { session_id: session, tool_response: `step ${i}` })
            yield* hook(client, "PostToolUse", post, ws)
          }
          const stop = event(file, "Stop", ws, {
            session_id: session,
            last_assistant_message: text,
            stop_hook_active: active
          })
          return (yield* hook(client, "Stop", stop, ws)).json
        })
      assert.deepStrictEqual(yield* turn("claude-code", "uncertified", SHORT), {})
      yield* certify(state)
      const session = sessionFor("claude-code", "s")
      const continued = yield* turn("claude-code", session, SHORT)
      assert.strictEqual(continued.decision, "block")
      assert.match(continued.reason, /^Carry on: .* receipt sha256:[0-9a-f]{64}/)
      // The continued turn stops again with nothing done: a loop, not continued.
      const stop = event("claude-hook-inputs.jsonl", "Stop", ws, {
        session_id: session,
        last_assistant_message: "Callers updated.",
        stop_hook_active: true
      })
      assert.deepStrictEqual((yield* hook("claude-code", "Stop", stop, ws)).json, {})
      const risky = yield* turn(
        "codex",
        sessionFor("codex", "r"),
        "Schema migrated. Shall I force-push the branch to main now?"
      )
      assert.deepStrictEqual(risky, {})
      const codex = yield* turn("codex", sessionFor("codex", "c"), SHORT)
      assert.strictEqual(codex.decision, "block")
      // The person answers "continue" right after a stopped-short turn: a label of that turn.
      const labeled = sessionFor("claude-code", "l")
      yield* turn("claude-code", labeled, SHORT)
      const prompt = event("claude-hook-inputs.jsonl", "UserPromptSubmit", ws, {
        session_id: labeled,
        prompt: "continue"
      })
      assert.deepStrictEqual((yield* hook("claude-code", "UserPromptSubmit", prompt, ws)).json, {})
      const status = yield* runCli(["reflex", "status", "settle", "--state-dir", state, "--json"])
      // 60 labeled turns of history, and this one.
      assert.strictEqual(status.json()[0].labeled, 61)
    }))
})

describe("steward hooks install / uninstall", () => {
  it.live("install merges, uninstall leaves the file byte-identical; dry run writes nothing", () =>
    Effect.gen(function*() {
      const { state, ws } = project()
      const file = path.join(ws, ".claude", "settings.json")
      fs.mkdirSync(path.dirname(file))
      const original =
        "{\n    \"model\": \"opus\",\n    \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./mine.sh\"}]}]}\n}"
      fs.writeFileSync(file, original)
      const dry = yield* runCli(["hooks", "install", "claude-code", "--workspace", ws, "--dry-run", "--json"])
      assert.strictEqual(dry.exitCode, 0, dry.stderr)
      assert.include(dry.json().diff, "+ ")
      assert.strictEqual(fs.readFileSync(file, "utf8"), original)
      const done = yield* runCli(["hooks", "install", "claude-code", "--workspace", ws, "--level", "assist"])
      assert.strictEqual(done.exitCode, 0, done.stderr)
      const installed = JSON.parse(fs.readFileSync(file, "utf8"))
      assert.strictEqual(installed.model, "opus")
      assert.strictEqual(installed.hooks.PreToolUse.length, 2)
      assert.strictEqual(installed.hooks.PreToolUse[0].hooks[0].command, "./mine.sh")
      // The lean entry (ADR 0006) when the CLI is built, else `steward hook` through tsx.
      assert.match(installed.hooks.Stop[0].hooks[0].command, /(?:hook\.cjs|bin\.ts'? hook) claude-code Stop /)
      assert.include(installed.hooks.Stop[0].hooks[0].command, `--state-dir ${state}`)
      const status = yield* runCli(["hooks", "status", "--workspace", ws, "--json"])
      assert.include(Object.keys(status.json().clients[0].events), "PreToolUse")
      const again = yield* runCli(["hooks", "install", "claude-code", "--workspace", ws])
      assert.strictEqual(again.exitCode, 0)
      assert.strictEqual(JSON.parse(fs.readFileSync(file, "utf8")).hooks.PreToolUse.length, 2)
      yield* runCli(["hooks", "uninstall", "claude-code", "--workspace", ws])
      assert.strictEqual(fs.readFileSync(file, "utf8"), original)
      // Gemini: milliseconds, its own event names; a file that did not exist is removed again.
      yield* runCli(["hooks", "install", "gemini", "--workspace", ws])
      const gemini = JSON.parse(fs.readFileSync(path.join(ws, ".gemini", "settings.json"), "utf8"))
      assert.strictEqual(gemini.hooks.BeforeTool[0].hooks[0].timeout, 30000)
      yield* runCli(["hooks", "uninstall", "gemini", "--workspace", ws])
      assert.isFalse(fs.existsSync(path.join(ws, ".gemini", "settings.json")))
      fs.writeFileSync(file, "{ not json")
      const bad = yield* runCli(["hooks", "install", "claude-code", "--workspace", ws])
      assert.strictEqual(bad.exitCode, 2)
      assert.strictEqual(fs.readFileSync(file, "utf8"), "{ not json")
    }))
})

describe("the sandbox rewrite", () => {
  it("quotes every word so bash -c gets the original command byte for byte", () => {
    const commands = [
      "git status && npm test",
      "echo 'it''s' \"$HOME\" `id` $(whoami) \\\\ ; rm -rf ~",
      "printf '%s\\n' a\nb\tc",
      "x='; touch /tmp/pwned #'"
    ]
    for (const command of commands) {
      const line = SandboxRewrite.wrap({ node: "printf", entry: ["%s\\0"] }, {
        workspace: "/w s/p'q",
        level: "execute",
        command
      })
      const out = execFileSync("bash", ["-c", line], { encoding: "utf8" }).split("\0").slice(0, -1)
      assert.deepStrictEqual(out, [
        "sandbox",
        "--workspace",
        "/w s/p'q",
        "--level",
        "execute",
        "--",
        "bash",
        "-c",
        command
      ])
    }
  })
})

/** A Codex transcript whose turn context (for the captured input's turn) has `policy`. */
/** The evidence store, read directly (better-sqlite3 ships no types). */
interface Db {
  prepare(sql: string): { all(): Array<{ data: string }> }
  close(): void
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new(file: string, o: object) => Db

const codexTranscript = (
  ws: string,
  policy: Record<string, unknown>,
  options: { readonly turn?: string; readonly after?: ReadonlyArray<string> } = {}
) => {
  const turn = options.turn ??
    String((event("codex-hook-inputs.jsonl", "PreToolUse", ws) as Record<string, unknown>)["turn_id"])
  const file = path.join(ws, `rollout-${Math.random().toString(36).slice(2)}.jsonl`)
  const lines = [
    JSON.stringify({ type: "session_meta", payload: { id: "s" } }),
    JSON.stringify({
      type: "turn_context",
      payload: { turn_id: turn, approval_policy: "never", sandbox_policy: policy }
    }),
    ...(options.after ?? [])
  ]
  fs.writeFileSync(file, `${lines.join("\n")}\n`)
  return file
}

describe("steward hook: allow, contained", () => {
  const contained = { launcher: { node: "/usr/bin/node", entry: ["/opt/steward/dist/bin.js"] } }
  const decide = (
    client: "claude-code" | "codex" | "gemini",
    input: Record<string, unknown>,
    ws: string,
    containment: Containment
  ) =>
    Effect.gen(function*() {
      const runtime = yield* HookRuntime.HookRuntime
      const governed = yield* runtime.governed({
        workspace: ws,
        level: undefined,
        home: os.homedir(),
        rules: undefined
      })
      const stores = yield* runtime.stores(path.join(ws, ".steward"))
      const decoded = Input.decode(client, input)
      assert.isTrue(decoded._tag === "Right")
      const answer = yield* PreTool.decide({
        client,
        input: (decoded as { right: Input.HookInput }).right,
        governed,
        stores,
        stateDir: path.join(ws, ".steward"),
        containment
      })
      return JSON.parse(Wire.render(client, "pre_tool", answer))
    }).pipe(Effect.provide(HookRuntime.layer.pipe(Layer.provideMerge(NodeContext.layer))))

  it.live("what the analyser cannot resolve is rewritten into `steward sandbox` in each client's form; without a sandbox it is asked", () =>
    Effect.gen(function*() {
      const { ws } = project()
      const command = "eval \"$(cat steps.txt)\" 'it''s'"
      const q = "'\\''"
      const expected = `/usr/bin/node /opt/steward/dist/bin.js sandbox --workspace ${ws} --level execute -- bash -c ` +
        `'eval "$(cat steps.txt)" ${q}it${q}${q}s${q}'`
      const claude = yield* decide(
        "claude-code",
        event("claude-hook-inputs.jsonl", "PreToolUse", ws, bash(command)),
        ws,
        contained
      )
      assert.strictEqual(claude.hookSpecificOutput.permissionDecision, "allow")
      assert.include(claude.hookSpecificOutput.permissionDecisionReason, "sandbox.contained")
      assert.deepStrictEqual(claude.hookSpecificOutput.updatedInput, { command: expected, description: "run" })
      const gemini = yield* decide(
        "gemini",
        event("gemini-hook-inputs.jsonl", "BeforeTool", ws, bash(command)),
        ws,
        contained
      )
      assert.strictEqual(gemini.decision, "allow")
      assert.strictEqual(gemini.hookSpecificOutput.tool_input.command, expected)
      // Codex without a sandbox of its own (danger-full-access): Steward's, through the rewrite.
      const codex = yield* decide(
        "codex",
        event("codex-hook-inputs.jsonl", "PreToolUse", ws, {
          tool_input: { command },
          transcript_path: codexTranscript(ws, { type: "danger-full-access" })
        }),
        ws,
        contained
      )
      assert.deepStrictEqual(codex.hookSpecificOutput.updatedInput, { command: expected })
      // No sandbox in this build: the gate's ask stands (a deny in Codex).
      const plain = yield* decide(
        "codex",
        event("codex-hook-inputs.jsonl", "PreToolUse", ws, {
          tool_input: { command },
          transcript_path: codexTranscript(ws, { type: "danger-full-access" })
        }),
        ws,
        { launcher: undefined }
      )
      assert.strictEqual(plain.hookSpecificOutput.permissionDecision, "deny")
      assert.include(plain.hookSpecificOutput.permissionDecisionReason, "steward hooks approve")
      // A plain allow runs as it is; a universal deny stays a deny with the boundary there.
      const ls = yield* decide(
        "claude-code",
        event("claude-hook-inputs.jsonl", "PreToolUse", ws, bash("ls")),
        ws,
        contained
      )
      assert.isUndefined(ls.hookSpecificOutput.updatedInput)
      const push = yield* decide(
        "claude-code",
        event("claude-hook-inputs.jsonl", "PreToolUse", ws, bash("git push --force origin main")),
        ws,
        contained
      )
      assert.strictEqual(push.hookSpecificOutput.permissionDecision, "deny")
    }))
})

describe("steward hook: under Codex's own sandbox", () => {
  const command = "eval \"$(cat steps.txt)\""
  const pre = (ws: string, transcript: string | undefined) =>
    hook(
      "codex",
      "PreToolUse",
      event("codex-hook-inputs.jsonl", "PreToolUse", ws, {
        tool_input: { command },
        transcript_path: transcript ?? path.join(ws, "missing.jsonl")
      }),
      ws
    ).pipe(Effect.map((outcome) => JSON.parse(outcome.stdout).hookSpecificOutput))

  it.live("workspace-write and read-only contain what the analyser cannot resolve: allowed as it is, citing Codex's sandbox", () =>
    Effect.gen(function*() {
      const { ws } = project()
      for (const policy of [{ type: "workspace-write", network_access: false }, { type: "read-only" }]) {
        const answer = yield* pre(ws, codexTranscript(ws, policy))
        assert.strictEqual(answer.permissionDecision, "allow")
        assert.isUndefined(answer.updatedInput)
        assert.include(answer.permissionDecisionReason, `Codex's own ${policy.type} sandbox`)
        assert.include(answer.permissionDecisionReason, "sandbox.contained")
      }
      const db = new Database(path.join(ws, ".steward", "steward.sqlite"), { readonly: true })
      const rows = db.prepare("SELECT data FROM governance_evidence WHERE kind = 'decision' ORDER BY seq")
        .all() as Array<
          { data: string }
        >
      db.close()
      assert.deepStrictEqual(rows.map((r) => JSON.parse(r.data).boundary), ["codex:workspace-write", "codex:read-only"])
    }))

  it.live("a sandbox that lets the network through, an unknown mode or no transcript: nothing contains it, the ask stands", () =>
    Effect.gen(function*() {
      const { ws } = project()
      for (
        const transcript of [
          codexTranscript(ws, { type: "workspace-write", network_access: true }),
          codexTranscript(ws, { type: "external-sandbox" }),
          undefined
        ]
      ) {
        const answer = yield* pre(ws, transcript)
        assert.strictEqual(answer.permissionDecision, "deny")
        assert.include(answer.permissionDecisionReason, "steward hooks approve")
      }
    }))

  it.live("the turn's own context is read, from the end of a transcript longer than one read", () =>
    Effect.gen(function*() {
      const { ws } = project()
      const filler = Array.from(
        { length: 3000 },
        (_, i) => JSON.stringify({ type: "response_item", i, text: "x".repeat(200) })
      )
      const newer = JSON.stringify({
        type: "turn_context",
        payload: { turn_id: "other", sandbox_policy: { type: "read-only" } }
      })
      // The turn's context (danger-full-access) lies 600 kB back, behind another turn's.
      const file = codexTranscript(ws, { type: "danger-full-access" }, { after: [...filler, newer, ...filler] })
      assert.deepStrictEqual(
        yield* CodexSandbox.read(
          file,
          String((event("codex-hook-inputs.jsonl", "PreToolUse", ws) as Record<string, unknown>)["turn_id"])
        ),
        { _tag: "none", policy: "danger-full-access" }
      )
      assert.deepStrictEqual(yield* CodexSandbox.read(file, undefined), { _tag: "contained", policy: "read-only" })
    }).pipe(Effect.provide(NodeContext.layer)))
})
