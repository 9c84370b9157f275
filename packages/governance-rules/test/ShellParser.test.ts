import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Policy, ShellParser } from "../src/index.js"
import { tempWorkspace } from "./helpers.js"

// ADR 0208: the grammar loads on the first parse, not when the layer is built.
const loaded = (parser: ShellParser.ShellParser["Type"]): boolean => {
  try {
    parser.parseSync(`echo ${Math.random()}`)
    return true
  } catch (error) {
    assert.strictEqual((error as { code?: string }).code, "parser-unavailable")
    return false
  }
}

describe("ShellParser (lazy grammar)", () => {
  it.effect("building the layer loads nothing; the first parse loads the grammar once", () =>
    Effect.gen(function*() {
      const parser = yield* ShellParser.ShellParser
      assert.isFalse(loaded(parser))
      // an over-long command is never parsed, so it needs no grammar
      const long = parser.parseSync("x".repeat(ShellParser.MAX_COMMAND_LENGTH + 1))
      assert.strictEqual(long.issues[0]?.id, "too-long")
      const parsed = yield* parser.parse("git status && ls")
      assert.deepStrictEqual(parsed.commands.map((c) => c.text), ["git status", "ls"])
      assert.isTrue(loaded(parser))
      yield* parser.ready
      assert.strictEqual(parser.parseSync("git status && ls"), parsed)
    }).pipe(Effect.provide(ShellParser.layer.pipe(Layer.orDie))))

  it.effect("the engine loads the grammar only for a call that has a shell command", () =>
    Effect.gen(function*() {
      const parser = yield* ShellParser.ShellParser
      const engine = yield* Policy.PolicyEngine
      yield* engine.explain
      yield* engine.decide({ tool: "read", paths: ["src/index.ts"] })
      yield* engine.decide({ tool: "fetch", url: "https://example.com/" })
      yield* engine.decide({ tool: "mcp", name: "search", input: { query: "x" } })
      assert.isFalse(loaded(parser))
      const decision = yield* engine.decide({ tool: "mcp", name: "run", input: { command: "rm -rf ~" } })
      assert.strictEqual(decision.decision, "deny")
      assert.isTrue(loaded(parser))
    }).pipe(Effect.provide(
      Policy.layer({ level: "execute", workspace: tempWorkspace() }).pipe(
        Layer.provideMerge(ShellParser.layer),
        Layer.orDie
      )
    )))

  it.effect("a batch with a shell command loads it too", () =>
    Effect.gen(function*() {
      const parser = yield* ShellParser.ShellParser
      const engine = yield* Policy.PolicyEngine
      const decision = yield* engine.decideBatch([
        { tool: "read", paths: ["a.txt"] },
        { tool: "shell", command: "git status" }
      ])
      assert.strictEqual(decision.segments.length, 2)
      assert.isTrue(loaded(parser))
    }).pipe(Effect.provide(
      Policy.layer({ level: "execute", workspace: tempWorkspace() }).pipe(
        Layer.provideMerge(ShellParser.layer),
        Layer.orDie
      )
    )))
})
