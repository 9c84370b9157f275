import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Gate, GovernanceError } from "../src/index.js"

const workspace = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-gate-"))

// Plain async tests: this module is the entry point for hosts without Effect, so it is used here
// exactly as such a host would use it.
describe("Gate", () => {
  it("allows, grants, refuses, denies and fails closed — each verdict with its citation", async () => {
    const asked: Array<string> = []
    const gate = await Gate.open({
      home: os.homedir(),
      level: "execute",
      workspace: workspace(),
      ask: async (request) => {
        asked.push(request.decision.citation.ruleId ?? "none")
        return request.call.tool === "fetch" ? "allow" : { answer: "deny", by: "reviewer" }
      }
    })
    try {
      const allowed = await gate.authorize({ tool: "shell", command: "git status" })
      assert.strictEqual(allowed.outcome, "allowed")
      assert.isTrue(allowed.allowed)
      assert.strictEqual(allowed.grantedBy, "policy")

      const granted = await gate.authorize({ tool: "fetch", url: "https://example.com/" }, { runId: "run-1" })
      assert.strictEqual(granted.outcome, "granted")
      assert.strictEqual(granted.decision, "ask")
      assert.strictEqual(granted.grantedBy, "host")

      const refused = await gate.authorize({ tool: "shell", command: "git push origin main" })
      assert.strictEqual(refused.outcome, "refused")
      assert.isFalse(refused.allowed)
      assert.strictEqual(refused.citation.ruleId, "universal.publish.git-push")
      assert.include(refused.message, "reviewer")

      const denied = await gate.authorize({ tool: "shell", command: "git status && rm -rf ~" })
      assert.strictEqual(denied.outcome, "denied")
      assert.strictEqual(denied.decision, "deny")
      assert.strictEqual(denied.citation.ruleId, "universal.rm-home")
      assert.strictEqual(denied.citation.resource, "rm -f -r ~")

      // a denied call never reaches the host; asks do
      assert.deepStrictEqual(asked, ["none", "universal.publish.git-push"])

      const evidence = await gate.evidence()
      assert.deepStrictEqual(
        evidence.filter((event) => event.kind === "decision").map((event) => (event.data as any).decision),
        ["allow", "ask", "ask", "deny"]
      )
      assert.deepStrictEqual(
        evidence.filter((event) => event.kind === "answer").map((event) => (event.data as any).answer),
        ["allow", "deny"]
      )
      assert.strictEqual(evidence.find((event) => event.kind === "answer")!.runId, "run-1")
    } finally {
      await gate.close()
    }
  })

  it("without an ask function every ask fails closed as unanswered", async () => {
    const gate = await Gate.open({ workspace: workspace(), home: os.homedir() })
    try {
      const verdict = await gate.authorize({ tool: "shell", command: "git push" })
      assert.strictEqual(verdict.outcome, "unanswered")
      assert.isFalse(verdict.allowed)
      assert.strictEqual(verdict.citation.ruleId, "universal.publish.git-push")
    } finally {
      await gate.close()
    }
  })

  it("rules and a policy file's text are validated and cited by source", async () => {
    const policy = fs.readFileSync(path.join(import.meta.dirname, "fixtures", "policy.json"), "utf8")
    const gate = await Gate.open({
      home: os.homedir(),
      workspace: workspace(),
      policy: { text: policy, file: "policy.json" },
      rules: [{ id: "no-make", action: "shell", resource: "make *", effect: "deny" }]
    })
    try {
      const curl = await gate.authorize({ tool: "shell", command: "curl https://example.com" })
      assert.strictEqual(curl.outcome, "denied")
      assert.strictEqual(curl.citation.ruleId, "no-curl")
      assert.strictEqual(curl.citation.source, "policy.json#rules[2]")
      const make = await gate.check({ tool: "shell", command: "make all" })
      assert.strictEqual(make.decision, "deny")
      assert.strictEqual(make.citation.source, "options.rules[0]")
      assert.strictEqual(make.level, "assist") // the file's level applies when the options name none
      // check records nothing: the one decision on record is the authorized curl
      const decisions = (await gate.evidence()).filter((event) => event.kind === "decision")
      assert.deepStrictEqual(decisions.map((event) => (event.data as any).citation.ruleId), ["no-curl"])
    } finally {
      await gate.close()
    }
  })

  it("rejects with the typed error: a malformed call, an invalid rule, a throwing ask", async () => {
    const invalidRule = await Gate.open({
      workspace: workspace(),
      home: os.homedir(),
      rules: [{ id: "x", action: "shell", resource: "ls", effect: "maybe" }]
    })
      .then(() => null, (error) => error)
    assert.instanceOf(invalidRule, Error)
    assert.instanceOf(invalidRule, GovernanceError.GovernanceError)
    assert.strictEqual(invalidRule.code, "policy-invalid")
    assert.include(invalidRule.message, "options.rules")

    const gate = await Gate.open({
      home: os.homedir(),
      workspace: workspace(),
      ask: () => {
        throw new Error("the prompt window closed")
      }
    })
    try {
      const malformed = await gate.authorize({ tool: "shell" }).then(() => null, (error) => error)
      assert.instanceOf(malformed, GovernanceError.GovernanceError)
      assert.strictEqual(malformed.code, "input-invalid")
      const unknown = await gate.check({ tool: "teleport", where: "mars" }).then(() => null, (error) => error)
      assert.strictEqual(unknown.code, "input-invalid")
      const verdict = await gate.authorize({ tool: "shell", command: "git push" })
      assert.strictEqual(verdict.outcome, "unanswered")
      assert.include(verdict.message, "the prompt window closed")
    } finally {
      await gate.close()
    }
  })
})
