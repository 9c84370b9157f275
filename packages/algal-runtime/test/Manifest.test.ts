import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"
import { edge, example, examplesDir, fixturesDir, organism, parseOk, readJson, xcb } from "./helpers.js"

const flipParse = (json: unknown) => Effect.flip(Manifest.parse(json))

describe("Manifest digests (cross-implementation vectors)", () => {
  it.effect("inbox embeds triage's digest; swarm embeds swarm-inner's; refine embeds refine-inner's", () =>
    Effect.gen(function*() {
      const triage = yield* Manifest.parse(example("triage"))
      assert.strictEqual(Manifest.digest(triage), example("inbox").cells[1].manifest)
      assert.strictEqual(
        Manifest.digest(triage),
        "sha256:56f247870a72b3f1bfef6978c56ea9ce27906b91565bb68f19a60244295f7022"
      )
      const swarmInner = yield* Manifest.parse(example("swarm-inner"))
      assert.strictEqual(Manifest.digest(swarmInner), example("swarm").cells[1].manifest)
      const refineInner = yield* Manifest.parse(example("refine-inner"))
      assert.strictEqual(Manifest.digest(refineInner), example("refine").cells[1].manifest)
    }))

  it.effect("the bundle's normalized manifest hashes to the bundle file name and root, and normalizes to itself", () =>
    Effect.gen(function*() {
      const dir = path.join(examplesDir, "bundles")
      const file = fs.readdirSync(dir)[0]!
      const bundle = readJson(path.join(dir, file))
      const [key, json] = Object.entries(bundle.manifests)[0]!
      const manifest = yield* Manifest.parse(json)
      const digest = Manifest.digest(manifest)
      assert.strictEqual(digest, key)
      assert.strictEqual(digest, bundle.root)
      assert.strictEqual(`${digest.slice("sha256:".length)}.bundle.json`, file)
      assert.deepStrictEqual(Manifest.normalized(manifest), json as any)
    }))

  it.effect("every shipped example and xcb program parses; normalization is idempotent", () =>
    Effect.gen(function*() {
      const files = [
        ...fs.readdirSync(examplesDir).filter((f) => f.endsWith(".algal.json")).map((f) => path.join(examplesDir, f)),
        ...fs.readdirSync(path.join(fixturesDir, "xcb")).map((f) => path.join(fixturesDir, "xcb", f))
      ]
      assert.strictEqual(files.length, 25)
      for (const file of files) {
        const manifest = yield* Manifest.parse(readJson(file))
        const again = yield* Manifest.parse(JSON.parse(Manifest.canonical(manifest)))
        assert.strictEqual(Manifest.digest(again), Manifest.digest(manifest), file)
      }
    }))

  it.effect("normalization: defaults budgets, expands shorthands, drops empty inputs, defaults views, edges and interface", () =>
    Effect.gen(function*() {
      const manifest = yield* Manifest.parse(organism(
        [
          { id: "in", kind: "input", outputs: { q: "text", j: { type: "json", optional: true } } },
          { id: "ask", kind: "agent", inputs: { q: "text" }, prompt: "p", output: { kind: "text" } },
          {
            id: "e",
            kind: "expr",
            inputs: {},
            expr: { contract: "algal.expr.v1", program: 1 },
            output: { kind: "text" }
          },
          {
            id: "d",
            kind: "decide",
            prompt: "p",
            questions: { x: { type: "noul", instructions: "i" } },
            view: { cells: ["in"] }
          }
        ],
        undefined,
        { budgets: { maxSteps: 8 } }
      ))
      const json = Manifest.normalized(manifest) as any
      assert.deepStrictEqual(json.budgets, { ...Manifest.defaultBudgets, maxSteps: 8 })
      assert.deepStrictEqual(json.cells[0].outputs, { q: { type: "text" }, j: { type: "json", optional: true } })
      assert.deepStrictEqual(json.cells[1].inputs, { q: { type: "text" } })
      assert.deepStrictEqual(json.cells[1].view, { inputs: "*" })
      assert.isFalse("inputs" in json.cells[2])
      assert.deepStrictEqual(json.cells[3].view, { cells: [{ cell: "in" }] })
      assert.deepStrictEqual(json.interface, { inputs: {}, outputs: {} })
      const { edges: _, ...withoutEdges } = organism([{ id: "in", kind: "input", outputs: {} }])
      const noEdges = yield* Manifest.parse(withoutEdges)
      assert.deepStrictEqual((Manifest.normalized(noEdges) as any).edges, [])
    }))

  it.effect("parseText rejects invalid JSON, 1e999 and lone surrogates with PARSE_FAILED", () =>
    Effect.gen(function*() {
      for (const text of ["{", `{"contract":1e999}`, `{"name":"\\ud800"}`]) {
        const error = yield* Effect.flip(Manifest.parseText(text))
        assert.strictEqual(error.code, "PARSE_FAILED", text)
      }
    }))
})

