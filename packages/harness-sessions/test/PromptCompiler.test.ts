import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { type HarnessError, PromptCompiler, Tools } from "../src/index.js"

const compiler = (config?: unknown) => Either.getOrThrow(PromptCompiler.makeCompiler(config))
const compiled = (config?: unknown, request?: ReadonlyArray<PromptCompiler.RequestSection>) =>
  Either.getOrThrow(compiler(config).compile(request))

describe("PromptCompiler", () => {
  it("the defaults: every section within its budget, in the fixed order, nothing cut", () => {
    const result = compiled()
    assert.deepStrictEqual(result.cuts, [])
    // references has no default text; every other section has one.
    assert.deepStrictEqual(result.sections.map((s) => s.name), PromptCompiler.order.filter((n) => n !== "references"))
    for (const name of PromptCompiler.order) {
      assert.isAtMost(PromptCompiler.defaultTexts[name].length, PromptCompiler.defaultBudgets[name], name)
    }
    assert.deepStrictEqual(
      { ...PromptCompiler.defaultBudgets, identity: undefined },
      {
        identity: undefined,
        role: 1_400,
        autonomy: 2_600,
        personality: 1_200,
        permission: 1_800,
        steering: 2_000,
        writing: 1_900,
        tools: 8_000,
        references: 12_000,
        reporting: 12_000
      }
    )
    const positions = [
      "## Role",
      "## Autonomy",
      "## Personality",
      "## Permission",
      "## Steering",
      "## Writing",
      "## Tools",
      "## Reporting"
    ]
      .map((heading) => result.prefix.indexOf(heading))
    assert.isTrue(positions.every((p, i) => p > 0 && (i === 0 || p > positions[i - 1]!)), String(positions))
    assert.isTrue(result.prefix.startsWith(PromptCompiler.defaultTexts.identity))
    for (const tool of Tools.defaults) assert.include(result.prefix, `- ${tool.name}: `)
    assert.strictEqual(result.text, result.prefix)
    assert.match(result.prefixDigest, /^sha256:[0-9a-f]{64}$/)
  })

  it("no default text reads as permission to stop with work left", () => {
    const all = Object.values(PromptCompiler.defaultTexts).join("\n").toLowerCase()
    for (
      const phrase of [
        "stop and ask",
        "check in with",
        "let me know if",
        "would you like me to",
        "shall i continue",
        "pause and",
        "wait for confirmation",
        "ask before continuing",
        "it is fine to stop",
        "you may stop",
        "end your turn"
      ]
    ) assert.notInclude(all, phrase)
    assert.include(PromptCompiler.defaultTexts.autonomy, "Keep working until the request is done")
    assert.include(PromptCompiler.defaultTexts.reporting, "do that work first")
  })

  it("the prefix digest changes only when the prefix text changes", () => {
    const base = compiled()
    const withRequest = compiled(undefined, [{ name: "goal", text: "<objective>ship it</objective>" }])
    assert.strictEqual(withRequest.prefixDigest, base.prefixDigest)
    assert.strictEqual(withRequest.prefix, base.prefix)
    assert.isTrue(withRequest.text.startsWith(base.prefix + "\n\n## Goal\n\n"))
    assert.strictEqual(withRequest.request, "## Goal\n\n<objective>ship it</objective>")
    // A budget change that cuts nothing leaves the text, hence the digest, as it was.
    assert.strictEqual(compiled({ sections: { role: { budget: 5_000 } } }).prefixDigest, base.prefixDigest)
    assert.strictEqual(compiler().prefixDigest, base.prefixDigest)
    const changed = compiled({ sections: { personality: "Terse." } })
    assert.notStrictEqual(changed.prefixDigest, base.prefixDigest)
    assert.include(changed.prefix, "## Personality\n\nTerse.")
  })

  it("an over-long section is cut to its budget and reported; never-cut sections are kept whole", () => {
    const long = Array.from({ length: 100 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n")
    const result = compiled({ sections: { role: long, permission: long, writing: { text: long, neverCut: true } } })
    const role = result.sections.find((s) => s.name === "role")!
    assert.deepStrictEqual(
      { cut: role.cut, chars: role.chars, budget: role.budget, overBudget: role.overBudget },
      { cut: true, chars: long.length, budget: 1_400, overBudget: false }
    )
    assert.isAtMost(role.kept, 1_400)
    assert.include(result.prefix, `[… section cut to its budget: ${long.length} characters supplied]`)
    assert.deepStrictEqual(result.cuts.map((c) => c.name), ["role"])
    for (const name of ["permission", "writing"]) {
      const kept = result.sections.find((s) => s.name === name)!
      assert.deepStrictEqual([kept.cut, kept.overBudget, kept.kept], [false, true, long.length], name)
    }
    assert.strictEqual(result.prefix.split(long).length - 1, 2)
    // A smaller budget cuts a default text too.
    const tight = compiled({ sections: { autonomy: { budget: 300 } } })
    assert.deepStrictEqual(tight.cuts.map((c) => [c.name, c.kept <= 300]), [["autonomy", true]])
  })

  it("request-time sections follow the prefix in the given order, with their own budgets", () => {
    const result = compiled({ sections: { reporting: null } }, [
      { name: "date", text: "2026-12-01" },
      { name: "workspace_state", text: "y".repeat(500), budget: 100 },
      { name: "objective", text: "z".repeat(500), budget: 100, neverCut: true }
    ])
    assert.notInclude(result.prefix, "## Reporting")
    assert.deepStrictEqual(result.sections.filter((s) => s.placement === "request").map((s) => [s.name, s.cut]), [
      ["date", false],
      ["workspace_state", true],
      ["objective", false]
    ])
    assert.deepStrictEqual(result.cuts.map((c) => [c.name, c.placement]), [["workspace_state", "request"]])
    assert.isBelow(result.request.indexOf("## Date"), result.request.indexOf("## Workspace state"))
  })

  it("bad configuration or request sections are typed INVALID_INPUT naming the field", () => {
    const bad = (result: Either.Either<unknown, HarnessError.HarnessError>, needle: string) => {
      assert.isTrue(Either.isLeft(result), needle)
      const error = (result as Either.Left<HarnessError.HarnessError, unknown>).left
      assert.strictEqual(error.code, "INVALID_INPUT")
      assert.include(error.message, needle)
    }
    bad(PromptCompiler.makeCompiler({ sections: { rolee: "x" } }), "rolee")
    bad(PromptCompiler.makeCompiler({ sections: { role: { budget: 0 } } }), "budget")
    bad(PromptCompiler.makeCompiler({ section: {} }), "section")
    const c = compiler()
    bad(c.compile([{ name: "role", text: "x" }]), "role")
    bad(c.compile([{ name: "a", text: "x" }, { name: "a", text: "y" }]), "already used")
    bad(c.compile([{ name: "Bad Name", text: "x" }]), "name")
  })

  it("systemMessages: the prefix as a cache breakpoint, then the request part", () => {
    const result = compiled(undefined, [{ name: "date", text: "2026-12-01" }])
    assert.deepStrictEqual(PromptCompiler.systemMessages(result), [
      { role: "system", content: result.prefix, options: { anthropic: { cacheControl: { type: "ephemeral" } } } },
      { role: "system", content: "## Date\n\n2026-12-01" }
    ])
    assert.deepStrictEqual(PromptCompiler.systemMessages(compiled()).map((m) => m.content), [compiled().prefix])
  })

  it.effect("the PromptCompiler service compiles with the configured prefix", () =>
    Effect.gen(function*() {
      const service = yield* PromptCompiler.PromptCompiler
      const result = yield* service.compile([{ name: "date", text: "today" }])
      assert.strictEqual(result.prefixDigest, service.prefixDigest)
      assert.strictEqual(service.prefixDigest, compiled({ sections: { identity: "I am Steward." } }).prefixDigest)
      const error = yield* Effect.flip(service.compile([{ name: "tools", text: "x" }]))
      assert.strictEqual(error.code, "INVALID_INPUT")
    }).pipe(Effect.provide(PromptCompiler.layer({ sections: { identity: "I am Steward." } }))))
})
