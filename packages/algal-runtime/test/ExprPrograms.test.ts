import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Expr } from "../src/index.js"

const fixtures = path.join(import.meta.dirname, "fixtures")
const load = (file: string): any => JSON.parse(fs.readFileSync(path.join(fixtures, file), "utf8"))
const cell = (manifest: any, id: string): any => manifest.cells.find((c: any) => c.id === id)

const manifests = [
  ...fs.readdirSync(path.join(fixtures, "algal/examples")).filter((f) => f.endsWith(".algal.json")).map((f) =>
    `algal/examples/${f}`
  ),
  ...fs.readdirSync(path.join(fixtures, "xcb")).filter((f) => f.endsWith(".algal.json")).map((f) => `xcb/${f}`)
]

describe("Expr on the shipped programs (fixtures)", () => {
  it("every expr cell and edge guard of every fixture passes the static check with its declared names", () => {
    let programs = 0
    for (const file of manifests) {
      const manifest = load(file)
      for (const c of manifest.cells ?? []) {
        if (c.kind !== "expr") continue
        programs++
        assert.isUndefined(Expr.check(c.expr.program, Object.keys(c.inputs ?? {})), `${file} cell ${c.id}`)
      }
      for (const e of manifest.edges ?? []) {
        if (e.guard?.expr === undefined) continue
        programs++
        assert.isUndefined(Expr.check(e.guard.expr.program, ["value"]), `${file} guard`)
      }
    }
    // expr-rate 1, expr-guard 1 + 1 guard, model-router 3, route 2, settle 2
    assert.strictEqual(programs, 10)
  })

  it("expr-rate: let/get/if/gt/mul rates a ticket from its args", () => {
    const manifest = load("algal/examples/expr-rate.algal.json")
    const args = load("algal/examples/expr-rate.args.json").in
    const program = cell(manifest, "rate").expr.program
    // 250 * 5 = 1250 > 1000
    assert.deepStrictEqual(Expr.evaluate(program, args), { ok: true, value: "high", fuel: 27 })
    assert.deepStrictEqual(Expr.evaluate(program, { ...args, base: 3 }).ok && true, true)
    assert.strictEqual((Expr.evaluate(program, { ...args, base: 3 }) as any).value, "std")
  })

  it("expr-guard: the cell doubles n and the edge guard sees only value", () => {
    const manifest = load("algal/examples/expr-guard.algal.json")
    const args = load("algal/examples/expr-guard.args.json").in
    const calc = Expr.evaluate(cell(manifest, "calc").expr.program, args)
    assert.deepStrictEqual(calc, { ok: true, value: 120, fuel: 7 })
    const guard = manifest.edges[1].guard.expr.program
    assert.deepStrictEqual(Expr.evaluate(guard, { value: 120 }), { ok: true, value: true, fuel: 7 })
    assert.deepStrictEqual(Expr.evaluate(guard, { value: 60 }), { ok: true, value: false, fuel: 7 })
    assert.deepStrictEqual(Expr.check(guard, ["n"]), { code: "EXPR_PATH", op: "get", what: "unbound name \"value\"" })
  })

  it("model-router: filter/split/unique/min/contains/lower/nth over the task text", () => {
    const manifest = load("algal/examples/model-router.algal.json")
    const task = load("algal/examples/model-router.args.json").src.task
    const features = manifest.cells.find((c: any) => c.kind === "expr" && "task" in (c.inputs ?? {}))
    const result = Expr.evaluate(features.expr.program, { task })
    assert.isTrue(result.ok)
    assert.deepStrictEqual(result.ok && result.value, { imperative: true, resume: false, verbs_c: 2, words: 13 })
    const again = Expr.evaluateJson(features.expr.program, { task })
    assert.strictEqual(again.text, Expr.evaluateJson(features.expr.program, { task }).text)
  })

  const settle = load("xcb/settle.algal.json")
  const params = {
    unfinished: { terms: [{ f: "a", w: 0.5 }, { f: "b", w: -1 }], bias: 0.1, cut: 0.3 },
    confirm: { terms: [{ f: "c", w: 2 }], bias: -1, cut: 0.5 }
  }
  const features = { a: 1, b: 0.2, c: "not a number" }

  it("settle head: two folds over learned terms (non-numeric features count 0)", () => {
    const head = Expr.evaluate(cell(settle, "head").expr.program, { features, params, evidence: {} })
    assert.isTrue(head.ok)
    assert.deepStrictEqual(head.ok && head.value, { u: 0.1 + 0.5 * 1 + -1 * 0.2, ucut: 0.3, c: -1 + 2 * 0, ccut: 0.5 })
  })

  it("settle decide: every gate of the decision", () => {
    const decide = cell(settle, "decide").expr.program
    const scored = { u: 0.39999999999999997, ucut: 0.3, c: -1, ccut: 0.5 }
    const idle = { state: "idle", limit: 0, blocked: 0, done_claim: 0 }
    const run = (evidence: object, s: object = scored) => {
      const result = Expr.evaluate(decide, { scored: s as any, evidence: evidence as any })
      assert.isTrue(result.ok, JSON.stringify(result))
      return result.ok ? result.value : undefined
    }
    assert.deepStrictEqual(run(idle), { category: "stopped_short", gate: "head", head: "unfinished", score: 400 })
    assert.deepStrictEqual(run(idle, { ...scored, u: 0.2 }), {
      category: "done",
      gate: "head",
      head: "unfinished",
      score: 200
    })
    assert.deepStrictEqual(run(idle, { ...scored, c: 0.75 }), {
      category: "confirm",
      gate: "head",
      head: "confirm",
      score: 750
    })
    assert.deepStrictEqual(run({ ...idle, blocked: 1 }), {
      category: "blocked",
      gate: "blocked",
      head: "unfinished",
      score: 400
    })
    assert.deepStrictEqual(run({ ...idle, limit: 1 }), {
      category: "interrupted",
      gate: "limit",
      head: "unfinished",
      score: 400
    })
    assert.deepStrictEqual(run({ state: "needs_answer" }), {
      category: "question",
      gate: "state",
      head: "unfinished",
      score: 400
    })
    assert.deepStrictEqual(run({ state: "mystery" }), { category: null, gate: "state", head: "unfinished", score: 400 })
    // strict types: a string limit is a type error, not a coercion
    const bad = Expr.evaluate(decide, { scored, evidence: { ...idle, limit: "1" } })
    assert.deepStrictEqual(bad.ok ? undefined : bad.error, {
      code: "EXPR_TYPE",
      op: "gte",
      arg: 0,
      want: "two numbers or two strings",
      got: "text,number"
    })
  })

  it("route: head and decide", () => {
    const route = load("xcb/route.algal.json")
    const params = {
      judged: { terms: [{ f: "x", w: 2 }], bias: -1, cut: 0.5 },
      plain: { terms: [{ f: "x", w: 1 }], bias: 0, cut: 0.9 }
    }
    const head = Expr.evaluate(cell(route, "head").expr.program, {
      features: { x: 0.8 },
      params,
      evidence: { judged: false }
    })
    assert.deepStrictEqual(head.ok && head.value, { head: "plain", z: 0.8, cut: 0.9 })
    const decide = cell(route, "decide").expr.program
    const scored = { head: "plain", z: 0.8, cut: 0.9 }
    const result = Expr.evaluate(decide, { scored, evidence: { substantial: false, judged: false, kind: "task" } })
    assert.deepStrictEqual(result.ok && result.value, { route: "standard", gate: "score", head: "plain", score: 800 })
    const notBool = Expr.evaluate(decide, { scored, evidence: { substantial: "no" } })
    assert.deepStrictEqual(notBool.ok ? undefined : notBool.error, {
      code: "EXPR_TYPE",
      op: "if",
      arg: 0,
      want: "bool",
      got: "text"
    })
  })
})