const base = (cells: ReadonlyArray<unknown>, edges: ReadonlyArray<unknown> = [], extra: Record<string, unknown> = {}) =>
  organism(cells, edges, extra)
const input = { id: "in", kind: "input", outputs: { v: "json" } }
const exprCell = (program: unknown, extra: Record<string, unknown> = {}) => ({
  id: "e",
  kind: "expr",
  inputs: { v: "json" },
  expr: { contract: "algal.expr.v1", program },
  output: { kind: "json", schema: {} },
  ...extra
})

// [description, manifest, code, message fragment, path fragment]
const rejections: ReadonlyArray<readonly [string, unknown, string, string, string]> = [
  ["not an object", [], "PARSE_FAILED", "expected object", "$"],
  ["unknown top-level key", { ...base([input]), params: {} }, "PARSE_FAILED", "unknown key params", "$"],
  [
    "wrong contract",
    { ...base([input]), contract: "algal.organism.v2" },
    "PARSE_FAILED",
    "expected algal.organism.v1",
    "$.contract"
  ],
  ["key without organism:", { ...base([input]), key: "test" }, "PARSE_FAILED", "organism:<id>", "$.key"],
  [
    "key too long",
    { ...base([input]), key: "organism:" + "a".repeat(60) },
    "PARSE_FAILED",
    "text exceeds bound",
    "$.key"
  ],
  ["name missing", { ...base([input]), name: undefined }, "PARSE_FAILED", "expected text", "$.name"],
  ["note too long", { ...base([input]), note: "x".repeat(2001) }, "PARSE_FAILED", "text exceeds bound", "$.note"],
  [
    "float budget",
    base([input], [], { budgets: { maxSteps: 6.5 } }),
    "PARSE_FAILED",
    "expected non-negative integer",
    "$.budgets.maxSteps"
  ],
  [
    "budget out of range",
    base([input], [], { budgets: { maxDepth: 9 } }),
    "PARSE_FAILED",
    "integer out of bounds",
    "$.budgets.maxDepth"
  ],
  [
    "unknown budget",
    base([input], [], { budgets: { maxTokens: 9 } }),
    "PARSE_FAILED",
    "unknown key maxTokens",
    "$.budgets"
  ],
  [
    "negative budget",
    base([input], [], { budgets: { maxWork: -1 } }),
    "PARSE_FAILED",
    "expected non-negative integer",
    "$.budgets.maxWork"
  ],
  [
    "65 cells",
    base(Array.from({ length: 65 }, (_, i) => ({ id: `c${i}`, kind: "input", outputs: {} }))),
    "PARSE_FAILED",
    "array count",
    "$.cells"
  ],
  ["bad id", base([{ ...input, id: "In" }]), "PARSE_FAILED", "kebab-case id", "$.cells[0].id"],
  ["unknown kind", base([{ id: "x", kind: "lambda" }]), "PARSE_FAILED", "unknown cell kind", "$.cells[0].kind"],
  ["unknown cell key", base([{ ...input, prompt: "x" }]), "PARSE_FAILED", "unknown key prompt", "$.cells[0]"],
  [
    "many on an input cell output",
    base([{ id: "in", kind: "input", outputs: { v: { type: "json", many: true } } }]),
    "PARSE_FAILED",
    "many is only valid on input ports",
    "outputs.v.many"
  ],
  [
    "labels on text",
    base([{ id: "in", kind: "input", outputs: { v: { type: "text", labels: ["a"] } } }]),
    "PARSE_FAILED",
    "labels are only valid on choice",
    "outputs.v.labels"
  ],
  [
    "duplicate labels",
    base([{ id: "in", kind: "input", outputs: { v: { type: "choice", labels: ["a", "a"] } } }]),
    "PARSE_FAILED",
    "unique",
    "labels[1]"
  ],
  [
    "schema on text",
    base([{ id: "in", kind: "input", outputs: { v: { type: "text", schema: {} } } }]),
    "PARSE_FAILED",
    "schema is only valid on json",
    "outputs.v.schema"
  ],
  [
    "schemaVersion without schema",
    base([{ id: "in", kind: "input", outputs: { v: { type: "json", schemaVersion: 2 } } }]),
    "PARSE_FAILED",
    "schemaVersion requires schema",
    "outputs.v"
  ],
  [
    "v2 schema with unknown keyword",
    base([{ id: "in", kind: "input", outputs: { v: { type: "json", schema: { pattern: "x" }, schemaVersion: 2 } } }]),
    "PARSE_FAILED",
    "not allowed in schemaVersion 2",
    "schema.pattern"
  ],
  [
    "v1 schema deeper than 4",
    base([{
      id: "in",
      kind: "input",
      outputs: {
        v: {
          type: "json",
          schema: { properties: { a: { properties: { b: { properties: { c: { properties: { d: {} } } } } } } } }
        }
      }
    }]),
    "PARSE_FAILED",
    "deeper than 4",
    "schema"
  ],
  [
    "cap without capability",
    base([{ id: "in", kind: "input", outputs: { v: "cap" } }]),
    "PARSE_FAILED",
    "cap ports require capability",
    "outputs.v"
  ],
  [
    "cap on const",
    base([{ id: "k", kind: "const", outputs: { v: { type: "cap", capability: "mail", value: "x" } } }]),
    "PARSE_FAILED",
    "not valid on const",
    "outputs.v"
  ],
  [
    "const shorthand",
    base([{ id: "k", kind: "const", outputs: { v: "json" } }]),
    "PARSE_FAILED",
    "const outputs must be objects",
    "outputs.v"
  ],
  [
    "const without value",
    base([{ id: "k", kind: "const", outputs: { v: { type: "json" } } }]),
    "PARSE_FAILED",
    "require a value",
    "outputs.v"
  ],
  [
    "33 ports",
    base([{
      id: "in",
      kind: "input",
      outputs: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`p${i}`, "json"]))
    }]),
    "PARSE_FAILED",
    "object count",
    "outputs"
  ],
  [
    "expr without contract",
    base([input, { ...exprCell(1), expr: { program: 1 } }]),
    "PARSE_FAILED",
    "expected algal.expr.v1",
    "expr.contract"
  ],
  [
    "expr unknown op",
    base([input, exprCell(["frob", 1])]),
    "PARSE_FAILED",
    "expr program: {\"code\":\"EXPR_OP\"",
    "expr.program"
  ],
  ["expr unbound name", base([input, exprCell(["get", "w"])]), "PARSE_FAILED", "EXPR_PATH", "expr.program"],
  [
    "expr onMiss",
    base([input, exprCell(1, { output: { kind: "choice", labels: ["a"], onMiss: "a" } })]),
    "PARSE_FAILED",
    "onMiss is meaningless",
    "output"
  ],
  [
    "json output without schema",
    base([input, exprCell(1, { output: { kind: "json" } })]),
    "PARSE_FAILED",
    "json output requires schema",
    "output"
  ],
  [
    "classifier with text output",
    base([{ id: "c", kind: "classifier", prompt: "p", output: { kind: "text" } }]),
    "PARSE_FAILED",
    "classifier output must be choice",
    "output"
  ],
  [
    "gate with tools",
    base([{ id: "g", kind: "gate", prompt: "p", output: { kind: "choice", labels: ["a"] }, tools: ["pick.v1"] }]),
    "PARSE_FAILED",
    "unknown key tools",
    "$.cells[0]"
  ],
  [
    "agent prompt too long",
    base([{ id: "a", kind: "agent", prompt: "x".repeat(8193), output: { kind: "text" } }]),
    "PARSE_FAILED",
    "text exceeds bound",
    "prompt"
  ],
  [
    "retry attempts 1",
    base([{ id: "a", kind: "agent", prompt: "p", output: { kind: "text" }, retry: { attempts: 1 } }]),
    "PARSE_FAILED",
    "integer out of bounds",
    "retry.attempts"
  ],
  [
    "shadow on agent",
    base([{ id: "a", kind: "agent", prompt: "p", output: { kind: "text" }, shadow: { take: "a" } }]),
    "PARSE_FAILED",
    "only valid on classifier",
    "shadow"
  ],
  [
    "compact without tools",
    base([{ id: "a", kind: "agent", prompt: "p", output: { kind: "text" }, compact: { maxLogBytes: 10 } }]),
    "PARSE_FAILED",
    "compact requires tools",
    "compact"
  ],
  [
    "decide budget maxTurns",
    base([{
      id: "d",
      kind: "decide",
      prompt: "p",
      questions: { x: { type: "noul", instructions: "i" } },
      budget: { maxTurns: 2 }
    }]),
    "PARSE_FAILED",
    "unknown key maxTurns",
    "budget"
  ],
  [
    "decide bad question type",
    base([{ id: "d", kind: "decide", prompt: "p", questions: { x: { type: "essay", instructions: "i" } } }]),
    "PARSE_FAILED",
    "noul|choice|score",
    "questions.x.type"
  ],
  [
    "recall k 33",
    base([{ id: "r", kind: "recall", query: { contract: "algal.expr.v1", program: "q" }, k: 33 }]),
    "PARSE_FAILED",
    "integer out of bounds",
    "k"
  ],
  [
    "recall rerank without provider",
    base([{
      id: "r",
      kind: "recall",
      query: { contract: "algal.expr.v1", program: "q" },
      rerank: { route: { model: "m" } }
    }]),
    "PARSE_FAILED",
    "provider or preset",
    "rerank.route"
  ],
  [
    "organism bad digest",
    base([{ id: "o", kind: "organism", manifest: "sha256:abc" }]),
    "PARSE_FAILED",
    "expected sha256 digest",
    "manifest"
  ],
  [
    "repeat maxRounds 17",
    base([{ id: "o", kind: "repeat", manifest: "sha256:" + "0".repeat(64), maxRounds: 17 }]),
    "PARSE_FAILED",
    "integer out of bounds",
    "maxRounds"
  ],
  [
    "each without over",
    base([{ id: "o", kind: "each", manifest: "sha256:" + "0".repeat(64), maxItems: 2 }]),
    "PARSE_FAILED",
    "kebab-case id",
    "over"
  ],
  [
    "slot bad mode",
    base([{ id: "s", kind: "slot", name: "x", mode: "append" }]),
    "PARSE_FAILED",
    "read or write",
    "mode"
  ],
  [
    "write slot default",
    base([{ id: "s", kind: "slot", name: "x", mode: "write", default: 1 }]),
    "PARSE_FAILED",
    "only valid on read slots",
    "default"
  ],
  [
    "store with extra key",
    base([{ id: "s", kind: "store", data: 1 }]),
    "PARSE_FAILED",
    "unknown key data",
    "$.cells[0]"
  ],
  [
    "tool budget key",
    base([{ id: "t", kind: "tool", tool: "x", budget: { maxTurns: 1 } }]),
    "PARSE_FAILED",
    "unknown key maxTurns",
    "budget"
  ],
  [
    "edge unknown key",
    base([input], [{ ...edge("in.v", "in.v"), weight: 1 }]),
    "PARSE_FAILED",
    "unknown key weight",
    "$.edges[0]"
  ],
  [
    "edge on: done",
    base([input], [edge("in.v", "in.v", { on: "done" })]),
    "PARSE_FAILED",
    "edge on must be",
    "$.edges[0].on"
  ],
  [
    "fail edge with guard",
    base([input], [edge("in.v", "in.v", { on: "fail", guard: { equals: "a" } })]),
    "GUARD_INVALID",
    "cannot carry a guard",
    "$.edges[0].guard"
  ],
  [
    "guard mixing expr and equals",
    base([input], [
      edge("in.v", "in.v", { guard: { equals: "a", expr: { contract: "algal.expr.v1", program: true } } })
    ]),
    "PARSE_FAILED",
    "cannot mix",
    "$.edges[0].guard"
  ],
  [
    "guard expr naming something other than value",
    base([input], [edge("in.v", "in.v", { guard: { expr: { contract: "algal.expr.v1", program: ["get", "x"] } } })]),
    "PARSE_FAILED",
    "guard expr",
    "guard.expr.program"
  ],
  [
    "257 edges",
    base([input], Array.from({ length: 257 }, () => edge("in.v", "in.v"))),
    "PARSE_FAILED",
    "array count",
    "$.edges"
  ],
  [
    "interface unknown key",
    base([input], [], { interface: { inputs: {}, extras: {} } }),
    "PARSE_FAILED",
    "unknown key extras",
    "$.interface"
  ],
  [
    "interface 33 inputs",
    base([input], [], {
      interface: {
        inputs: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`i${i}`, { cell: "in", port: "v" }]))
      }
    }),
    "PARSE_FAILED",
    "object count",
    "$.interface.inputs"
  ]
]

