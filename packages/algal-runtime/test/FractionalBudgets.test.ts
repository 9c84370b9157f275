import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { bundleNonIntegerLexemes, firstNonIntegerLexeme } from "../src/internal/numberLexemes.js"
import * as Manifest from "../src/Manifest.js"
import { examplesDir, fixturesDir, parseOk } from "./helpers.js"

const digest = "sha256:" + "a".repeat(64)

/** A manifest with every integer field of the contract, each with a distinct `"key":value` text. */
const sink = {
  contract: "algal.organism.v1",
  key: "organism:sink",
  name: "Sink",
  budgets: { maxSteps: 6, maxWork: 5000, maxAgentCalls: 0, maxDepth: 2, maxContextBytes: 4096, maxOutputBytes: 2048 },
  cells: [
    { id: "in", kind: "input", outputs: { v: { type: "json", schema: { type: "object" }, schemaVersion: 2 } } },
    {
      id: "a",
      kind: "agent",
      inputs: { v: "json" },
      prompt: "p",
      output: { kind: "text" },
      tools: ["pick.v1"],
      compact: { maxLogBytes: 100, keepRecent: 1 },
      budget: { maxTurns: 3, maxEffectMs: 9000 },
      retry: { attempts: 7 }
    },
    {
      id: "r",
      kind: "recall",
      query: { contract: "algal.expr.v1", program: "q" },
      k: 5,
      rerank: { route: { preset: "p" }, take: 2 }
    },
    { id: "rep", kind: "repeat", manifest: digest, maxRounds: 11 },
    { id: "each", kind: "each", manifest: digest, maxItems: 13, over: "q" },
    { id: "t", kind: "tool", tool: "t", budget: { maxEffectMs: 1000 } },
    {
      id: "x",
      kind: "expr",
      inputs: { v: "json" },
      expr: { contract: "algal.expr.v1", program: ["mul", ["get", "v", "n"], 2.5] },
      output: { kind: "json", schema: { type: "number", minimum: 1.5 }, schemaVersion: 3 }
    },
    { id: "c", kind: "const", outputs: { v: { type: "json", value: { ratio: 6.0, big: 1e3, neg: -0.5 } } } },
    { id: "s", kind: "slot", name: "s", mode: "read", default: 0.25 }
  ]
}
const sinkText = JSON.stringify(sink)

/** Replace exactly one occurrence of `from` in the sink text. */
const rewrite = (from: string, to: string): string => {
  const at = sinkText.indexOf(from)
  assert.isAtLeast(at, 0, from)
  assert.strictEqual(sinkText.indexOf(from, at + 1), -1, `${from} is not unique`)
  return sinkText.slice(0, at) + to + sinkText.slice(at + from.length)
}

const flip = (text: string) => Effect.flip(Manifest.parseText(text))