describe("Expr builder", () => {
  it("the module documentation example holds", () => {
    const total = Expr.fold(Expr.get("charges"), 0, "acc", "c", (acc) => Expr.add(acc, Expr.get("c", "amt")))
    assert.strictEqual(
      JSON.stringify(total),
      `["fold",["get","charges"],0,"acc","c",["add",["get","acc"],["get","c","amt"]]]`
    )
    const result = Expr.evaluate(total, { charges: [{ amt: 10 }, { amt: 25 }, { amt: 7 }] }, 1_000)
    assert.deepStrictEqual(result, { ok: true, value: 42, fuel: 2 + 4 + 1 + 3 * (1 + 2 + 4 + 6) })
    assert.strictEqual(Expr.evaluateJson(["get", "x"], { x: 3 }, 100).text, `{"ok":true,"value":3,"fuel":4}`)
    assert.deepStrictEqual(Expr.evaluate(["div", 1, 0], {}, 100), {
      ok: false,
      error: { code: "EXPR_DIV_ZERO", op: "div" },
      fuel: 4
    })
    assert.deepStrictEqual(Expr.check(["get", "nope"], ["yes"]), {
      code: "EXPR_PATH",
      op: "get",
      what: "unbound name \"nope\""
    })
  })

  it("builds exactly the expr-rate program", () => {
    const built = Expr.let_(
      "amt",
      Expr.get("ticket", "amount"),
      Expr.let_(
        "mult",
        Expr.get("base"),
        (mult) => Expr.if_(Expr.gt(Expr.mul(Expr.get("amt"), mult), 1000), "high", "std")
      )
    )
    assert.deepStrictEqual(built, cell(load("algal/examples/expr-rate.algal.json"), "rate").expr.program)
  })

  it("builds exactly the route head program", () => {
    const built = Expr.let_(
      "judged",
      Expr.get("evidence", "judged"),
      (judged) =>
        Expr.let_("h", Expr.if_(judged, Expr.get("params", "judged"), Expr.get("params", "plain")), (h) =>
          Expr.record({
            head: Expr.if_(judged, "judged", "plain"),
            z: Expr.fold(Expr.get("h", "terms"), Expr.get("h", "bias"), "acc", "t", (acc, t) =>
              Expr.add(
                acc,
                Expr.mul(
                  Expr.get("t", "w"),
                  Expr.let_("v", Expr.get("features", Expr.get("t", "f")), (v) => Expr.if_(Expr.isNum(v), v, 0))
                )
              )),
            cut: Expr.get(Expr.raw("h"), "cut")
          }))
    )
    void built
    assert.deepStrictEqual(built as unknown, cell(load("xcb/route.algal.json"), "head").expr.program)
  })

  it("one builder per op, each a plain JSON array", () => {
    const x = Expr.get("x")
    const s = Expr.get("s")
    const l = Expr.get("l")
    const m = Expr.get("m")
    const built: ReadonlyArray<readonly [unknown, unknown]> = [
      [x, ["get", "x"]],
      [Expr.get("m", "k", 0), ["get", "m", "k", 0]],
      [Expr.not(false), ["not", false]],
      [Expr.add(1, x), ["add", 1, ["get", "x"]]],
      [Expr.mul(2, 3), ["mul", 2, 3]],
      [Expr.sub(x, 1), ["sub", ["get", "x"], 1]],
      [Expr.div(x, 2), ["div", ["get", "x"], 2]],
      [Expr.mod(x, 2), ["mod", ["get", "x"], 2]],
      [Expr.neg(x), ["neg", ["get", "x"]]],
      [Expr.min(1, 2), ["min", 1, 2]],
      [Expr.max(1, 2), ["max", 1, 2]],
      [Expr.abs(x), ["abs", ["get", "x"]]],
      [Expr.floor(x), ["floor", ["get", "x"]]],
      [Expr.ceil(x), ["ceil", ["get", "x"]]],
      [Expr.round(x), ["round", ["get", "x"]]],
      [Expr.clamp(x, 0, 1), ["clamp", ["get", "x"], 0, 1]],
      [Expr.lt(1, 2), ["lt", 1, 2]],
      [Expr.lte("a", "b"), ["lte", "a", "b"]],
      [Expr.gt(x, 1), ["gt", ["get", "x"], 1]],
      [Expr.gte(x, 1), ["gte", ["get", "x"], 1]],
      [Expr.eq(x, null), ["eq", ["get", "x"], null]],
      [Expr.neq(x, "a"), ["neq", ["get", "x"], "a"]],
      [Expr.and(true, Expr.not(false)), ["and", true, ["not", false]]],
      [Expr.or(false, x), ["or", false, ["get", "x"]]],
      [Expr.if_(true, 1, "a"), ["if", true, 1, "a"]],
      [Expr.let_("y", 1, Expr.get("y")), ["let", "y", 1, ["get", "y"]]],
      [Expr.list(1, "a", null), ["list", 1, "a", null]],
      [Expr.quote([1, [2]]), ["quote", [1, [2]]]],
      [Expr.len(l), ["len", ["get", "l"]]],
      [Expr.nth(l, 0), ["nth", ["get", "l"], 0]],
      [Expr.concat(l, Expr.list(1)), ["concat", ["get", "l"], ["list", 1]]],
      [Expr.map(l, "i", (i) => Expr.add(i, 1)), ["map", ["get", "l"], "i", ["add", ["get", "i"], 1]]],
      [Expr.filter(l, "i", (i) => Expr.gt(i, 1)), ["filter", ["get", "l"], "i", ["gt", ["get", "i"], 1]]],
      [Expr.fold(l, 0, "a", "i", Expr.add(Expr.get("a"), Expr.get("i"))), ["fold", ["get", "l"], 0, "a", "i", ["add", [
        "get",
        "a"
      ], ["get", "i"]]]],
      [Expr.contains(l, 1), ["contains", ["get", "l"], 1]],
      [Expr.reverse(l), ["reverse", ["get", "l"]]],
      [Expr.take(l, 1), ["take", ["get", "l"], 1]],
      [Expr.drop(l, 1), ["drop", ["get", "l"], 1]],
      [Expr.flat(l), ["flat", ["get", "l"]]],
      [Expr.unique(l), ["unique", ["get", "l"]]],
      [Expr.sort(l), ["sort", ["get", "l"]]],
      [Expr.slen(s), ["slen", ["get", "s"]]],
      [Expr.sconcat(s, "!"), ["sconcat", ["get", "s"], "!"]],
      [Expr.upper(s), ["upper", ["get", "s"]]],
      [Expr.lower(s), ["lower", ["get", "s"]]],
      [Expr.trim(s), ["trim", ["get", "s"]]],
      [Expr.split(s, ","), ["split", ["get", "s"], ","]],
      [Expr.join(l, ","), ["join", ["get", "l"], ","]],
      [Expr.scontains(s, "a"), ["scontains", ["get", "s"], "a"]],
      [Expr.starts(s, "a"), ["starts", ["get", "s"], "a"]],
      [Expr.ends(s, "a"), ["ends", ["get", "s"], "a"]],
      [Expr.has(m, "k"), ["has", ["get", "m"], "k"]],
      [Expr.keys(m), ["keys", ["get", "m"]]],
      [Expr.values(m), ["values", ["get", "m"]]],
      [Expr.merge(m, Expr.record({ k: 1 })), ["merge", ["get", "m"], { k: 1 }]],
      [Expr.toText(m), ["toText", ["get", "m"]]],
      [Expr.isText(x), ["isText", ["get", "x"]]],
      [Expr.isNum(x), ["isNum", ["get", "x"]]],
      [Expr.isBool(x), ["isBool", ["get", "x"]]],
      [Expr.isList(x), ["isList", ["get", "x"]]],
      [Expr.isMap(x), ["isMap", ["get", "x"]]],
      [Expr.isNull(x), ["isNull", ["get", "x"]]]
    ]
    for (const [actual, expected] of built) {
      assert.deepStrictEqual(actual, expected)
      assert.strictEqual(JSON.stringify(actual), JSON.stringify(expected))
    }
    // 61 ops, one builder each
    assert.strictEqual(new Set(built.map(([, e]) => (e as Array<string>)[0])).size, 61)
    const env = { x: 2, s: "a,b", l: ["p", "q"], m: { k: 0 } }
    for (const [actual] of built) {
      const result = Expr.evaluate(actual, env as any)
      assert.isTrue(Expr.check(actual, Object.keys(env)) === undefined, JSON.stringify(actual))
      assert.isFalse(!result.ok && result.error.code === "EXPR_PARSE")
    }
  })

  it("record keeps a __proto__ field as data", () => {
    const built = Expr.record(JSON.parse(`{"__proto__": 1}`))
    assert.deepStrictEqual(Object.keys(built), ["__proto__"])
    assert.deepStrictEqual(Expr.evaluateJson(built, {}).text, `{"ok":true,"value":{"__proto__":1},"fuel":2}`)
  })

  it("result types are checked at compile time", () => {
    // @ts-expect-error a text result is not a number
    Expr.add(Expr.sconcat("a", "b"), 1)
    // @ts-expect-error a boolean literal is not a number
    Expr.mul(true, 1)
    // @ts-expect-error if needs a boolean condition
    Expr.if_(Expr.add(1, 2), 1, 2)
    // @ts-expect-error a number is not a list
    Expr.len(Expr.add(1, 2))
    // @ts-expect-error mixed comparison
    Expr.lt(1, "a")
    // @ts-expect-error a raw array is not a built node
    Expr.not(["not", true])
    const n: Expr.Call<number> = Expr.add(Expr.get("x"), 1)
    const b: Expr.Call<boolean> = Expr.filter(Expr.quote([1, 2]), "i", (i) => Expr.gt(i, 1)).length > 0
      ? Expr.eq(n, 1)
      : Expr.not(true)
    assert.deepStrictEqual(b as unknown, ["eq", ["add", ["get", "x"], 1], 1])
  })
})
