import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"
import { edge, example, organism, parseOk, xcb } from "./helpers.js"

const flipCompile = (json: unknown, options?: Program.CompileOptions) =>
  Effect.flip(Program.compile(parseOk(json), options))
const input = (outputs: Record<string, unknown>) => ({ id: "in", kind: "input", outputs })
const echo = (id: string) => ({ id, kind: "fn", fn: "echo.v1" })
const agent = (id: string, inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "agent",
  inputs,
  prompt: "p",
  output: { kind: "text" },
  ...extra
})
const classifier = { id: "cls", kind: "classifier", prompt: "p", output: { kind: "choice", labels: ["a", "b"] } }

// [what, manifest, code, message]
const rejections: ReadonlyArray<readonly [string, unknown, string, string]> = [
  ["unknown fn", organism([{ id: "f", kind: "fn", fn: "nope.v1" }]), "FN_UNKNOWN", "unknown fn nope.v1"],
  ["unknown tool cell", organism([{ id: "t", kind: "tool", tool: "grep" }]), "TOOL_UNKNOWN", "unknown tool grep"],
  ["unknown agent tool", organism([agent("a", {}, { tools: ["grep"] })]), "TOOL_UNKNOWN", "unknown tool grep"],
  [
    "unknown producer",
    organism([input({ v: "json" }), echo("s")], [edge("nope.v", "s.value")]),
    "MANIFEST_INVALID",
    "unknown producer cell/port"
  ],
  [
    "unknown producer port",
    organism([input({ v: "json" }), echo("s")], [edge("in.w", "s.value")]),
    "MANIFEST_INVALID",
    "unknown producer cell/port"
  ],
  [
    "unknown consumer port",
    organism([input({ v: "json" }), echo("s")], [edge("in.v", "s.nope")]),
    "MANIFEST_INVALID",
    "unknown consumer cell/port"
  ],
  [
    "equals guard on a json producer",
    organism([input({ v: "json" }), echo("s")], [edge("in.v", "s.value", { guard: { equals: "a" } })]),
    "GUARD_INVALID",
    "guard does not match producer type"
  ],
  [
    "field guard on a text producer",
    organism([input({ v: "text" }), echo("s")], [edge("in.v", "s.value", { guard: { field: "f", equals: "a" } })]),
    "GUARD_INVALID",
    "guard does not match producer type"
  ],
  [
    "undeclared guard label",
    organism([classifier, echo("s")], [edge("cls.out", "s.value", { guard: { equals: "c" } })]),
    "GUARD_INVALID",
    "guard label not declared"
  ],
  [
    "failure edge into a text port",
    organism([input({ v: "text" }), agent("a", { t: "text" })], [edge("in.v", "a.t", { on: "fail" })]),
    "TYPE_MISMATCH",
    "failure edge requires json consumer"
  ],
  [
    "two edges into a single port",
    organism([input({ v: "json", w: "json" }), echo("s")], [edge("in.v", "s.value"), edge("in.w", "s.value")]),
    "MANIFEST_INVALID",
    "single-assignment"
  ],
  [
    "normal and failure edges into one many port",
    organism([input({ v: "text" }), agent("a", { t: { type: "json", many: true } })], [
      edge("in.v", "a.t"),
      edge("in.v", "a.t", { on: "fail" })
    ]),
    "MANIFEST_INVALID",
    "mixes normal/failure"
  ],
  [
    "json into text",
    organism([input({ v: "json" }), agent("a", { t: "text" })], [edge("in.v", "a.t")]),
    "TYPE_MISMATCH",
    "incompatible edge ports"
  ],
  [
    "ref into json is not allowed",
    organism([{ id: "st", kind: "store" }, input({ v: "json" }), echo("s")], [
      edge("in.v", "st.data"),
      edge("st.ref", "s.value")
    ]),
    "TYPE_MISMATCH",
    "incompatible edge ports"
  ],
  [
    "choice labels not a subset",
    organism([classifier, agent("a", { c: { type: "choice", labels: ["a"] } })], [edge("cls.out", "a.c")]),
    "TYPE_MISMATCH",
    "incompatible edge ports"
  ],
  [
    "cap of another class",
    organism([
      input({ h: { type: "cap", capability: "mail" } }),
      agent("a", { h: { type: "cap", capability: "disk" } })
    ], [edge("in.h", "a.h")]),
    "TYPE_MISMATCH",
    "incompatible edge ports"
  ],
  [
    "a cycle",
    organism([echo("x"), echo("y")], [edge("x.value", "y.value"), edge("y.value", "x.value")]),
    "GRAPH_CYCLE",
    "manifest graph contains a cycle; organisms must be acyclic"
  ],
  [
    "interface input naming a non-input cell",
    organism([echo("s")], [], { interface: { inputs: { v: { cell: "s", port: "value" } } } }),
    "INTERFACE_MISMATCH",
    "must name an input cell"
  ],
  [
    "interface output naming an unknown port",
    organism([echo("s")], [], { interface: { outputs: { v: { cell: "s", port: "nope" } } } }),
    "INTERFACE_MISMATCH",
    "unknown port s.nope"
  ],
  [
    "view input not declared",
    organism([agent("a", { t: "text" }, { view: { inputs: ["u"] } })]),
    "MANIFEST_INVALID",
    "view input u is not a declared input"
  ],
  [
    "view cell not upstream",
    organism([input({ t: "text" }), agent("a", {}, { view: { cells: ["in"] } })]),
    "MANIFEST_INVALID",
    "not upstream"
  ],
  [
    "view graph without cells",
    organism([agent("a", {}, { view: { graph: true } })]),
    "MANIFEST_INVALID",
    "view graph requires view cells"
  ],
  [
    "view port missing",
    organism([input({ t: "text" }), agent("a", { t: "text" }, { view: { cells: [{ cell: "in", ports: ["x"] }] } })], [
      edge("in.t", "a.t")
    ]),
    "MANIFEST_INVALID",
    "view port in.x does not exist"
  ],
  [
    "a prototype-named producer port",
    organism([input({ v: "json" }), echo("s")], [edge("in.constructor", "s.value")]),
    "MANIFEST_INVALID",
    "unknown producer cell/port"
  ],
  [
    "a prototype-named consumer port",
    organism([input({ v: "json" }), echo("s")], [edge("in.v", "s.constructor")]),
    "MANIFEST_INVALID",
    "unknown consumer cell/port"
  ],
  [
    "a prototype-named tool",
    organism([{ id: "t", kind: "tool", tool: "constructor" }]),
    "TOOL_UNKNOWN",
    "unknown tool constructor"
  ],
  [
    "a prototype-named interface port",
    organism([input({ v: "json" })], [], { interface: { outputs: { o: { cell: "in", port: "constructor" } } } }),
    "INTERFACE_MISMATCH",
    "unknown port in.constructor"
  ],
  ["embedded manifest missing from the store", example("inbox"), "STORE_MISS", "is not in the store"]
]

