import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Policy, PolicyFile, ShellParser } from "../src/index.js"
import { tempWorkspace } from "./helpers.js"

const fixture = (name: string) => path.join(import.meta.dirname, "fixtures", name)

const parseError = (text: string, file = "policy.json") => Effect.flip(PolicyFile.parse(text, file))

describe("PolicyFile", () => {
  it.effect("loads a JSON policy with rules citing the file", () =>
    Effect.gen(function*() {
      const doc = yield* PolicyFile.load(fixture("policy.json"))
      assert.strictEqual(doc.level, "assist")
      assert.deepStrictEqual(doc.rules.map((r) => r.id), ["tests", "src-writes", "no-curl"])
      const config = PolicyFile.toConfig(doc, "policy.json")
      assert.deepStrictEqual(config.ruleSources, [
        "policy.json#rules[0]",
        "policy.json#rules[1]",
        "policy.json#rules[2]"
      ])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("loads a YAML policy", () =>
    Effect.gen(function*() {
      const doc = yield* PolicyFile.load(fixture("policy.yaml"))
      assert.strictEqual(doc.level, "execute")
      assert.strictEqual(doc.rules[0]!.resource, "https://docs.example.com/**")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("errors name the file, the path and the key", () =>
    Effect.gen(function*() {
      const wrongEffect = yield* parseError(
        `{"rules":[{"id":"a","action":"shell","resource":"x","effect":"allow"},{"id":"b","action":"shell","resource":"y","effect":"maybe"}]}`
      )
      assert.strictEqual(wrongEffect.code, "policy-invalid")
      assert.strictEqual(wrongEffect.file, "policy.json")
      assert.strictEqual(wrongEffect.path, "rules[1].effect")
      assert.strictEqual(wrongEffect.key, "effect")
      assert.include(wrongEffect.message, "policy.json: rules[1].effect")

      const unknownKey = yield* parseError(
        `{"rules":[{"id":"a","action":"shell","resource":"x","effect":"allow","priority":3}]}`
      )
      assert.strictEqual(unknownKey.path, "rules[0].priority")
      assert.strictEqual(unknownKey.key, "priority")
      assert.include(unknownKey.message, `unknown key "priority"`)

      const topLevel = yield* parseError(`{"levle":"execute"}`)
      assert.strictEqual(topLevel.key, "levle")

      const missing = yield* parseError(`{"rules":[{"id":"a","action":"shell","effect":"allow"}]}`)
      assert.strictEqual(missing.path, "rules[0].resource")
      assert.include(missing.message, "missing key")

      const badLevel = yield* parseError(`{"level":"god_mode"}`)
      assert.strictEqual(badLevel.path, "level")

      const badAction = yield* parseError(`{"rules":[{"id":"a","action":"network","resource":"x","effect":"allow"}]}`)
      assert.strictEqual(badAction.path, "rules[0].action")

      const dup = yield* parseError(
        `{"rules":[{"id":"a","action":"shell","resource":"x","effect":"allow"},{"id":"a","action":"shell","resource":"y","effect":"deny"}]}`
      )
      assert.strictEqual(dup.path, "rules[1].id")
      assert.include(dup.message, "duplicate")

      const json = yield* parseError(`{"rules": [`)
      assert.include(json.message, "invalid JSON")
      const yaml = yield* parseError("rules:\n  - id: a\n   bad: [", "p.yaml")
      assert.include(yaml.message, "invalid YAML")
      const notObject = yield* parseError(`[1,2]`)
      assert.strictEqual(notObject.code, "policy-invalid")
    }))

  it.effect("hostile files: deep nesting, huge files, alias bombs", () =>
    Effect.gen(function*() {
      const deep = yield* parseError("[".repeat(200_000) + "]".repeat(200_000))
      assert.strictEqual(deep.code, "policy-invalid")
      const huge = yield* parseError(" ".repeat(PolicyFile.MAX_FILE_BYTES + 1))
      assert.include(huge.message, "larger than")
      const bomb = [
        "a: &a [x, x, x, x, x, x, x, x, x]",
        ...Array.from({ length: 9 }, (_, i) => {
          const prev = i === 0 ? "a" : `l${i - 1}`
          return `l${i}: &l${i} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`
        })
      ].join("\n")
      const aliases = yield* parseError(bomb, "bomb.yaml")
      assert.strictEqual(aliases.code, "policy-invalid")
    }))

  it.effect("duplicate keys and lone surrogates are refused, naming the key, path and line (issue 16)", () =>
    Effect.gen(function*() {
      const rule = `{"id": "ls", "action": "shell", "resource": "ls *", "effect": "allow"}`
      const dup = yield* Effect.flip(PolicyFile.parse(`{\n  "rules": [${rule}],\n  "rules": [${rule}]\n}`, "p.json"))
      assert.strictEqual(dup.code, "policy-invalid")
      assert.include(dup.message, `p.json: duplicate key "rules" at rules (line 3)`)
      const inner = yield* Effect.flip(
        PolicyFile.parse(
          `{"rules": [{"id": "a", "id": "a", "action": "shell", "resource": "ls", "effect": "allow"}]}`,
          "q.json"
        )
      )
      assert.include(inner.message, `duplicate key "id" at rules[0].id`)
      const lone = yield* Effect.flip(
        PolicyFile.parse(`{"rules": [${rule.replace("\"ls\"", "\"\\ud800ls\"")}]}`, "r.json")
      )
      assert.include(lone.message, "r.json: invalid UTF-16 (a lone surrogate) in the string at rules[0].id (line 1)")
      const yaml = yield* Effect.flip(
        PolicyFile.parse(
          "rules:\n  - id: \"\\ud800x\"\n    action: shell\n    resource: ls\n    effect: allow\n",
          "s.yaml"
        )
      )
      assert.include(yaml.message, "s.yaml: invalid UTF-16 (a lone surrogate) in the string at rules[0].id")
      // a well-formed pair and distinct keys in sibling objects are fine
      const ok = yield* PolicyFile.parse(
        `{"rules": [${rule.replace("\"ls\"", "\"\\ud83d\\ude00\"")}, ${rule.replace("\"ls\"", "\"b\"")}]}`,
        "t.json"
      )
      assert.strictEqual(ok.rules.length, 2)
    }))

  it.effect("a missing file is policy-io naming the file", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(PolicyFile.load("/nonexistent/steward-policy.json"))
      assert.strictEqual(error.code, "policy-io")
      assert.strictEqual(error.file, "/nonexistent/steward-policy.json")
      const dir = tempWorkspace()
      const notFile = yield* Effect.flip(PolicyFile.load(dir))
      assert.strictEqual(notFile.code, "policy-io")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("case files: each case needs its tool's field", () =>
    Effect.gen(function*() {
      const ok = yield* PolicyFile.parseCases(
        JSON.stringify({
          cases: [
            { tool: "shell", command: "ls", expect: "allow" },
            { tool: "read", path: "a.ts", expect: "allow" },
            { tool: "mcp", name: "x", input: { a: 1 }, expect: "ask" }
          ]
        }),
        "cases.json"
      )
      assert.deepStrictEqual(ok.calls.map((c) => c.tool), ["shell", "read", "mcp"])
      const missing = yield* Effect.flip(
        PolicyFile.parseCases(JSON.stringify({ cases: [{ tool: "fetch", expect: "ask" }] }), "cases.json")
      )
      assert.strictEqual(missing.path, "cases[0].url")
      const empty = yield* Effect.flip(PolicyFile.parseCases(JSON.stringify({ cases: [] }), "cases.json"))
      assert.include(empty.path, "cases")
      const badExpect = yield* Effect.flip(
        PolicyFile.parseCases(JSON.stringify({ cases: [{ tool: "shell", command: "ls", expect: "yes" }] }), "c.json")
      )
      assert.strictEqual(badExpect.path, "cases[0].expect")
    }))

  it.effect("writes nothing while loading", () =>
    Effect.gen(function*() {
      const dir = tempWorkspace()
      const file = path.join(dir, "p.json")
      fs.writeFileSync(file, `{"rules":[{"id":"a"}]}`)
      yield* Effect.flip(PolicyFile.load(file))
      assert.deepStrictEqual(fs.readdirSync(dir), ["p.json"])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("the bad-input table as a case file", () => {
  it.effect("every case of test/fixtures/bad-input-table.yaml gets its expected decision", () =>
    Effect.gen(function*() {
      const { calls, doc } = yield* PolicyFile.loadCases(fixture("bad-input-table.yaml"))
      assert.strictEqual(doc.cases.length, 38)
      const engine = yield* Policy.make({
        ...PolicyFile.toConfig(doc, "bad-input-table.yaml"),
        workspace: doc.workspace!
      })
      for (let i = 0; i < calls.length; i++) {
        const decision = yield* engine.decide(calls[i]!)
        assert.strictEqual(
          decision.decision,
          doc.cases[i]!.expect,
          `${doc.cases[i]!.label}: ${JSON.stringify(calls[i])}`
        )
      }
    }).pipe(Effect.provide(Layer.merge(NodeContext.layer, ShellParser.layer.pipe(Layer.orDie)))))
})
