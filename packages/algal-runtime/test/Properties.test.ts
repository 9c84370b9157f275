import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as AlgalError from "../src/AlgalError.js"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"
import * as Receipt from "../src/Receipt.js"
import * as Runtime from "../src/Runtime.js"
import { compileOk, example, settleArgs, xcb } from "./helpers.js"

const fixtures = [
  xcb("settle"),
  xcb("route"),
  example("expr-guard"),
  example("guard"),
  example("counter"),
  example("stash"),
  example("model-router"),
  example("triage")
]

/** Every JSON path of a value (as key lists). */
const paths = (value: unknown, prefix: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  const out: Array<ReadonlyArray<string | number>> = [prefix]
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])))
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]))
  }
  return out
}

/** Replace (or delete, when `replacement` is undefined) the value at a path. */
const mutate = (value: unknown, path: ReadonlyArray<string | number>, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const [head, ...rest] = path
  if (Array.isArray(value)) {
    const copy = [...value]
    if (rest.length === 0 && replacement === undefined) copy.splice(head as number, 1)
    else copy[head as number] = mutate(copy[head as number], rest, replacement)
    return copy
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  if (rest.length === 0 && replacement === undefined) delete copy[head as string]
  else copy[head as string] = mutate(copy[head as string], rest, replacement)
  return copy
}

const mutated = fc.tuple(
  fc.nat(fixtures.length - 1),
  fc.nat(),
  fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined })
)
  .map(([f, p, replacement]) => {
    const base = fixtures[f]
    const all = paths(base)
    return mutate(base, all[p % all.length]!, replacement)
  })

/** Rebuild every object with its keys in a seed-dependent order. */
const permute = (value: unknown, seed: number): unknown => {
  if (Array.isArray(value)) return value.map((v, i) => permute(v, seed + i))
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value)
    const order = keys.map((_, i) => keys[(i * (seed % 5 + 1) + seed) % keys.length]!)
    const out: Record<string, unknown> = {}
    for (const k of [...new Set([...order, ...keys])]) out[k] = permute((value as Record<string, unknown>)[k], seed + 1)
    return out
  }
  return value
}

describe("properties: the manifest digest ignores key order", () => {
  it("any key-order permutation of a shipped manifest has the same digest", () => {
    fc.assert(
      fc.property(fc.nat(fixtures.length - 1), fc.nat(1000), (f, seed) => {
        const a = Manifest.parseSync(fixtures[f])
        const b = Manifest.parseSync(permute(fixtures[f], seed))
        return a.ok && b.ok && Manifest.digest(a.manifest) === Manifest.digest(b.manifest)
      }),
      { numRuns: 100 }
    )
  })
})

describe("properties: parse, compile and run never throw an untyped error", () => {
  it("Manifest.parseSync on arbitrary JSON returns a manifest or a typed AlgalError", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (json) => {
        const result = Manifest.parseSync(json)
        return result.ok || (AlgalError.isAlgalError(result.error) && AlgalError.codes.includes(result.error.code))
      }),
      { numRuns: 300 }
    )
  })

  it("mutated fixtures parse, compile and run to a typed error or a valid receipt", () => {
    fc.assert(
      fc.property(mutated, (json) => {
        const parsed = Manifest.parseSync(json)
        if (!parsed.ok) return AlgalError.isAlgalError(parsed.error)
        const compiled = Program.compileSync(parsed.manifest)
        if (!compiled.ok) return AlgalError.isAlgalError(compiled.error)
        const run = Runtime.runSync(compiled.program, settleArgs({}))
        if (!run.ok) return AlgalError.isAlgalError(run.error)
        return Effect.runSync(Effect.either(Receipt.decode(run.result.receipt)))._tag === "Right" &&
          run.result.receipt.digest === Receipt.fingerprint(run.result.receipt)
      }),
      { numRuns: 400 }
    )
  })

  it("runs on arbitrary args always terminate within budgets: expr work ≤ 100 + 100,000 fuel, steps ≤ maxSteps", () => {
    const settle = compileOk(xcb("settle"))
    const route = compileOk(xcb("route"))
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.jsonValue({ maxDepth: 4 }),
        fc.jsonValue({ maxDepth: 4 }),
        (features, params, evidence) => {
          for (const program of [settle, route]) {
            const result = Runtime.runSync(program, { src: { features, params, evidence } })
            if (!result.ok) return AlgalError.isAlgalError(result.error)
            const receipt = result.result.receipt
            if (receipt.work.steps > program.manifest.budgets.maxSteps) return false
            for (const record of Object.values(receipt.cells)) {
              if (record.work > 100 + 100_000) return false
            }
            if (!["complete", "failed"].includes(receipt.outcome)) return false
          }
          return true
        }
      ),
      { numRuns: 200 }
    )
  })

  it("the fingerprint changes when any arg changes (no collisions across distinct args)", () => {
    const settle = compileOk(xcb("settle"))
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (a, b) => {
          fc.pre(!Object.is(a, b) && !(a === 0 && b === 0))
          const x = Runtime.runSync(settle, settleArgs({}, { a }))
          const y = Runtime.runSync(settle, settleArgs({}, { a: b }))
          return x.ok && y.ok && x.result.digest !== y.result.digest
        }
      ),
      { numRuns: 100 }
    )
  })
})