describe("Manifest.parseText: integer fields must be integer literals", () => {
  it.effect("the sink manifest parses from text, with the same digest as from its value", () =>
    Effect.gen(function*() {
      const manifest = yield* Manifest.parseText(sinkText)
      assert.strictEqual(Manifest.digest(manifest), Manifest.digest(parseOk(sink)))
    }))

  // [original text, fractional rewrite, path]
  const positions: ReadonlyArray<readonly [string, string, string]> = [
    ["\"maxSteps\":6", "\"maxSteps\":6.0", "$.budgets.maxSteps"],
    ["\"maxSteps\":6", "\"maxSteps\":6e0", "$.budgets.maxSteps"],
    ["\"maxSteps\":6", "\"maxSteps\":6E+0", "$.budgets.maxSteps"],
    ["\"maxWork\":5000", "\"maxWork\":5e3", "$.budgets.maxWork"],
    ["\"maxAgentCalls\":0", "\"maxAgentCalls\":-0", "$.budgets.maxAgentCalls"],
    ["\"maxAgentCalls\":0", "\"maxAgentCalls\":0.0", "$.budgets.maxAgentCalls"],
    ["\"maxDepth\":2", "\"maxDepth\":2.000", "$.budgets.maxDepth"],
    ["\"maxContextBytes\":4096", "\"maxContextBytes\":4096.0", "$.budgets.maxContextBytes"],
    ["\"maxOutputBytes\":2048", "\"maxOutputBytes\":20.48e2", "$.budgets.maxOutputBytes"],
    ["\"schemaVersion\":2", "\"schemaVersion\":2.0", "$.cells[0].outputs.v.schemaVersion"],
    ["\"maxLogBytes\":100", "\"maxLogBytes\":1E2", "$.cells[1].compact.maxLogBytes"],
    ["\"keepRecent\":1", "\"keepRecent\":1.0", "$.cells[1].compact.keepRecent"],
    ["\"maxTurns\":3", "\"maxTurns\":3.0", "$.cells[1].budget.maxTurns"],
    ["\"maxEffectMs\":9000", "\"maxEffectMs\":9e3", "$.cells[1].budget.maxEffectMs"],
    ["\"attempts\":7", "\"attempts\":7.0", "$.cells[1].retry.attempts"],
    ["\"k\":5", "\"k\":5.0", "$.cells[2].k"],
    ["\"take\":2", "\"take\":2.0", "$.cells[2].rerank.take"],
    ["\"maxRounds\":11", "\"maxRounds\":11.0", "$.cells[3].maxRounds"],
    ["\"maxItems\":13", "\"maxItems\":1.3e1", "$.cells[4].maxItems"],
    ["\"maxEffectMs\":1000", "\"maxEffectMs\":1000.0", "$.cells[5].budget.maxEffectMs"],
    ["\"schemaVersion\":3", "\"schemaVersion\":3.0", "$.cells[6].output.schemaVersion"]
  ]
  for (const [from, to, at] of positions) {
    it.effect(`${to} fails PARSE_FAILED at ${at}`, () =>
      Effect.gen(function*() {
        const text = rewrite(from, to)
        // the value is integral: JSON.parse alone cannot tell it from the integer
        assert.isTrue(Manifest.parseSync(JSON.parse(text)).ok)
        const error = yield* flip(text)
        assert.strictEqual(error.code, "PARSE_FAILED")
        assert.strictEqual(error.path, at)
        const lexeme = to.slice(to.indexOf(":") + 1)
        assert.strictEqual(
          error.message,
          `expected non-negative integer: the value must be written as an integer literal, got ${lexeme}`
        )
      }))
  }

  it.effect("the parseText JSDoc example", () =>
    Effect.gen(function*() {
      const text =
        `{"contract":"algal.organism.v1","key":"organism:a","name":"A","budgets":{"maxSteps":6.0},"cells":[]}`
      const error = yield* flip(text)
      assert.deepStrictEqual([error.code, error.path], ["PARSE_FAILED", "$.budgets.maxSteps"])
      yield* Manifest.parseText(text.replace("6.0", "6"))
    }))

  it.effect("a fraction that is not integral keeps the structural error (and its path)", () =>
    Effect.gen(function*() {
      const error = yield* flip(rewrite("\"maxSteps\":6", "\"maxSteps\":1.5"))
      assert.strictEqual(error.code, "PARSE_FAILED")
      assert.strictEqual(error.message, "expected non-negative integer")
      assert.strictEqual(error.path, "$.budgets.maxSteps")
    }))

  it.effect("other errors come first: an out-of-range 2000.0 reports the range", () =>
    Effect.gen(function*() {
      const error = yield* flip(rewrite("\"maxSteps\":6", "\"maxSteps\":2000.0"))
      assert.strictEqual(error.message, "integer out of bounds")
    }))

  it.effect("numbers outside integer fields may be fractional or use exponents", () =>
    Effect.gen(function*() {
      // the sink text already holds 2.5 (expr literal), 1.5 (schema minimum), 6.0/1e3 (const values), 0.25 (slot)
      const text = sinkText.replace("\"ratio\":6", "\"ratio\":6.0").replace("\"big\":1000", "\"big\":1e3")
      assert.include(text, "\"ratio\":6.0")
      assert.include(text, "\"big\":1e3")
      const manifest = yield* Manifest.parseText(text)
      assert.strictEqual(Manifest.digest(manifest), Manifest.digest(parseOk(sink)))
    }))

  it.effect("duplicate keys follow JSON.parse: the last occurrence decides", () =>
    Effect.gen(function*() {
      const lastWins = rewrite("\"maxSteps\":6", "\"maxSteps\":6.0,\"maxSteps\":6")
      const manifest = yield* Manifest.parseText(lastWins)
      assert.strictEqual(manifest.budgets.maxSteps, 6)
      const lastBad = rewrite("\"maxSteps\":6", "\"maxSteps\":6,\"maxSteps\":6.0")
      assert.strictEqual((yield* flip(lastBad)).path, "$.budgets.maxSteps")
      // a whole budgets object replaced by a later one
      const replaced = sinkText.replace("\"budgets\":{", "\"budgets\":{\"maxSteps\":6.0},\"budgets\":{")
      assert.strictEqual((yield* Manifest.parseText(replaced)).budgets.maxSteps, 6)
    }))

  it.effect("escaped keys, whitespace and look-alike strings are read as JSON reads them", () =>
    Effect.gen(function*() {
      const escaped = rewrite("\"maxSteps\":6", "\"max\\u0053teps\" : \n 6.0")
      assert.strictEqual((yield* flip(escaped)).path, "$.budgets.maxSteps")
      const lookalike = sinkText.replace(
        "\"name\":\"Sink\"",
        "\"name\":\"Sink\",\"note\":\"\\\"budgets\\\": {\\\"maxSteps\\\": 6.0} \\\\\""
      )
      yield* Manifest.parseText(lookalike)
    }))

  it.effect("written as integers, every shipped fixture parses from text with its value's digest", () =>
    Effect.gen(function*() {
      const files = [
        ...fs.readdirSync(examplesDir).filter((f) => f.endsWith(".algal.json")).map((f) => path.join(examplesDir, f)),
        ...fs.readdirSync(path.join(fixturesDir, "xcb")).map((f) => path.join(fixturesDir, "xcb", f))
      ]
      assert.isAtLeast(files.length, 20)
      for (const file of files) {
        const text = fs.readFileSync(file, "utf8")
        const fromText = yield* Manifest.parseText(text)
        assert.strictEqual(Manifest.digest(fromText), Manifest.digest(parseOk(JSON.parse(text))), file)
      }
      const settle = yield* Manifest.parseText(
        fs.readFileSync(path.join(fixturesDir, "xcb", "settle.algal.json"), "utf8")
      )
      assert.strictEqual(
        Manifest.digest(settle),
        "sha256:e56d7a734116095eab80f2f7b8ca854e2f7fa5d76c84a4b0bd345ab0f5ba4a00"
      )
    }))

  it.effect("a 1 MB+ text (padding, long strings) is scanned to the end", () =>
    Effect.gen(function*() {
      const pad = " ".repeat(600_000)
      const text = `{${pad}"contract":"algal.organism.v1","key":"organism:big","name":"Big","note":"${
        "\\\"".repeat(900)
      }",${pad}"cells":[{"id":"in","kind":"input","outputs":{"v":"json"}}],"budgets":{"maxWork":1e5}}`
      assert.isAbove(text.length, 1_000_000)
      const error = yield* flip(text)
      assert.strictEqual(error.path, "$.budgets.maxWork")
    }))

  it("property: integer lexemes pass, and any fractional spelling is caught at its path", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1024 }),
        fc.constantFrom(
          (n: number) => `${n}.0`,
          (n: number) => `${n}e0`,
          (n: number) => `${n}00e-2`,
          (n: number) => `${n}.000E+0`
        ),
        (n, spell) => {
          const text = (lexeme: string) => rewrite("\"maxSteps\":6", `"maxSteps":${lexeme}`)
          const good = Effect.runSync(Manifest.parseText(text(String(n))))
          assert.strictEqual(good.budgets.maxSteps, n)
          const bad = Effect.runSync(Effect.flip(Manifest.parseText(text(spell(n)))))
          assert.strictEqual(bad.path, "$.budgets.maxSteps")
        }
      ),
      { numRuns: 50 }
    )
  })
})

