import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as AgentProcess from "../src/commands/audit/agentProcess.js"
import * as Envelope from "../src/commands/audit/envelope.js"

// The invocation envelope (issue 39 item 2): every field, hashes over the exact bytes dispatched,
// the executable digested from its bytes and never run.

const AGENTS = path.join(import.meta.dirname, "fixtures", "agents")
const hex = (bytes: string | Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** A copy of the must-not-run agent in a fresh folder, so its marker is this test's own. */
const agentCopy = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "steward-envelope-"))
  const file = path.join(dir, "codex")
  fs.copyFileSync(path.join(AGENTS, "must-not-run.sh"), file)
  fs.chmodSync(file, 0o755)
  return { dir, file }
}

const opened = (executable: string, charter: string, prompt: string) =>
  Envelope.open({
    agent: { agent: "codex", model: "gpt-5-codex" },
    executable,
    role: "Auditor",
    charter,
    prompt,
    stateRevision: 7,
    headBefore: "0123456789abcdef0123456789abcdef01234567",
    sessionId: "00112233aabbccdd",
    sandboxProfile: "bwrap:workspace-write"
  }).pipe(Effect.provide(NodeContext.layer))

describe("Envelope", () => {
  it.effect("every field; the executable's digest is of its bytes and it never ran", () =>
    Effect.gen(function*() {
      const { dir, file } = agentCopy()
      const charter = "P-01 ünïcode\n"
      const prompt = `You are the Auditor.\r\n${charter}`
      const envelope = yield* opened(file, charter, prompt)
      assert.strictEqual(envelope.executable_version, `sha256:${hex(fs.readFileSync(file))}`)
      assert.isFalse(fs.existsSync(path.join(dir, "RAN")), "the executable was run")
      assert.strictEqual(envelope.charter_hash, hex(Buffer.from(charter, "utf8")))
      assert.strictEqual(envelope.prompt_hash, hex(Buffer.from(prompt, "utf8")))
      assert.strictEqual(envelope.provider, "openai")
      assert.strictEqual(envelope.agent_model, "gpt-5-codex")

      const log = new TextEncoder().encode("redacted log\n")
      const result: Pick<AgentProcess.Result, "outcome" | "exitStatus" | "durationMs"> = {
        outcome: "timeout",
        exitStatus: -9,
        durationMs: 1500
      }
      const full = Envelope.finish(envelope, result, "unknown", log)
      const decoded = yield* Schema.decodeUnknown(Envelope.Envelope, { onExcessProperty: "error" })(full)
      assert.deepStrictEqual(Object.keys(decoded).sort(), [
        "agent",
        "agent_model",
        "charter_hash",
        "duration_s",
        "executable",
        "executable_version",
        "exit_status",
        "head_after",
        "head_before",
        "log_digest",
        "outcome",
        "prompt_hash",
        "provider",
        "role",
        "sandbox_profile",
        "session_id",
        "state_revision"
      ])
      assert.strictEqual(decoded.log_digest, hex(log))
      assert.strictEqual(decoded.duration_s, 1.5)
      assert.strictEqual(decoded.exit_status, -9)
    }))

  it.effect("a different byte in the executable or the prompt changes its hash", () =>
    Effect.gen(function*() {
      const { file } = agentCopy()
      const a = yield* opened(file, "c", "p")
      fs.appendFileSync(file, "#\n")
      const b = yield* opened(file, "c", "p ")
      assert.notStrictEqual(a.executable_version, b.executable_version)
      assert.notStrictEqual(a.prompt_hash, b.prompt_hash)
      assert.strictEqual(a.charter_hash, b.charter_hash)
    }))

  it.effect("a relative or unreadable executable is a typed error naming it", () =>
    Effect.gen(function*() {
      const relative = yield* Effect.flip(opened("codex", "c", "p"))
      assert.strictEqual(relative.code, "not-absolute")
      assert.include(relative.message, "'codex'")
      const missing = yield* Effect.flip(opened("/nonexistent/codex", "c", "p"))
      assert.strictEqual(missing.code, "unreadable")
      assert.include(missing.message, "/nonexistent/codex")
    }))

  it.effect("the schema refuses an envelope with a field missing or malformed", () =>
    Effect.gen(function*() {
      const { file } = agentCopy()
      const full = Envelope.finish(
        yield* opened(file, "c", "p"),
        {
          outcome: "ok",
          exitStatus: 0,
          durationMs: 10
        },
        "89abcdef",
        new Uint8Array()
      )
      const decode = Schema.decodeUnknownEither(Envelope.Envelope)
      const { log_digest: _dropped, ...withoutLog } = full
      assert.isTrue(decode(withoutLog)._tag === "Left")
      assert.isTrue(decode({ ...full, session_id: "xyz" })._tag === "Left")
      assert.isTrue(decode({ ...full, outcome: "stalled" })._tag === "Left")
      assert.isTrue(decode(full)._tag === "Right")
    }))
})
