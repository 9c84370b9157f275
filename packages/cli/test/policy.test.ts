import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const tempDir = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-policy-")))

const write = (dir: string, name: string, value: unknown) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2))
  return file
}

describe("steward policy", () => {
  it.live("check --json: a compound command is denied with the citation and every segment", () =>
    Effect.gen(function*() {
      const ws = tempDir()
      const run = yield* runCli(["policy", "check", "--json", "--workspace", ws, "--", "git status && rm -rf ~"])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const doc = run.json()
      assert.includeMembers(Object.keys(doc), ["decision", "citation", "segments", "reasons"])
      assert.strictEqual(doc.decision, "deny")
      assert.strictEqual(doc.citation.layer, "universal")
      assert.strictEqual(doc.citation.ruleId, "universal.rm-home")
      assert.strictEqual(doc.citation.segment, "rm -rf ~")
      assert.deepStrictEqual(doc.segments.map((s: any) => s.decision), ["allow", "deny"])
      assert.strictEqual(doc.level, "execute")
    }))

  it.live("check: the false positives of string matchers are allowed at execute", () =>
    Effect.gen(function*() {
      const ws = tempDir()
      for (const command of ["grep -n mkfs notes.md", "rm -rf ./dist", "cat .env.example", "CI=true git commit -m x"]) {
        const run = yield* runCli(["policy", "check", "--json", "--workspace", ws, "--", command])
        assert.strictEqual(run.json().decision, "allow", command)
      }
    }))

  it.live("check --tool read|write: relative paths resolve against the workspace; a batch takes the strictest", () =>
    Effect.gen(function*() {
      const ws = tempDir()
      const run = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--tool",
        "write",
        "--path",
        "src/a.ts",
        "--path",
        ".env"
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const doc = run.json()
      assert.strictEqual(doc.decision, "ask")
      assert.deepStrictEqual(doc.segments.map((s: any) => [s.canonical, s.decision]), [["src/a.ts", "allow"], [
        ".env",
        "ask"
      ]])
      const outside = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--tool",
        "read",
        "--path",
        "../x"
      ])
      assert.strictEqual(outside.json().citation.ruleId, "universal.outside-workspace.read")
    }))

  it.live("check --tool fetch|mcp|agent", () =>
    Effect.gen(function*() {
      const ws = tempDir()
      const meta = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--level",
        "autonomous",
        "--tool",
        "fetch",
        "--url",
        "http://0xa9fea9fe/latest"
      ])
      assert.strictEqual(meta.json().decision, "deny")
      const mcp = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--tool",
        "mcp",
        "--name",
        "shell.run",
        "--input",
        JSON.stringify({ command: "sudo rm -rf /", note: { reason: "git status" } })
      ])
      assert.strictEqual(mcp.json().decision, "deny")
      const agent = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--level",
        "read_only",
        "--tool",
        "agent",
        "--name",
        "helper"
      ])
      assert.strictEqual(agent.json().decision, "deny")
    }))

  it.live("check --rules FILE: the file's level and rules apply and are cited with their source", () =>
    Effect.gen(function*() {
      const ws = tempDir()
      const rules = write(ws, "policy.json", {
        level: "assist",
        rules: [{ id: "tests", action: "shell", resource: "npm test *", effect: "allow" }]
      })
      const run = yield* runCli(["policy", "check", "--json", "--workspace", ws, "--rules", rules, "--", "npm test"])
      const doc = run.json()
      assert.strictEqual(doc.level, "assist")
      assert.strictEqual(doc.decision, "allow")
      assert.strictEqual(doc.citation.ruleId, "tests")
      assert.strictEqual(doc.citation.source, `${rules}#rules[0]`)
      const override = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--rules",
        rules,
        "--level",
        "read_only",
        "--",
        "npm test"
      ])
      assert.strictEqual(override.json().decision, "deny")
    }))

  it.live("bad input exits 2 with a typed error and nothing on stdout", () =>
    Effect.gen(function*() {
      const ws = tempDir()
      const bad = write(ws, "bad.json", { rules: [{ id: "a", action: "shell", resource: "x", effect: "sometimes" }] })
      const invalid = yield* runCli(["policy", "check", "--json", "--workspace", ws, "--rules", bad, "--", "ls"])
      assert.strictEqual(invalid.exitCode, 2)
      assert.strictEqual(invalid.stdout, "")
      const error = invalid.errorJson().error
      assert.strictEqual(error.reason, "policy-invalid")
      assert.include(error.message, bad)
      assert.deepStrictEqual(error.details, { file: bad, path: "rules[0].effect", key: "effect" })
      // one line per issue, a literal with every valid value (not "Expected \"allow\"… (and 3 more)")
      assert.strictEqual(
        error.message,
        `${bad}: rules[0].effect: expected one of "allow", "ask", "deny", got "sometimes"`
      )
      const two = write(ws, "two.json", { rules: [{ id: "a", action: "shel", effect: "allow", colour: 1 }] })
      const twice = yield* runCli(["policy", "check", "--workspace", ws, "--rules", two, "--", "ls"])
      assert.strictEqual(twice.exitCode, 2)
      const lines = twice.stderr.replace(/^steward: /, "").split("\n")
      assert.deepStrictEqual(lines.map((l) => l.split(": ").slice(0, 2).join(": ")).sort(), [
        `${two}: rules[0].action`,
        `${two}: rules[0].colour`,
        `${two}: rules[0].resource`
      ])
      assert.include(
        twice.stderr,
        `rules[0].action: expected one of "shell", "read", "write", "fetch", "mcp", "agent", "*", got "shel"`
      )
      assert.notInclude(twice.stderr, "more)")
      assert.notInclude(twice.stderr, "Expected undefined")
      fs.rmSync(two)

      const missing = yield* runCli([
        "policy",
        "check",
        "--json",
        "--workspace",
        ws,
        "--rules",
        path.join(ws, "nope.json"),
        "--",
        "ls"
      ])
      assert.strictEqual(missing.exitCode, 2)
      assert.strictEqual(missing.errorJson().error.reason, "policy-io")

      const noPath = yield* runCli(["policy", "check", "--json", "--tool", "read"])
      assert.strictEqual(noPath.exitCode, 2)
      assert.strictEqual(noPath.errorJson().error.code, "usage")

      const noCommand = yield* runCli(["policy", "check", "--json"])
      assert.strictEqual(noCommand.exitCode, 2)

      const badJson = yield* runCli(["policy", "check", "--json", "--tool", "mcp", "--name", "x", "--input", "{nope"])
      assert.strictEqual(badJson.exitCode, 2)
      assert.strictEqual(badJson.errorJson().error.reason, "input-invalid")
      assert.strictEqual(badJson.stdout, "")

      const badLevel = yield* runCli(["policy", "check", "--json", "--level", "god", "--", "ls"])
      assert.strictEqual(badLevel.exitCode, 2)
      assert.deepStrictEqual(fs.readdirSync(ws).sort(), ["bad.json"])
    }))

  it.live("check prints readable text without --json", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["policy", "check", "--workspace", tempDir(), "--", "git push -f origin main"])
      assert.strictEqual(run.exitCode, 0)
      assert.match(run.stdout, /^decision\s+deny/m)
      assert.include(run.stdout, "universal.force-push")
      assert.include(run.stdout, "git push --force origin main")
    }))

  it.live("explain --json lists the effective rules by layer", () =>
    Effect.gen(function*() {
      const ws = tempDir()
      const rules = write(
        ws,
        "p.yaml",
        "rules:\n  - id: mine\n    action: shell\n    resource: 'make *'\n    effect: allow\n"
      )
      const run = yield* runCli([
        "policy",
        "explain",
        "--json",
        "--workspace",
        ws,
        "--rules",
        rules,
        "--level",
        "assist"
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const doc = run.json()
      assert.deepStrictEqual(doc.layers.map((l: any) => l.layer), ["universal", "level", "user"])
      assert.strictEqual(doc.layers[2].rules[0].id, "mine")
      assert.strictEqual(doc.level, "assist")
      const text = yield* runCli(["policy", "explain", "--workspace", ws])
      assert.include(text.stdout, "universal (deny-overrides")
    }))

  it.live("test FILE: all cases pass → exit 0; a mismatch → exit 1 with the table printed", () =>
    Effect.gen(function*() {
      const ws = tempDir()
      const good = write(ws, "cases.json", {
        level: "execute",
        workspace: ".",
        rules: [{ id: "npm-test", action: "shell", resource: "npm test", effect: "allow" }],
        cases: [
          { label: "row 1", tool: "shell", command: "git status && rm -rf ~", expect: "deny" },
          { tool: "shell", command: "rm -rf ./dist", expect: "allow" },
          { tool: "shell", command: "git push origin main", expect: "ask", level: "autonomous" },
          { tool: "read", path: ".env", expect: "ask" },
          { tool: "fetch", url: "http://2852039166/", expect: "deny" },
          { tool: "mcp", name: "fs.write", input: { path: "/dev/sda" }, expect: "deny" }
        ]
      })
      const ok = yield* runCli(["policy", "test", "--json", good])
      assert.strictEqual(ok.exitCode, 0, ok.stdout + ok.stderr)
      const doc = ok.json()
      assert.strictEqual(doc.ok, true)
      assert.strictEqual(doc.total, 6)
      assert.strictEqual(doc.results[2].level, "autonomous")

      const wrong = write(
        ws,
        "wrong.yaml",
        "cases:\n  - tool: shell\n    command: rm -rf /\n    expect: allow\n  - tool: shell\n    command: ls\n    expect: allow\n"
      )
      const bad = yield* runCli(["policy", "test", "--json", "--workspace", ws, wrong])
      assert.strictEqual(bad.exitCode, 1)
      const report = bad.json()
      assert.strictEqual(report.failed, 1)
      assert.strictEqual(report.results[0].actual, "deny")
      assert.strictEqual(report.results[0].ruleId, "universal.rm-root")
      const text = yield* runCli(["policy", "test", "--workspace", ws, wrong])
      assert.strictEqual(text.exitCode, 1)
      assert.include(text.stdout, "FAIL")
      assert.include(text.stdout, "1/2 passed")
    }))

  it.live("test FILE: an invalid case file exits 2 naming the case", () =>
    Effect.gen(function*() {
      const ws = tempDir()
      const file = write(ws, "cases.json", { cases: [{ tool: "read", expect: "allow" }] })
      const run = yield* runCli(["policy", "test", "--json", file])
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stdout, "")
      assert.strictEqual(run.errorJson().error.details.path, "cases[0].path")
    }))
})