describe("the lexeme scanner (internal)", () => {
  it("skips untracked values of any depth without recursion", () => {
    const depth = 200_000
    const text = `{"note":${"[".repeat(depth)}${"]".repeat(depth)},"budgets":{"maxSteps":6.0}}`
    assert.deepStrictEqual(firstNonIntegerLexeme(text), { path: "$.budgets.maxSteps", lexeme: "6.0" })
  })

  it("reports the first offending field in document order and ignores non-number values", () => {
    const text =
      `{"cells":[{"k":"5.0"},{"k":4,"maxItems":[1.5]},{"retry":{"attempts":2.0}}],"budgets":{"maxSteps":6.0}}`
    assert.deepStrictEqual(firstNonIntegerLexeme(text), { path: "$.cells[2].retry.attempts", lexeme: "2.0" })
    assert.strictEqual(firstNonIntegerLexeme(`{"budgets":{"maxSteps":6,"maxWork":10}}`), undefined)
    assert.strictEqual(firstNonIntegerLexeme(`[1.0]`), undefined)
    assert.strictEqual(firstNonIntegerLexeme(`6.0`), undefined)
  })

  it("finds, per bundled manifest, its first offending field", () => {
    const good = `{"budgets":{"maxSteps":6},"cells":[]}`
    const bad = `{"cells":[{"k":2.0}],"budgets":{"maxSteps":6.0}}`
    const text =
      `{"contract":"algal.bundle.v1","note":{"budgets":{"maxSteps":1.0}},"manifests":{"a":${good},"b":${bad}}}`
    assert.deepStrictEqual(
      [...bundleNonIntegerLexemes(text)],
      [["b", { path: "$.manifests.b.cells[0].k", lexeme: "2.0" }]]
    )
    assert.strictEqual(bundleNonIntegerLexemes(`{"manifests":[1.0]}`).size, 0)
  })
})

