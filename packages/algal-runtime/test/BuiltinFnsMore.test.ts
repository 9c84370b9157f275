import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as Canonical from "../src/Canonical.js"
import * as FnRegistry from "../src/FnRegistry.js"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"
import * as Runtime from "../src/Runtime.js"
import { compileOk, edge, organism, parseOk } from "./helpers.js"

const fn = (name: string) => FnRegistry.builtins.get(name)!
const call = (name: string, inputs: unknown): FnRegistry.FnResult => fn(name).invoke(inputs as any)
const outputs = (result: FnRegistry.FnResult): Record<string, any> => {
  if (!result.ok) throw new Error(`expected success, got ${result.message}`)
  return result.outputs as Record<string, any>
}
const message = (result: FnRegistry.FnResult): string => {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.outputs)}`)
  assert.strictEqual(result.code, undefined) // FN_FAILED
  return result.message
}
const expr = (program: unknown) => ({ contract: "algal.expr.v1", program })
const deep = (depth: number): unknown => {
  let v: unknown = 0
  for (let i = 0; i < depth; i++) v = [v]
  return v
}
const run = (json: unknown, args: unknown) => {
  const result = Runtime.runSync(compileOk(json), args)
  if (!result.ok) throw new Error(result.error.message)
  return result.result
}
const jsonValue = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Canonical.Json>

describe("built-in fn signatures", () => {
  it("memory.query.v1, context.compact.v1 and manifest.compile.v1 follow the spec table", () => {
    assert.deepStrictEqual(
      ["memory.query.v1", "context.compact.v1", "manifest.compile.v1"].map((n) => {
        const d = fn(n)
        return { inputs: d.inputs, outputs: d.outputs, cost: d.cost }
      }),
      [
        {
          inputs: { snapshot: { type: "json" }, program: { type: "json" } },
          outputs: { result: { type: "json" } },
          cost: 10
        },
        {
          inputs: { source: { type: "json" }, policy: { type: "json" } },
          outputs: { view: { type: "json" }, archive: { type: "json" } },
          cost: 10
        },
        { inputs: { plan: { type: "json" } }, outputs: { manifest: { type: "json" } }, cost: 50 }
      ]
    )
  })

  it("the registry now has 16 built-ins, and a manifest naming each new fn compiles", () => {
    assert.strictEqual(FnRegistry.builtins.size, 16)
    for (const name of ["memory.query.v1", "context.compact.v1", "manifest.compile.v1"]) {
      const result = Program.compileSync(parseOk(organism([{ id: "f", kind: "fn", fn: name }])))
      assert.isTrue(result.ok, name)
    }
  })
})

describe("memory.query.v1", () => {
  const snapshot = {
    facts: [
      { topic: "build", text: "uses pnpm", score: 3 },
      { topic: "test", text: "vitest", score: 5 },
      { topic: "build", text: "tsup bundles", score: 4 }
    ]
  }

  it("evaluates the program against {snapshot}; result.work is the fuel and the fn's extra work", () => {
    const program = expr([
      "map",
      ["filter", ["get", "snapshot", "facts"], "f", ["eq", ["get", "f", "topic"], "build"]],
      "f",
      [
        "get",
        "f",
        "text"
      ]
    ])
    const result = call("memory.query.v1", { snapshot, program })
    const out = outputs(result)
    assert.deepStrictEqual(out.result.value, ["uses pnpm", "tsup bundles"])
    assert.isTrue(Number.isInteger(out.result.work) && out.result.work > 0)
    assert.strictEqual(result.ok && result.work, out.result.work)
    // the same program through the evaluator directly uses the same fuel
    const direct = call("memory.query.v1", { snapshot, program })
    assert.deepStrictEqual(direct, result)
  })

  it("scalars and null are values; the work of a literal is its fuel", () => {
    const out = outputs(call("memory.query.v1", { snapshot: null, program: expr(["get", "snapshot"]) }))
    assert.strictEqual(out.result.value, null)
    assert.strictEqual(outputs(call("memory.query.v1", { snapshot: 1, program: expr(7) })).result.work, 1)
  })

  it("expression errors are FN_FAILED naming the EXPR code", () => {
    assert.match(
      message(call("memory.query.v1", { snapshot: 1, program: expr(["div", 1, 0]) })),
      /^memory\.query\.v1: EXPR_DIV_ZERO /
    )
    assert.match(message(call("memory.query.v1", { snapshot: 1, program: expr(["get", "other"]) })), /EXPR_PATH/)
    assert.match(message(call("memory.query.v1", { snapshot: 1, program: expr(["nope"]) })), /EXPR_OP/)
  })

  it("a fuel bomb stops at the fixed 100,000 fuel bound with EXPR_FUEL", () => {
    const big = Array.from({ length: 1000 }, (_, i) => i)
    const bomb = expr(["map", ["get", "snapshot"], "a", ["map", ["get", "snapshot"], "b", ["add", ["get", "a"], [
      "get",
      "b"
    ]]]])
    const text = message(call("memory.query.v1", { snapshot: big, program: bomb }))
    assert.match(text, /EXPR_FUEL/)
    assert.include(text, "(fuel 100000)")
  })

  it("the program must be a closed algal.expr.v1 envelope", () => {
    assert.strictEqual(
      message(call("memory.query.v1", { snapshot: 1, program: ["get", "snapshot"] })),
      "memory.query.v1: program must be an algal.expr.v1 envelope {contract, program}, got list"
    )
    assert.strictEqual(
      message(call("memory.query.v1", { snapshot: 1, program: { contract: "algal.expr.v2", program: 1 } })),
      "memory.query.v1: program.contract must be \"algal.expr.v1\""
    )
    assert.strictEqual(
      message(call("memory.query.v1", { snapshot: 1, program: { ...expr(1), fuel: 10 } })),
      "memory.query.v1: unknown key \"fuel\" at program.fuel"
    )
    assert.strictEqual(
      message(call("memory.query.v1", { snapshot: 1, program: { contract: "algal.expr.v1" } })),
      "memory.query.v1: program.program is missing"
    )
    assert.strictEqual(
      message(call("memory.query.v1", { program: expr(1) })),
      "memory.query.v1: input snapshot is missing"
    )
  })

  it("snapshots over the bound, too deep or not JSON are refused with a typed failure", () => {
    // five strings of 52,423 bytes: 2 + 5 × 52,425 + 4 commas = 262,131 canonical bytes, exactly the bound
    const fits = Array.from({ length: 5 }, () => "x".repeat(52_423))
    const admitted = outputs(call("memory.query.v1", { snapshot: fits, program: expr(["len", ["get", "snapshot"]]) }))
    assert.strictEqual(admitted.result.value, 5)
    const over = [...fits.slice(0, 4), "x".repeat(52_424)]
    assert.strictEqual(
      message(call("memory.query.v1", { snapshot: over, program: expr(1) })),
      "memory.query.v1: snapshot is 262132 canonical bytes, over the 262131-byte bound"
    )
    assert.match(
      message(call("memory.query.v1", { snapshot: deep(100_000), program: expr(1) })),
      /snapshot is not canonical JSON/
    )
    assert.match(message(call("memory.query.v1", { snapshot: deep(40), program: expr(1) })), /EXPR_BOUNDS/)
    assert.match(message(call("memory.query.v1", { snapshot: Number.NaN, program: expr(1) })), /not canonical JSON/)
  })
})

describe("context.compact.v1", () => {
  const source = ["a", "bb", { c: 1 }, "dddd"] // canonical sizes 3, 4, 7, 6

  const cases: ReadonlyArray<readonly [unknown, unknown, unknown, unknown]> = [
    [source, {}, source, []],
    [source, { keep: 2 }, [{ c: 1 }, "dddd"], ["a", "bb"]],
    [source, { keep: 0 }, [], source],
    [source, { maxBytes: 13 }, [{ c: 1 }, "dddd"], ["a", "bb"]],
    [source, { maxBytes: 12 }, ["dddd"], ["a", "bb", { c: 1 }]],
    [source, { maxBytes: 5 }, [], source], // the newest entry alone does not fit: nothing older is taken
    [source, { keep: 1, maxBytes: 100 }, ["dddd"], ["a", "bb", { c: 1 }]],
    [[], { keep: 3 }, [], []]
  ]
  for (const [src, policy, view, archive] of cases) {
    it(`${JSON.stringify(policy)} on ${JSON.stringify(src)}`, () => {
      assert.deepStrictEqual(outputs(call("context.compact.v1", { source: src, policy })), { view, archive })
    })
  }

  it("policies are validated strictly, naming the field", () => {
    const bad: ReadonlyArray<readonly [unknown, string]> = [
      [{ keep: -1 }, "policy.keep must be an integer in [0, 1024]"],
      [{ keep: 1.5 }, "policy.keep must be an integer in [0, 1024]"],
      [{ keep: "2" }, "policy.keep must be an integer in [0, 1024]"],
      [{ maxBytes: 0 }, "policy.maxBytes must be an integer in [1, 262144]"],
      [{ maxBytes: 2.5 }, "policy.maxBytes must be an integer in [1, 262144]"],
      [{ maxBytes: 262_145 }, "policy.maxBytes must be an integer in [1, 262144]"],
      [{ keep: 1, mode: "elide" }, "unknown key \"mode\" in policy (allowed: keep, maxBytes)"],
      [[1], "policy must be an object {keep?, maxBytes?}, got list"],
      [null, "policy must be an object {keep?, maxBytes?}, got null"]
    ]
    for (const [policy, expected] of bad) {
      assert.strictEqual(message(call("context.compact.v1", { source, policy })), `context.compact.v1: ${expected}`)
    }
  })

  it("the source must be a bounded list of JSON entries", () => {
    assert.strictEqual(
      message(call("context.compact.v1", { source: "text", policy: {} })),
      "context.compact.v1: source must be a list of entries, got string"
    )
    assert.strictEqual(
      message(call("context.compact.v1", { source: Array.from({ length: 1025 }, () => 1), policy: {} })),
      "context.compact.v1: source has 1025 entries, over the 1024-entry bound"
    )
    assert.match(
      message(call("context.compact.v1", { source: [1, deep(100_000)], policy: {} })),
      /source\[1\] is not canonical JSON/
    )
    assert.strictEqual(
      message(call("context.compact.v1", { source: [] })),
      "context.compact.v1: input policy is missing"
    )
  })

  it("property: archive ++ view = source; the view is the longest newest run within keep and maxBytes", () => {
    fc.assert(
      fc.property(
        fc.array(jsonValue, { maxLength: 30 }),
        fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
        (src, keep, maxBytes) => {
          const policy = { ...(keep === undefined ? {} : { keep }), ...(maxBytes === undefined ? {} : { maxBytes }) }
          const out = outputs(call("context.compact.v1", { source: src, policy }))
          assert.deepStrictEqual([...out.archive, ...out.view], src)
          const bytes = (xs: ReadonlyArray<unknown>) =>
            xs.reduce<number>((n, x) => n + Buffer.byteLength(Canonical.encodeUnsafe(x), "utf8"), 0)
          assert.isAtMost(out.view.length, keep ?? 1024)
          assert.isAtMost(bytes(out.view), maxBytes ?? Infinity)
          if (out.archive.length > 0) {
            const bigger = [out.archive[out.archive.length - 1], ...out.view]
            assert.isTrue(bigger.length > (keep ?? 1024) || bytes(bigger) > (maxBytes ?? Infinity))
          }
        }
      )
    )
  })
})

describe("manifest.compile.v1", () => {
  const plan = {
    name: "Shout and tag",
    steps: [
      { id: "shout", fn: "uppercase.v1" },
      { id: "label", fn: "tag.v1", with: { tag: "note" } },
      { id: "wrap", expr: expr({ text: ["get", "value"], n: ["slen", ["get", "value"]] }) }
    ]
  }

  it("compiles a plan into a manifest that parses, compiles and has a stable digest", () => {
    const manifest = outputs(call("manifest.compile.v1", { plan })).manifest
    const parsed = parseOk(manifest)
    assert.deepStrictEqual(Manifest.normalized(parsed), manifest) // already normalized
    assert.isTrue(Program.compileSync(parsed).ok)
    assert.strictEqual(
      Manifest.digest(parsed),
      "sha256:8bbd45fd5ee8334079da95b9789e9da49d9b7057f63700436a3290c03256afad"
    )
    const again = outputs(call("manifest.compile.v1", { plan: JSON.parse(JSON.stringify(plan)) })).manifest
    assert.strictEqual(Canonical.encodeUnsafe(again), Canonical.encodeUnsafe(manifest))
  })

  it("the compiled manifest is a linear chain: input → steps → interface output", () => {
    const manifest = outputs(call("manifest.compile.v1", { plan })).manifest
    assert.deepStrictEqual(manifest.cells.map((c: any) => `${c.id}:${c.kind}`), [
      "input:input",
      "shout:fn",
      "label-with:const",
      "label:fn",
      "wrap:expr"
    ])
    assert.deepStrictEqual(manifest.interface, {
      inputs: { value: { cell: "input", port: "value" } },
      outputs: { value: { cell: "wrap", port: "out" } }
    })
    assert.deepStrictEqual(manifest.cells[0].outputs, { value: { type: "text" } })
    const result = Runtime.runSync(compileOk(manifest), { input: { value: "hi" } })
    assert.isTrue(result.ok)
    if (result.ok) {
      assert.strictEqual(result.result.outcome, "complete")
      assert.deepStrictEqual(result.result.outputs, { value: { text: "NOTE: HI", n: 8 } })
    }
  })

  it("in/out pick ports of multi-port fns", () => {
    const manifest = outputs(call("manifest.compile.v1", {
      plan: {
        steps: [
          { id: "compact", fn: "context.compact.v1", in: "source", out: "view", with: { policy: { keep: 2 } } },
          { id: "count", expr: expr(["len", ["get", "value"]]) }
        ]
      }
    })).manifest
    const result = run(manifest, { input: { value: [1, 2, 3] } })
    assert.deepStrictEqual(result.outputs, { value: 2 })
  })

  const invalid: ReadonlyArray<readonly [unknown, string]> = [
    [{ steps: [] }, "plan.steps must hold 1 to 4 steps, got 0"],
    [
      { steps: Array.from({ length: 5 }, (_, i) => ({ id: `s${i}`, fn: "echo.v1" })) },
      "plan.steps must hold 1 to 4 steps, got 5"
    ],
    [{ steps: "echo.v1" }, "plan.steps must be a list of 1 to 4 steps, got string"],
    [{ steps: [{ id: "a", fn: "echo.v1" }], mode: 1 }, "unknown key \"mode\" at plan"],
    [{ steps: [{ id: "a", fn: "echo.v1", cost: 1 }] }, "unknown key \"cost\" at plan.steps[0]"],
    [{ steps: [{ id: "a", fn: "echo.v1" }, { id: "a", fn: "echo.v1" }] }, "plan.steps[1].id: duplicate step id \"a\""],
    [{ steps: [{ id: "a", fn: "nope.v1" }] }, "plan.steps[0].fn: unknown fn \"nope.v1\""],
    [{ steps: [{ id: "A", fn: "echo.v1" }] }, "plan.steps[0].id must be a lowercase kebab-case id"],
    [{ steps: [{ id: "input", fn: "echo.v1" }] }, "plan.steps[0].id \"input\" is reserved"],
    [{ steps: [{ id: "a", fn: "echo.v1", expr: expr(1) }] }, "plan.steps[0] must have exactly one of fn, expr"],
    [{ steps: [{ id: "a" }] }, "plan.steps[0] must have exactly one of fn, expr"],
    [{ steps: [{ id: "a", fn: "pick.v1" }] }, "plan.steps[0].in is required: pick.v1 has inputs record, field"],
    [
      { steps: [{ id: "a", fn: "pick.v1", in: "record" }] },
      "plan.steps[0].with.field is required: pick.v1 input field is neither the chain input nor a constant"
    ],
    [
      { steps: [{ id: "a", fn: "pick.v1", in: "record", with: { field: 3 } }] },
      "plan.steps[0].with.field must be text, got number"
    ],
    [
      { steps: [{ id: "a", fn: "echo.v1", with: { other: 1 } }] },
      "plan.steps[0].with.other: echo.v1 has no input port \"other\""
    ],
    [
      { steps: [{ id: "a", fn: "context.compact.v1", in: "source", with: { policy: {} } }] },
      "plan.steps[0].out is required: context.compact.v1 has outputs view, archive"
    ],
    [
      { steps: [{ id: "a", fn: "echo.v1" }, { id: "b", fn: "uppercase.v1" }] },
      "plan.steps[1].in: output value (json) of step a cannot feed input value (text)"
    ],
    [{ steps: [{ id: "a", expr: { program: 1 } }] }, "plan.steps[0].expr.contract must be \"algal.expr.v1\""],
    [
      { steps: [{ id: "a", expr: expr(["get", "nope"]) }] },
      "plan.steps[0] (cell $.cells[1].expr.program): PARSE_FAILED expr program: {\"code\":\"EXPR_PATH\",\"op\":\"get\",\"what\":\"unbound name \\\"nope\\\"\"}"
    ],
    [[1], "plan must be an object {steps, name?}, got list"]
  ]
  for (const [bad, expected] of invalid) {
    it(`refuses ${JSON.stringify(bad).slice(0, 80)}`, () => {
      assert.strictEqual(message(call("manifest.compile.v1", { plan: bad })), `manifest.compile.v1: ${expected}`)
    })
  }

  it("property: every plan of valid steps compiles to a manifest that parses, compiles and runs", () => {
    const step = fc.oneof(
      fc.constant({ fn: "echo.v1" }),
      fc.constant({ fn: "push.v1", in: "list", with: { item: 1 } }),
      fc.constant({ fn: "pick.v1", in: "record", with: { field: "a" } }),
      fc.constant({ fn: "format.v1", with: { prefix: "> " } }),
      fc.constant({ fn: "context.compact.v1", in: "source", out: "archive", with: { policy: { keep: 1 } } }),
      fc.constant({ fn: "memory.query.v1", in: "snapshot", with: { program: expr(["get", "snapshot"]) } }),
      fc.constant({ expr: expr({ v: ["get", "value"] }) })
    )
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 4 }), jsonValue, (steps, value) => {
        const built = call("manifest.compile.v1", { plan: { steps: steps.map((s, i) => ({ id: `s${i}`, ...s })) } })
        // every step takes json (or text fed by text), so no plan here may be refused
        if (!built.ok) throw new Error(built.message)
        const program = compileOk(built.outputs.manifest)
        const result = Runtime.runSync(program, { input: { value } })
        assert.isTrue(result.ok)
        if (result.ok && result.result.outcome !== "complete") {
          // a step may refuse the value it is given (push.v1 on a non-list, …): always a typed FN_FAILED
          assert.strictEqual(result.result.receipt.failure?.code, "FN_FAILED")
        }
      }),
      { numRuns: 60 }
    )
  })
})

describe("hostile input never throws", () => {
  const names = ["memory.query.v1", "context.compact.v1", "manifest.compile.v1"]

  it("property: arbitrary values in every port give a result, never an exception", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })),
        (name, inputs) => {
          const result = call(name, inputs)
          assert.isBoolean(result.ok)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("deep, huge and exotic inputs are typed failures", () => {
    const throwing = new Proxy({}, {
      ownKeys: () => {
        throw new Error("trap")
      }
    })
    for (const name of names) {
      for (const value of [deep(200_000), throwing, "x".repeat(2_000_000), Array.from({ length: 100_000 }, () => 0)]) {
        const inputs = Object.fromEntries(Object.keys(fn(name).inputs).map((port) => [port, value]))
        const result = call(name, inputs)
        assert.isFalse(result.ok, name)
      }
    }
    const cyclic: any = { steps: [] }
    cyclic.steps.push(cyclic)
    assert.isFalse(call("manifest.compile.v1", { plan: cyclic }).ok)
  })
})

describe("end to end through the runtime", () => {
  const input = (outputs: Record<string, unknown>) => ({ id: "in", kind: "input", outputs })
  const fail = { on: "fail" }

  it("memory.query.v1: the work ledger is charged 100 + 10 + result.work", () => {
    const json = organism([input({ snapshot: "json", program: "json" }), {
      id: "q",
      kind: "fn",
      fn: "memory.query.v1"
    }], [
      edge("in.snapshot", "q.snapshot"),
      edge("in.program", "q.program")
    ])
    const result = run(json, { in: { snapshot: { n: [1, 2, 3] }, program: expr(["len", ["get", "snapshot", "n"]]) } })
    assert.strictEqual(result.outcome, "complete")
    const record = result.receipt.cells["q"]!
    const out = record.outputs!.result as { value: number; work: number }
    assert.strictEqual(out.value, 3)
    assert.strictEqual(record.work, 100 + 10 + out.work)
    assert.strictEqual(result.receipt.work.units, result.receipt.cells["in"]!.work + record.work)
  })

  it("memory.query.v1: an expression error fails the cell and is routed by a fail edge", () => {
    const json = organism([
      input({ snapshot: "json", program: "json" }),
      { id: "q", kind: "fn", fn: "memory.query.v1" },
      { id: "oops", kind: "fn", fn: "echo.v1" }
    ], [edge("in.snapshot", "q.snapshot"), edge("in.program", "q.program"), edge("q.result", "oops.value", fail)])
    const result = run(json, { in: { snapshot: 1, program: expr(["div", 1, 0]) } })
    assert.strictEqual(result.outcome, "complete")
    assert.strictEqual(result.receipt.cells["q"]!.status, "failed")
    assert.strictEqual(result.receipt.cells["q"]!.work, 110)
    const routed = result.receipt.cells["oops"]!.outputs!.value as { code: string; message: string }
    assert.strictEqual(routed.code, "FN_FAILED")
    assert.match(routed.message, /^memory\.query\.v1: EXPR_DIV_ZERO/)
  })

  it("context.compact.v1: runs through the AlgalRuntime service; a bad policy is routed by a fail edge", () =>
    Effect.gen(function*() {
      const runtime = yield* AlgalRuntime.AlgalRuntime
      const json = organism([
        input({ source: "json", policy: "json" }),
        { id: "c", kind: "fn", fn: "context.compact.v1" },
        { id: "why", kind: "fn", fn: "echo.v1" }
      ], [edge("in.source", "c.source"), edge("in.policy", "c.policy"), edge("c.view", "why.value", fail)])
      const ok = yield* runtime.run(json, { in: { source: ["a", "b", "c"], policy: { keep: 2 } } })
      assert.strictEqual(ok.outcome, "complete")
      assert.deepStrictEqual(ok.receipt.cells["c"]!.outputs, { view: ["b", "c"], archive: ["a"] })
      assert.strictEqual(ok.receipt.cells["c"]!.work, 110)
      assert.strictEqual(ok.receipt.cells["why"]!.status, "skipped")
      const bad = yield* runtime.run(json, { in: { source: ["a"], policy: { keep: -1 } } })
      assert.strictEqual(bad.outcome, "complete")
      assert.deepStrictEqual(bad.receipt.cells["why"]!.outputs!.value, {
        code: "FN_FAILED",
        message: "context.compact.v1: policy.keep must be an integer in [0, 1024]"
      })
      const unhandled = yield* runtime.run(
        organism([input({ source: "json", policy: "json" }), { id: "c", kind: "fn", fn: "context.compact.v1" }], [
          edge("in.source", "c.source"),
          edge("in.policy", "c.policy")
        ]),
        { in: { source: 1, policy: {} } }
      )
      assert.strictEqual(unhandled.outcome, "failed")
      assert.deepStrictEqual(unhandled.receipt.failure, {
        code: "FN_FAILED",
        message: "context.compact.v1: source must be a list of entries, got number",
        path: "c"
      })
    }).pipe(Effect.provide(AlgalRuntime.layer)))

  it("manifest.compile.v1: compiles in a run (cost 50), the output runs, an invalid plan is routed", () => {
    const json = organism([
      input({ plan: "json" }),
      { id: "compile", kind: "fn", fn: "manifest.compile.v1" },
      { id: "why", kind: "fn", fn: "echo.v1" }
    ], [edge("in.plan", "compile.plan"), edge("compile.manifest", "why.value", fail)])
    const plan = { steps: [{ id: "twice", fn: "double.v1" }, { id: "next", fn: "inc.v1" }] }
    const ok = run(json, { in: { plan } })
    assert.strictEqual(ok.receipt.cells["compile"]!.work, 150)
    const manifest = ok.receipt.cells["compile"]!.outputs!.manifest
    const child = run(manifest, { input: { value: 20 } })
    assert.deepStrictEqual(child.outputs, { value: 41 })
    const bad = run(json, { in: { plan: { steps: [] } } })
    assert.strictEqual(bad.receipt.cells["compile"]!.status, "failed")
    assert.deepStrictEqual(bad.receipt.cells["why"]!.outputs!.value, {
      code: "FN_FAILED",
      message: "manifest.compile.v1: plan.steps must hold 1 to 4 steps, got 0"
    })
  })
})

describe("README example (built-in fns)", () => {
  it("memory.query.v1 and manifest.compile.v1 as documented", () => {
    const query = FnRegistry.builtins.get("memory.query.v1")!.invoke({
      snapshot: { notes: ["a", "b", "c"] },
      program: { contract: "algal.expr.v1", program: ["len", ["get", "snapshot", "notes"]] }
    })
    assert.deepStrictEqual(query, { ok: true, outputs: { result: { value: 3, work: 8 } }, work: 8 })
    const compiled = FnRegistry.builtins.get("manifest.compile.v1")!.invoke({
      plan: { steps: [{ id: "twice", fn: "double.v1" }, { id: "next", fn: "inc.v1" }] }
    })
    assert.isTrue(compiled.ok)
    if (!compiled.ok) return
    const manifest = Manifest.parseSync(compiled.outputs.manifest)
    assert.isTrue(manifest.ok)
    if (!manifest.ok) return
    const program = Program.compileSync(manifest.manifest)
    assert.isTrue(program.ok)
    if (!program.ok) return
    const result = Runtime.runSync(program.program, { input: { value: 20 } })
    assert.deepStrictEqual(result.ok && result.result.outputs, { value: 41 })
  })
})
