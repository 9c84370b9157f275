import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type Autonomy, Placement, type Policy } from "../src/index.js"
import { Parser, shell } from "./helpers.js"

// Issue 31 item 2: every shell decision says where it runs (ADR 0214).
const on: Placement.BoundaryState = { state: "on", allowDomains: ["registry.npmjs.org", "*.pypi.org"], writable: true }

const placed = (command: string, boundary: Placement.BoundaryState = on, level: Autonomy.Level = "execute") =>
  shell(command, { level }).pipe(
    Effect.map((decision: Policy.Decision) => Placement.place(decision, { tool: "shell", command }, boundary))
  )

describe("Placement", () => {
  layer(Parser)((it) => {
    it.effect("what the analyser cannot resolve runs contained, cited sandbox.contained", () =>
      Effect.gen(function*() {
        for (
          const command of [
            "some-unknown-linter --fix src",
            "for f in *.png; do optipng \"$f\"; done",
            "python3 -c 'print(1)'",
            "node -e 'console.log(1)'",
            "$CMD build",
            "x=$(mktemp) && some-generator \"$x\""
          ]
        ) {
          const gate = yield* placed(command, { state: "off" })
          const result = yield* placed(command)
          assert.strictEqual(gate.decision, "ask", `${command}: the gate alone asks`)
          assert.strictEqual(result.decision, "allow", command)
          assert.strictEqual(result.where, "sandbox")
          assert.strictEqual(result.citation.ruleId, "sandbox.contained")
          assert.strictEqual(result.citation.layer, "sandbox")
          assert.isAbove(result.contained.length, 0)
          assert.strictEqual(result.gate.decision, "ask")
        }
      }))

    it.effect("denies stay denies, nowhere", () =>
      Effect.gen(function*() {
        for (const command of ["git push --force origin main", "rm -rf ~", "curl http://169.254.169.254/latest/"]) {
          const result = yield* placed(command)
          assert.strictEqual(result.decision, "deny", command)
          assert.strictEqual(result.where, "nowhere")
        }
      }))

    it.effect("what needs to leave the boundary still asks (publish, secrets, outside, escalation, lost work)", () =>
      Effect.gen(function*() {
        for (
          const command of [
            "npm publish",
            "cat .env",
            "cat ~/.ssh/id_rsa",
            "echo x > /etc/motd",
            "sudo make install",
            "git reset --hard HEAD~1",
            "git checkout -- .",
            "git cat-file -p HEAD:.env",
            "echo x > .git/hooks/pre-commit",
            "curl https://example.com/install.sh"
          ]
        ) {
          const result = yield* placed(command)
          assert.strictEqual(result.decision, "ask", command)
          assert.strictEqual(result.where, "host")
          assert.notStrictEqual(result.citation.layer, "sandbox")
        }
      }))

    it.effect("a destination on the sandbox's allowlist is allowed through the proxy, cited sandbox.network", () =>
      Effect.gen(function*() {
        const result = yield* placed("curl -fsSL https://registry.npmjs.org/effect")
        assert.strictEqual(result.decision, "allow")
        assert.strictEqual(result.citation.ruleId, "sandbox.network")
        const sub = yield* placed("curl https://files.pypi.org/x.whl -o x.whl")
        assert.strictEqual(sub.decision, "allow")
        const other = yield* placed("curl https://evil.example/x")
        assert.strictEqual(other.decision, "ask")
      }))

    it.effect("with the boundary off or unavailable the gate's decision stands, on the host", () =>
      Effect.gen(function*() {
        for (const boundary of [{ state: "off" } as const, { state: "unavailable", reason: "no bwrap" } as const]) {
          const result = yield* placed("some-unknown-linter src", boundary)
          assert.strictEqual(result.decision, "ask")
          assert.strictEqual(result.where, "host")
          assert.deepStrictEqual(result.contained, [])
          const allowed = yield* placed("git status", boundary)
          assert.strictEqual(allowed.where, "host")
        }
        const inside = yield* placed("git status")
        assert.strictEqual(inside.where, "sandbox")
        assert.strictEqual(inside.citation.ruleId, "execute.shell")
      }))

    it.effect("levels keep their meaning: assist still asks about commands that are not read-only", () =>
      Effect.gen(function*() {
        const result = yield* placed("some-unknown-linter --fix src", on, "assist")
        assert.strictEqual(result.decision, "ask")
        const readOnly = yield* placed("git status", on, "read_only")
        assert.strictEqual(readOnly.where, "sandbox")
        const denied = yield* placed("npm install", on, "read_only")
        assert.strictEqual(denied.decision, "deny")
      }))
  })
})
