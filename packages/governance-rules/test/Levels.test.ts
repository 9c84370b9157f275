import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Autonomy } from "../src/index.js"
import { decide, Parser, shell } from "./helpers.js"

describe("autonomy levels", () => {
  layer(Parser)((it) => {
    it.effect("read_only: read-only commands run; everything that writes is denied", () =>
      Effect.gen(function*() {
        const level = "read_only" as const
        assert.strictEqual((yield* shell("ls -la src", { level })).decision, "allow")
        assert.strictEqual((yield* shell("git log --oneline", { level })).decision, "allow")
        assert.strictEqual((yield* shell("npm test", { level })).decision, "deny")
        assert.strictEqual((yield* shell("echo x > notes.md", { level })).decision, "deny")
        assert.strictEqual((yield* shell("find . -delete", { level })).decision, "deny")
        assert.strictEqual((yield* decide({ tool: "write", paths: ["a.ts"] }, { level })).decision, "deny")
        assert.strictEqual((yield* decide({ tool: "read", paths: ["a.ts"] }, { level })).decision, "allow")
        assert.strictEqual((yield* decide({ tool: "read", paths: [".env"] }, { level })).decision, "ask")
        assert.strictEqual((yield* decide({ tool: "fetch", url: "https://example.com" }, { level })).decision, "ask")
        assert.strictEqual((yield* decide({ tool: "agent", name: "helper" }, { level })).decision, "deny")
        // A user allow cannot loosen the baseline's deny.
        const granted = yield* shell("npm test", {
          level,
          rules: [{ id: "tests", action: "shell", resource: "npm test", effect: "allow" }]
        })
        assert.strictEqual(granted.decision, "deny")
        assert.strictEqual(granted.citation.ruleId, "read_only.shell")
      }))

    it.effect("assist: read-only commands run, the rest asks; user rules grant where the baseline is silent", () =>
      Effect.gen(function*() {
        const level = "assist" as const
        assert.strictEqual((yield* shell("cat README.md", { level })).decision, "allow")
        assert.strictEqual((yield* shell("npm test", { level })).decision, "ask")
        assert.strictEqual((yield* decide({ tool: "write", paths: ["a.ts"] }, { level })).decision, "ask")
        const rules = [
          { id: "tests", action: "shell" as const, resource: "npm test *", effect: "allow" as const },
          { id: "src", action: "write" as const, resource: "src/**", effect: "allow" as const }
        ]
        assert.strictEqual((yield* shell("npm test -- --watch=false", { level, rules })).decision, "allow")
        const write = yield* decide({ tool: "write", paths: ["src/a.ts"] }, { level, rules })
        assert.strictEqual(write.decision, "allow")
        assert.strictEqual(write.citation.layer, "user")
        assert.strictEqual(write.citation.ruleId, "src")
        assert.strictEqual((yield* decide({ tool: "write", paths: ["docs/a.md"] }, { level, rules })).decision, "ask")
      }))

    it.effect("execute (default): routine work proceeds, anything leaving the machine asks", () =>
      Effect.gen(function*() {
        assert.strictEqual(Autonomy.defaultLevel, "execute")
        assert.strictEqual((yield* shell("npm install && npm run build")).decision, "allow")
        assert.strictEqual((yield* decide({ tool: "fetch", url: "https://docs.example.com/a" })).decision, "ask")
        assert.strictEqual((yield* shell("curl -sSL https://docs.example.com/a")).decision, "ask")
        assert.strictEqual((yield* shell("ssh host uptime")).decision, "ask")
        const rules = [{
          id: "docs",
          action: "fetch" as const,
          resource: "https://docs.example.com/**",
          effect: "allow" as const
        }]
        assert.strictEqual(
          (yield* decide({ tool: "fetch", url: "HTTPS://Docs.Example.com:443/a/../b" }, { rules })).decision,
          "allow"
        )
        assert.strictEqual((yield* shell("curl https://docs.example.com/x", { rules })).decision, "allow")
        assert.strictEqual((yield* shell("curl https://docs.example.com.evil.io/x", { rules })).decision, "ask")
        // user rules can tighten
        const tightened = yield* shell("npm test", {
          rules: [{ id: "no-tests", action: "shell", resource: "npm test *", effect: "deny" }]
        })
        assert.strictEqual(tightened.decision, "deny")
        assert.strictEqual(tightened.citation.ruleId, "no-tests")
        // ... but a program-wide rule does not loosen the baseline's asks
        const loosened = yield* shell("python3 -c 'print(1)'", {
          rules: [{ id: "py", action: "shell", resource: "python3 *", effect: "allow" }]
        })
        assert.strictEqual(loosened.decision, "ask")
        assert.strictEqual(loosened.citation.ruleId, "execute.shell.python-c")
        // a rule naming the program and its option does, citing the ask it overrode (ADR 0218)
        const named = yield* shell("python3 -c 'print(1)'", {
          rules: [{ id: "py-c", action: "shell", resource: "python3 -c *", effect: "allow" }]
        })
        assert.strictEqual(named.decision, "allow")
        assert.strictEqual(named.citation.ruleId, "py-c")
        assert.strictEqual(named.citation.overrides?.ruleId, "execute.shell.python-c")
      }))

    it.effect("autonomous: everything runs except what the universal layer stops", () =>
      Effect.gen(function*() {
        const level = "autonomous" as const
        assert.strictEqual((yield* shell("python3 -c 'print(1)'", { level })).decision, "allow")
        assert.strictEqual((yield* decide({ tool: "fetch", url: "https://example.com" }, { level })).decision, "allow")
        // a file: URL is a read of the local path: outside the workspace asks, a secret asks
        assert.strictEqual((yield* decide({ tool: "fetch", url: "file:///etc/passwd" }, { level })).decision, "ask")
        assert.strictEqual((yield* decide({ tool: "fetch", url: "file:///srv/app/.env" }, { level })).decision, "ask")
        assert.strictEqual(
          (yield* decide({ tool: "fetch", url: "file:///srv/app/README.md" }, { level })).decision,
          "allow"
        )
        assert.strictEqual((yield* decide({ tool: "mcp", name: "github.create_issue" }, { level })).decision, "allow")
        for (
          const publish of [
            "git push origin main",
            "npm publish",
            "docker push x",
            "gh release create v1",
            "cargo publish",
            "twine upload dist/*"
          ]
        ) {
          assert.strictEqual((yield* shell(publish, { level })).decision, "ask", publish)
        }
        assert.strictEqual((yield* shell("cat .env", { level })).decision, "ask")
        assert.strictEqual((yield* shell("rm -rf /tmp/x", { level })).decision, "ask")
        assert.strictEqual((yield* shell("git push -f", { level })).decision, "deny")
        assert.strictEqual((yield* decide({ tool: "fetch", url: "http://0xa9fea9fe/" }, { level })).decision, "deny")
        assert.strictEqual(
          (yield* decide({ tool: "fetch", url: "http://169.254.169.254:8080/x" }, { level })).decision,
          "deny"
        )
        // no prefix confusion: a different host that starts like a metadata name is not the metadata host
        assert.strictEqual(
          (yield* decide({ tool: "fetch", url: "https://metadata.google.internal.example.com/" }, { level })).decision,
          "allow"
        )
      }))

    it.effect("a grant-everything configuration cannot loosen the universal layer", () =>
      Effect.gen(function*() {
        const rules = [
          { id: "all", action: "*" as const, resource: "**", effect: "allow" as const },
          { id: "all-shell", action: "shell" as const, resource: "*", effect: "allow" as const }
        ]
        for (const level of Autonomy.levels) {
          assert.strictEqual((yield* shell("rm -rf /", { level, rules })).decision, "deny")
          assert.strictEqual((yield* shell("git push --force", { level, rules })).decision, "deny")
          // Universal asks stay at least ask (read_only's baseline may make them deny).
          assert.notStrictEqual((yield* shell("git push", { level, rules })).decision, "allow")
          assert.strictEqual((yield* decide({ tool: "read", paths: [".env"] }, { level, rules })).decision, "ask")
          assert.notStrictEqual(
            (yield* decide({ tool: "write", paths: ["/etc/hosts"] }, { level, rules })).decision,
            "allow"
          )
          assert.strictEqual(
            (yield* decide({ tool: "fetch", url: "http://169.254.169.254/" }, { level, rules })).decision,
            "deny"
          )
        }
      }))
  })
})
