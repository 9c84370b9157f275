import { assert, describe, it } from "@effect/vitest"
import * as FnRegistry from "../src/FnRegistry.js"

const call = (name: string, inputs: Record<string, unknown>) => FnRegistry.builtins.get(name)!.invoke(inputs as any)

// [fn, inputs, expected value | { fail: message }]
const cases: ReadonlyArray<readonly [string, Record<string, unknown>, unknown]> = [
  ["echo.v1", { value: { a: [1] } }, { a: [1] }],
  ["coalesce.v1", { b: null, c: 3 }, 3],
  ["coalesce.v1", { a: 0, b: 1 }, 0],
  ["coalesce.v1", { a: null }, { fail: "coalesce.v1: all inputs empty" }],
  ["format.v1", { prefix: "n=", value: { b: 1, a: 2 } }, `n={"a":2,"b":1}`],
  ["format.v1", { prefix: "> ", value: "text" }, "> text"],
  ["tag.v1", { tag: "bug-é", value: "crash" }, "BUG-é: crash"],
  ["tag.v1", { tag: "n", value: 1 }, "N: 1"],
  ["pick.v1", { record: { code: "X" }, field: "code" }, "X"],
  ["pick.v1", { record: { code: "X" }, field: "other" }, null],
  ["pick.v1", { record: {}, field: "constructor" }, null],
  ["pick.v1", { record: [1], field: "0" }, { fail: "pick.v1: record is not an object" }],
  ["join.v1", { items: ["a", "b"] }, "a\nb"],
  ["join.v1", { items: ["a", "b"], sep: ", " }, "a, b"],
  ["assert.v1", { value: { a: 1, b: 2 }, expect: { b: 2, a: 1 } }, { a: 1, b: 2 }],
  ["assert.v1", { value: "x".repeat(300), expect: "y" }, {
    fail: `assert.v1: value "${"x".repeat(199)} != expect "y"`
  }],
  ["inc.v1", { value: 41 }, 42],
  ["inc.v1", { value: Number.MAX_SAFE_INTEGER }, { fail: "inc.v1: overflow" }],
  ["inc.v1", { value: "1" }, { fail: "inc.v1: expected a number" }],
  ["double.v1", { value: 1.5 }, 3],
  ["double.v1", { value: Number.MAX_VALUE }, { fail: "double.v1: overflow" }],
  ["not.v1", { value: true }, false],
  ["not.v1", { value: 1 }, { fail: "not.v1: expected a boolean" }],
  ["uppercase.v1", { value: "straße" }, "STRASSE"],
  ["label.v1", { value: "a" }, "a"],
  ["label.v1", { value: "zzz" }, "b"],
  ["push.v1", { list: [1], item: 2 }, [1, 2]],
  ["push.v1", { list: 1, item: 2 }, { fail: "push.v1: list is not a list" }]
]

describe("FnRegistry built-ins", () => {
  for (const [name, inputs, expected] of cases) {
    it(`${name} ${JSON.stringify(inputs).slice(0, 60)}`, () => {
      const result = call(name, inputs)
      if (expected !== null && typeof expected === "object" && "fail" in (expected as object)) {
        assert.deepStrictEqual(result, { ok: false, message: (expected as { fail: string }).fail })
      } else {
        assert.deepStrictEqual(result, { ok: true, outputs: { value: expected as any } })
      }
    })
  }

  it("signatures: costs and ports follow the original registry", () => {
    const cost = (n: string) => FnRegistry.builtins.get(n)!.cost
    assert.deepStrictEqual(
      ["echo.v1", "coalesce.v1", "format.v1", "tag.v1", "pick.v1", "join.v1", "assert.v1", "label.v1"].map(cost),
      [10, 10, 10, 10, 10, 10, 10, 10]
    )
    assert.deepStrictEqual(["inc.v1", "double.v1", "not.v1", "uppercase.v1", "push.v1"].map(cost), [5, 5, 5, 5, 5])
    assert.deepStrictEqual(FnRegistry.builtins.get("join.v1")!.inputs, {
      items: { type: "text", many: true },
      sep: { type: "text", optional: true }
    })
    assert.deepStrictEqual(FnRegistry.builtins.get("label.v1")!.outputs, {
      value: { type: "choice", labels: ["a", "b"] }
    })
  })

  it("make adds host fns and may replace a built-in", () => {
    const echo: FnRegistry.FnDefinition = {
      inputs: {},
      outputs: {},
      cost: 1,
      invoke: () => ({ ok: true, outputs: {} })
    }
    const registry = FnRegistry.make({ "echo.v1": echo, "mine.v1": echo })
    assert.strictEqual(registry.fns.get("echo.v1"), echo)
    assert.strictEqual(registry.fns.get("mine.v1"), echo)
    assert.strictEqual(registry.fns.size, FnRegistry.builtins.size + 1)
  })
})