describe("Manifest.parse rejects every contract violation with a typed error naming the path", () => {
  // The original rejects duplicate cell ids at compile (MANIFEST_INVALID), not at parse: the
  // manifest has a digest (conformance corpus, malformed case mal-34).
  it.effect("duplicate ids", () =>
    Effect.gen(function*() {
      const manifest = yield* Manifest.parse(base([input, input]))
      const error = yield* Effect.flip(Program.compile(manifest))
      assert.strictEqual(error.code, "MANIFEST_INVALID")
      assert.include(error.message, "duplicate cell id")
      assert.include(error.path ?? "", "$.cells[1].id")
    }))
  for (const [what, json, code, message, where] of rejections) {
    it.effect(what, () =>
      Effect.gen(function*() {
        const error = yield* flipParse(json)
        assert.strictEqual(error._tag, "AlgalError")
        assert.strictEqual(error.code, code)
        assert.include(error.message, message)
        assert.include(error.path ?? "", where)
      }))
  }

  it.effect("all 17 cell kinds parse with their documented keys", () =>
    Effect.gen(function*() {
      const d = "sha256:" + "1".repeat(64)
      const m = yield* Manifest.parse(base([
        { id: "a1", kind: "input", outputs: { v: "json" } },
        { id: "a2", kind: "const", outputs: { v: { type: "json", value: 1 } } },
        { id: "a3", kind: "fn", fn: "echo.v1" },
        {
          id: "a4",
          kind: "expr",
          inputs: { v: "json" },
          expr: { contract: "algal.expr.v1", program: ["get", "v"] },
          output: { kind: "text" }
        },
        { id: "a5", kind: "tool", tool: "grep", budget: { maxEffectMs: 10 } },
        {
          id: "a6",
          kind: "agent",
          inputs: { v: "json" },
          prompt: "p",
          view: { inputs: ["v"], note: "n" },
          output: { kind: "text" },
          route: { provider: "x", model: "m" },
          tools: ["pick.v1"],
          compact: { maxLogBytes: 100, keepRecent: 2, mode: "elide" },
          budget: { maxTurns: 3 },
          retry: { attempts: 2 }
        },
        {
          id: "a7",
          kind: "classifier",
          prompt: "p",
          output: { kind: "choice", labels: ["x", "y"], onMiss: "y" },
          shadow: { take: "x" }
        },
        { id: "a8", kind: "gate", prompt: "p", output: { kind: "choice", labels: ["ok"] } },
        {
          id: "a9",
          kind: "decide",
          prompt: "p",
          questions: { q: { type: "choice", instructions: "i", criteria: { a: "b" } } }
        },
        {
          id: "b1",
          kind: "recall",
          query: { contract: "algal.expr.v1", program: "q" },
          k: 4,
          embedder: "gateway:m",
          rerank: { route: { preset: "p" }, take: 2 }
        },
        { id: "b2", kind: "organism", manifest: d, via: "local" },
        {
          id: "b3",
          kind: "repeat",
          manifest: d,
          maxRounds: 3,
          carry: { draft: "draft" },
          until: { output: "v", equals: "ship", field: "f" }
        },
        { id: "b4", kind: "each", manifest: d, maxItems: 4, over: "q" },
        { id: "b5", kind: "store" },
        { id: "b6", kind: "load" },
        { id: "b7", kind: "slot", name: "s", mode: "read", default: 0 },
        { id: "b8", kind: "spawn" }
      ]))
      assert.deepStrictEqual(new Set(m.cells.map((c) => c.kind)), new Set(Manifest.cellKinds))
      assert.strictEqual(Manifest.cellKinds.length, 17)
    }))

  it.effect("a manifest over 1 MiB fails BUDGET_EXHAUSTED before anything else", () =>
    Effect.gen(function*() {
      const error = yield* flipParse({ ...base([input]), note: "x".repeat(1_100_000) })
      assert.strictEqual(error.code, "BUDGET_EXHAUSTED")
      assert.strictEqual(error.message, "manifest bytes")
    }))

  it.effect("shipped settle digest is stable", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        Manifest.digest(parseOk(xcb("settle"))),
        "sha256:e56d7a734116095eab80f2f7b8ca854e2f7fa5d76c84a4b0bd345ab0f5ba4a00"
      )
    }))
})

describe("Manifest.parse keeps hostile key names verbatim", () => {
  it.effect("a decide question named __proto__ stays an own key and changes the digest", () =>
    Effect.gen(function*() {
      const make = (name: string) =>
        JSON.parse(
          `{"contract":"algal.organism.v1","key":"organism:q","name":"Q","cells":[{"id":"d","kind":"decide","prompt":"p","questions":{"${name}":{"type":"noul","instructions":"i"}}}]}`
        )
      const hostile = yield* Manifest.parse(make("__proto__"))
      const plain = yield* Manifest.parse(make("proto"))
      const questions = (hostile.cells[0] as Manifest.AgentCell).questions!
      assert.deepStrictEqual(Object.keys(questions), ["__proto__"])
      assert.include(Manifest.canonical(hostile), `"questions":{"__proto__":{`)
      assert.notStrictEqual(Manifest.digest(hostile), Manifest.digest(plain))
    }))
})