describe("Program.compile", () => {
  for (const [what, json, code, message] of rejections) {
    it.effect(`rejects ${what}`, () =>
      Effect.gen(function*() {
        const error = yield* flipCompile(json)
        assert.strictEqual(error.code, code)
        assert.include(error.message, message)
      }))
  }

  it.effect("accepts compatible wiring: choice → text, anything → json, each (many) → many, fail edge → json", () =>
    Effect.gen(function*() {
      const program = yield* Program.compile(parseOk(organism([
        classifier,
        agent("a", { t: "text", j: "json", f: { type: "json", optional: true } }),
        echo("s")
      ], [
        edge("cls.out", "a.t"),
        edge("cls.out", "a.j"),
        edge("cls.out", "a.f", { on: "fail" }),
        edge("a.out", "s.value")
      ])))
      assert.strictEqual(program.cells.length, 3)
      assert.isTrue(program.byId.get("cls")!.handlesFailure)
      assert.deepStrictEqual(program.byId.get("s")!.producers, [1])
      assert.deepStrictEqual(program.byId.get("a")!.inbound.map((e) => e.toPort), ["t", "j", "f"])
    }))

  it.effect("resolves embedded manifests by digest: organism ports are the child interface, each outputs become many", () =>
    Effect.gen(function*() {
      const manifests = Program.resolverOf(["triage", "swarm-inner", "refine-inner"].map((n) => parseOk(example(n))))
      const inbox = yield* Program.compile(parseOk(example("inbox")), { manifests })
      assert.deepStrictEqual(inbox.byId.get("triage")!.inputs, { ticket: { type: "text" } })
      assert.deepStrictEqual(inbox.byId.get("triage")!.outputs, { summary: { type: "json" } })
      const swarm = yield* Program.compile(parseOk(example("swarm")), { manifests })
      assert.deepStrictEqual(swarm.byId.get("map")!.inputs, { q: { type: "json" } })
      assert.deepStrictEqual(swarm.byId.get("map")!.outputs, { answer: { type: "text", many: true } })
      const refine = yield* Program.compile(parseOk(example("refine")), { manifests })
      assert.deepStrictEqual(refine.byId.get("loop")!.inputs, { draft: { type: "text", optional: true } })
    }))

  it.effect("a resolver returning a manifest with another digest is DIGEST_MISMATCH", () =>
    Effect.gen(function*() {
      const other = parseOk(example("swarm-inner"))
      const error = yield* flipCompile(example("inbox"), { manifests: () => other })
      assert.strictEqual(error.code, "DIGEST_MISMATCH")
    }))

  it.effect("host tools satisfy tool cells and agent tools", () =>
    Effect.gen(function*() {
      const tools = { grep: { inputs: { q: { type: "text" as const } }, outputs: { hits: { type: "json" as const } } } }
      const program = yield* Program.compile(
        parseOk(organism([{ id: "t", kind: "tool", tool: "grep" }, agent("a", {}, { tools: ["grep", "pick.v1"] })])),
        { tools }
      )
      assert.deepStrictEqual(program.byId.get("t")!.outputs, { hits: { type: "json" } })
    }))

  it.effect("every shipped pure program compiles with the built-in registry", () =>
    Effect.gen(function*() {
      for (
        const json of [
          xcb("settle"),
          xcb("route"),
          xcb("managed-transition"),
          example("expr-rate"),
          example("guard"),
          example("counter"),
          example("stash")
        ]
      ) {
        const program = yield* Program.compile(parseOk(json))
        assert.strictEqual(program.digest, Manifest.digest(program.manifest))
      }
    }))
})
