import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { GovernanceError, Policy, Rule, ShellParser } from "../src/index.js"
import { decide, Parser, shell } from "./helpers.js"

describe("Policy", () => {
  layer(Parser)((it) => {
    it.effect("inside a layer the last matching rule wins", () =>
      Effect.gen(function*() {
        const rules = [
          { id: "deny-npm", action: "shell" as const, resource: "npm *", effect: "deny" as const },
          { id: "allow-npm-test", action: "shell" as const, resource: "npm test *", effect: "allow" as const }
        ]
        const d = yield* shell("npm test", { level: "assist", rules })
        assert.strictEqual(d.decision, "allow")
        assert.strictEqual(d.citation.ruleId, "allow-npm-test")
        assert.strictEqual(d.citation.ruleIndex, 1)
        const other = yield* shell("npm run x", { level: "assist", rules })
        assert.strictEqual(other.citation.ruleId, "deny-npm")
      }))

    it.effect("user shell patterns match canonical text whole: `*` also spans `.`/`..` path segments", () =>
      Effect.gen(function*() {
        const rules = [{ id: "no-cat", action: "shell" as const, resource: "cat *", effect: "deny" as const }]
        for (const command of ["cat /../etc/hosts", "cat ./a", "cat ../../x", "cat a/./b"]) {
          const d = yield* shell(command, { rules })
          assert.strictEqual(d.decision, "deny", command)
          assert.strictEqual(d.citation.ruleId, "no-cat")
        }
      }))

    it.effect("no match asks, citing the default", () =>
      Effect.gen(function*() {
        const d = yield* decide({ tool: "mcp", name: "jira.create" })
        assert.strictEqual(d.decision, "ask")
        assert.strictEqual(d.citation.layer, "default")
        assert.isNull(d.citation.ruleId)
        assert.include(d.citation.reason, "never granted by silence")
      }))

    it.effect("`except` carves documented examples out of a rule", () =>
      Effect.gen(function*() {
        const rules = [{
          id: "no-fixtures",
          action: "read" as const,
          resource: "fixtures/**",
          effect: "deny" as const,
          except: ["fixtures/public/**"]
        }]
        assert.strictEqual((yield* decide({ tool: "read", paths: ["fixtures/private/a"] }, { rules })).decision, "deny")
        assert.strictEqual((yield* decide({ tool: "read", paths: ["fixtures/public/a"] }, { rules })).decision, "allow")
      }))

    it.effect("a batch takes the strictest outcome and cites it", () =>
      Effect.gen(function*() {
        const parser = yield* ShellParser.ShellParser
        yield* parser.ready
        const compiled = yield* Policy.compile({ level: "execute", workspace: "/srv/app" })
        const patch = Policy.decideSync(compiled, parser, {
          tool: "write",
          paths: ["src/a.ts", "src/b.ts", ".env", "/etc/hosts"]
        })
        assert.strictEqual(patch.decision, "ask")
        assert.deepStrictEqual(patch.segments.map((s) => s.decision), ["allow", "allow", "ask", "ask"])
        assert.strictEqual(patch.citation.resource, ".env")
        const mixed = Policy.decideBatchSync(compiled, parser, [
          { tool: "read", paths: ["src/a.ts"] },
          { tool: "shell", command: "npm test" },
          { tool: "write", paths: ["/dev/sda"] }
        ])
        assert.strictEqual(mixed.decision, "deny")
        assert.strictEqual(mixed.citation.ruleId, "universal.block-device-write")
        assert.strictEqual(
          Policy.decideSync(compiled, parser, { tool: "write", paths: ["a.ts", "b.ts"] }).decision,
          "allow"
        )
      }))

    it.effect("fetch: URLs and IP literals are normalized before matching", () =>
      Effect.gen(function*() {
        const rules = [{
          id: "gh",
          action: "fetch" as const,
          resource: "https://api.github.com/**",
          effect: "allow" as const
        }]
        for (
          const url of [
            "https://API.GitHub.com/repos",
            "https://api.github.com:443/repos/../x",
            "https://user:pw@api.github.com/x?q=1#f"
          ]
        ) {
          assert.strictEqual((yield* decide({ tool: "fetch", url }, { rules })).decision, "allow", url)
        }
        for (
          const url of [
            "http://0xa9fea9fe/",
            "http://[::ffff:169.254.169.254]/",
            "http://169.254.169.254.",
            "http://%31%36%39.254.169.254/"
          ]
        ) {
          const d = yield* decide({ tool: "fetch", url }, { level: "autonomous" })
          assert.strictEqual(d.decision, "deny", url)
          assert.strictEqual(d.citation.resource.startsWith("http://169.254.169.254"), true)
        }
        const bad = yield* decide({ tool: "fetch", url: "http://[not an ip" }, { level: "autonomous" })
        assert.strictEqual(bad.decision, "ask")
      }))

    it.effect("mcp: nested argument smuggling cannot grant; top-level resources are decided", () =>
      Effect.gen(function*() {
        const rules = [
          { id: "files", action: "mcp" as const, resource: "fs.*", effect: "allow" as const },
          { id: "gs", action: "shell" as const, resource: "git status *", effect: "allow" as const }
        ]
        const smuggled = yield* decide({
          tool: "mcp",
          name: "shell.run",
          input: { command: "whoami; rm -rf /", metadata: { reason: "git status" } }
        }, { level: "assist", rules })
        assert.strictEqual(smuggled.decision, "deny")
        const fileRead = yield* decide({ tool: "mcp", name: "fs.read_file", input: { path: "/root/.ssh/id_rsa" } }, {
          rules
        })
        assert.strictEqual(fileRead.decision, "ask")
        const fileWrite = yield* decide({ tool: "mcp", name: "fs.write_file", input: { path: "/dev/sda" } }, { rules })
        assert.strictEqual(fileWrite.decision, "deny")
        const nested = yield* decide({
          tool: "mcp",
          name: "fs.read_file",
          input: { path: "src/a.ts", options: { proxy: ["http://2852039166/latest"] } }
        }, { rules, level: "autonomous" })
        assert.strictEqual(nested.decision, "deny")
        const fine = yield* decide(
          { tool: "mcp", name: "fs.read_file", input: { path: "src/a.ts", note: "rm -rf /" } },
          { rules }
        )
        assert.strictEqual(fine.decision, "allow")
      }))

    it.effect("agent: subagents inherit the caller's rules and can only be narrowed", () =>
      Effect.gen(function*() {
        const engine = yield* Policy.make({ level: "execute", workspace: "/srv/app" })
        assert.strictEqual((yield* engine.decide({ tool: "agent", name: "reviewer" })).decision, "allow")
        const child = yield* engine.forSubagent([
          Rule.make({ id: "no-writes", action: "write", resource: "**", effect: "deny" }),
          Rule.make({ id: "try-grant", action: "fetch", resource: "**", effect: "allow" })
        ])
        assert.strictEqual((yield* child.decide({ tool: "write", paths: ["a.ts"] })).decision, "deny")
        assert.strictEqual((yield* child.decide({ tool: "fetch", url: "https://example.com" })).decision, "ask")
        assert.strictEqual((yield* child.decide({ tool: "shell", command: "rm -rf /" })).decision, "deny")
        assert.strictEqual((yield* engine.decide({ tool: "write", paths: ["a.ts"] })).decision, "allow")
      }))

    it.effect("explain lists the effective rules by layer", () =>
      Effect.gen(function*() {
        const engine = yield* Policy.make({
          level: "assist",
          workspace: "/srv/app",
          rules: [Rule.make({ id: "mine", action: "shell", resource: "make *", effect: "allow" })],
          ruleSources: ["policy.json#rules[0]"]
        })
        const explanation = yield* engine.explain
        assert.deepStrictEqual(explanation.layers.map((l) => [l.layer, l.combine]), [
          ["universal", "deny-overrides"],
          ["level", "last-match"],
          ["user", "last-match"]
        ])
        assert.strictEqual(explanation.layers[2]!.rules[0]!.source, "policy.json#rules[0]")
        assert.isTrue(explanation.layers[0]!.rules.some((r) => r.id === "universal.force-push"))
        assert.strictEqual(explanation.fallback, "ask")
      }))

    it.effect("invalid calls and configurations are typed errors", () =>
      Effect.gen(function*() {
        const engine = yield* Policy.make({ workspace: "/srv/app" })
        const bad = yield* Effect.flip(engine.decide({ tool: "read", paths: [] } as unknown as Policy.ToolCall))
        assert.strictEqual(bad._tag, "GovernanceError")
        assert.strictEqual(bad.code, "input-invalid")
        const unknownTool = yield* Effect.flip(engine.decide({ tool: "teleport" } as unknown as Policy.ToolCall))
        assert.strictEqual(unknownTool.code, "input-invalid")
        const emptyBatch = yield* Effect.flip(engine.decideBatch([]))
        assert.strictEqual(emptyBatch.code, "input-invalid")
        const dup = yield* Effect.flip(Policy.compile({
          rules: [
            Rule.make({ id: "a", action: "shell", resource: "x", effect: "allow" }),
            Rule.make({ id: "a", action: "shell", resource: "y", effect: "deny" })
          ]
        }))
        assert.strictEqual(dup.code, "policy-invalid")
        assert.strictEqual(dup.path, "rules[1].id")
      }))

    it.effect("concurrent decisions agree with sequential ones (deterministic, no shared mutable state leaks)", () =>
      Effect.gen(function*() {
        const engine = yield* Policy.make({ level: "execute", workspace: "/srv/app" })
        const commands = [
          "git status",
          "rm -rf /",
          "cat .env",
          "npm test",
          "curl 0xa9fea9fe",
          "git push -f",
          "ls && echo $(whoami)"
        ]
        const sequential = yield* Effect.forEach(commands, (command) => engine.decide({ tool: "shell", command }))
        const concurrent = yield* Effect.forEach(
          Array.from({ length: 140 }, (_, i) => commands[i % commands.length]!),
          (command) => engine.decide({ tool: "shell", command }),
          { concurrency: "unbounded" }
        )
        concurrent.forEach((d, i) => {
          const expected = sequential[i % commands.length]!
          assert.strictEqual(d.decision, expected.decision)
          assert.strictEqual(d.citation.ruleId, expected.citation.ruleId)
          assert.deepStrictEqual(d.reasons, expected.reasons)
        })
      }))

    it.effect("hostile input: huge, deeply nested and binary commands never crash", () =>
      Effect.gen(function*() {
        const parser = yield* ShellParser.ShellParser
        yield* parser.ready
        const compiled = yield* Policy.compile({ workspace: "/srv/app" })
        const inputs = [
          "(".repeat(5000) + "ls" + ")".repeat(5000),
          "$(".repeat(3000) + "ls" + ")".repeat(3000),
          "echo " + "a && ".repeat(1900) + "ls",
          "bash -c " + "'bash -c ".repeat(40) + "ls" + "'".repeat(40),
          "x".repeat(2_000_000),
          "\u0000\u0001\u0002\uffff\ud800",
          "",
          "   "
        ]
        for (const command of inputs) {
          const d = Policy.decideSync(compiled, parser, { tool: "shell", command })
          assert.include(["ask", "deny"], d.decision, command.slice(0, 40))
        }
      }))
  })

  it.effect("the parser layer caches parses", () =>
    Effect.gen(function*() {
      const parser = yield* ShellParser.ShellParser
      yield* parser.ready
      const a = parser.parseSync("git status && ls")
      const b = parser.parseSync("git status && ls")
      assert.strictEqual(a, b)
      assert.strictEqual(yield* parser.cacheSize, 1)
      for (let i = 0; i < 10; i++) parser.parseSync(`echo ${i}`)
      assert.strictEqual(yield* parser.cacheSize, 4)
    }).pipe(Effect.provide(ShellParser.layerWith({ cacheSize: 4 }).pipe(Layer.orDie))))

  it.effect("GovernanceError.make carries the code and location", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.fail(GovernanceError.make("policy-invalid", "x", { file: "f.json", path: "rules[0]", key: "id" }))
      )
      assert.strictEqual(error.code, "policy-invalid")
      assert.strictEqual(error.file, "f.json")
      assert.strictEqual(error.key, "id")
    }))
})