describe("Manifest.parseBundleText", () => {
  const manifest = (maxSteps: string, key = "organism:a") =>
    `{"contract":"algal.organism.v1","key":"${key}","name":"A","budgets":{"maxSteps":${maxSteps}},` +
    `"cells":[{"id":"in","kind":"input","outputs":{"v":"json"}}]}`

  it.effect("reads each manifest as written: a 6.0 entry is rejected with its path, the others parse", () =>
    Effect.gen(function*() {
      const text = `{"contract":"algal.bundle.v1","manifests":{"good":${manifest("6", "organism:good")},` +
        `"fractional":${manifest("6.0")},"broken":{"contract":"nope"}}}`
      const contents = yield* Manifest.parseBundleText(text)
      assert.deepStrictEqual(contents.manifests.map((m) => m.key), ["organism:good"])
      assert.deepStrictEqual(contents.rejected.map((r) => [r.key, r.error.code, r.error.path]), [
        ["fractional", "PARSE_FAILED", "$.manifests.fractional.budgets.maxSteps"],
        ["broken", "PARSE_FAILED", contents.rejected[1]!.error.path]
      ])
    }))

  it.effect("fails on text that is not a bundle, naming where", () =>
    Effect.gen(function*() {
      for (
        const [text, at] of [
          ["{", "$"],
          ["[]", "$"],
          [`{"contract":"algal.organism.v1"}`, "$.contract"],
          [`{"contract":"algal.bundle.v1","manifests":[]}`, "$.manifests"]
        ] as const
      ) {
        const error = yield* Effect.flip(Manifest.parseBundleText(text))
        assert.strictEqual(error.path, at)
      }
    }))
})
