/**
 * Shape-specialized admission (ADR 0397). `valueAsIs` walks any value generically: every field
 * read is a megamorphic keyed load and every key is scanned, which is most of the cost of
 * admitting a small record. Successive inputs at one place (a reflex's `params`, its `features`)
 * almost always have one structure, so once a value has been admitted, a function specialized to
 * its structure — its keys in order, its lists' element structure — is generated: fields are read
 * by constant names (monomorphic loads) and keys are compared with constants instead of scanned.
 *
 * A specialized check answers exactly what `valueAsIsAt` answers — the same size, counted by the
 * same rules — for every value of its structure, and -1 for anything else (another structure, a
 * part that does not qualify, over the limit, a read that throws). The caller then runs the
 * generic walk, which decides. So a check can make admission faster, never different.
 *
 * @internal
 */
import { FAST_DEPTH, FAST_STRING, isPlainObject, stringBytes, valueAsIsAt } from "./input.js"

/** A specialized check: the value's size as `valueAsIsAt` counts it at the shape's depth, or -1. @internal */
export type ShapeCheck = (value: unknown, limit: number, listLen: number, objectKeys: number) => number

type Shape =
  | { readonly k: "scalar" }
  | { readonly k: "object"; readonly keys: ReadonlyArray<string>; readonly fields: ReadonlyArray<Shape> }
  | { readonly k: "array"; readonly item: Shape }
  // anything else (mixed list elements, a large object, an empty list's elements): the generic walk
  | { readonly k: "generic" }

const scalar: Shape = { k: "scalar" }
const generic: Shape = { k: "generic" }

// Bounds on what is specialized, so generated code stays small.
const MAX_NODES = 256
const MAX_KEYS = 64

const signature = (shape: Shape): string => {
  switch (shape.k) {
    case "scalar":
      return "s"
    case "generic":
      return "g"
    case "array":
      return `[${signature(shape.item)}]`
    case "object":
      return `{${shape.keys.map((key, i) => `${JSON.stringify(key)}:${signature(shape.fields[i]!)}`).join(",")}}`
  }
}

const describe = (value: unknown, budget: { nodes: number }): Shape => {
  if (--budget.nodes < 0) return generic
  if (value === null || typeof value !== "object") return scalar
  if (Array.isArray(value)) {
    if (value.length === 0) return { k: "array", item: generic }
    const item = describe(value[0], budget)
    const first = signature(item)
    for (let i = 1; i < value.length; i++) {
      // elements of one structure share one specialized body; mixed lists walk generically
      if (signature(describe(value[i], { nodes: MAX_NODES })) !== first) return { k: "array", item: generic }
    }
    return { k: "array", item }
  }
  const keys: Array<string> = []
  // the same enumeration the generated check runs (own keys, plus any enumerable inherited one)
  for (const key in value) {
    // `o["__proto__"]` reads the prototype, not the field: left to the generic walk
    if (key === "__proto__" || keys.length >= MAX_KEYS) return generic
    keys.push(key)
  }
  return { k: "object", keys, fields: keys.map((key) => describe((value as Record<string, unknown>)[key], budget)) }
}

class Emitter {
  private readonly lines: Array<string> = []
  private temps = 0
  readonly keyLists: Array<ReadonlyArray<string>> = []

  private temp(prefix: string): string {
    return `${prefix}${this.temps++}`
  }

  private emit(line: string): void {
    this.lines.push(line)
  }

  node(shape: Shape, read: string, depth: number): void {
    // The one rule a check never tests as it runs is depth: its containers sit where the shape
    // put them. So a shape with a container past the bound is not specialized at all (the value
    // it came from may not be the value admitted: a getter can answer differently when re-read).
    if ((shape.k === "object" || shape.k === "array") && depth > FAST_DEPTH) throw new Error("too deep")
    switch (shape.k) {
      case "scalar": {
        const x = this.temp("x")
        const n = this.temp("n")
        this.emit(`const ${x} = ${read};`)
        this.emit(
          `if (typeof ${x} === "number") { if (${x} - ${x} !== 0) return -1; s += 25; }` +
            ` else if (typeof ${x} === "string") { const ${n} = sb(${x}); if (${n} < 0 || ${n} > FS) return -1; s += ${n}; }` +
            ` else if (${x} === null || ${x} === true) s += 4;` +
            ` else if (${x} === false) s += 5;` +
            ` else return -1;`
        )
        return
      }
      case "generic": {
        const n = this.temp("n")
        this.emit(
          `const ${n} = walk(${read}, ${depth}, limit - s, listLen, objectKeys); if (${n} < 0) return -1; s += ${n};`
        )
        return
      }
      case "array": {
        const a = this.temp("a")
        const l = this.temp("l")
        const i = this.temp("i")
        this.emit(`const ${a} = ${read}; if (!Array.isArray(${a})) return -1;`)
        this.emit(`const ${l} = ${a}.length; if (${l} > listLen) return -1; s += ${l} > 1 ? ${l} + 1 : 2;`)
        this.emit(`for (let ${i} = 0; ${i} < ${l}; ${i}++) {`)
        this.node(shape.item, `${a}[${i}]`, depth + 1)
        // within the limit at every element: a list repeating one huge value stops early
        this.emit(`if (s > limit) return -1; }`)
        return
      }
      case "object": {
        const o = this.temp("o")
        const c = this.temp("c")
        const k = this.temp("k")
        const list = this.keyLists.length
        this.keyLists.push(shape.keys)
        const count = shape.keys.length
        this.emit(`const ${o} = ${read}; if (${o} === null || typeof ${o} !== "object") return -1;`)
        // \`isPlainObject\`, its common case inlined
        this.emit(
          `if ((${o}.__proto__ !== OP || hop.call(${o}, "__proto__")) && !plain(${o})) return -1;`
        )
        // exactly these keys, in this order (interned strings: a pointer test each)
        this.emit(`let ${c} = 0; for (const ${k} in ${o}) { if (${k} !== K${list}[${c}]) return -1; ${c}++; }`)
        this.emit(`if (${c} !== ${count}) return -1;`)
        let fixed = count === 0 ? 2 : 1
        for (const key of shape.keys) {
          const bytes = stringBytes(key)
          if (bytes < 0 || bytes > FAST_STRING) throw new Error("unqualified key")
          fixed += bytes + 2
        }
        this.emit(`if (${count} > objectKeys) return -1; s += ${fixed};`)
        shape.fields.forEach((field, i) => this.node(field, `${o}[${JSON.stringify(shape.keys[i])}]`, depth + 1))
        return
      }
    }
  }

  source(): string {
    return [
      ...this.keyLists.map((_, i) => `const K${i} = K[${i}];`),
      `return function shape(value, limit, listLen, objectKeys) {`,
      `try {`,
      `let s = 0;`,
      ...this.lines,
      `return s > limit ? -1 : s;`,
      `} catch { return -1; }`,
      `};`
    ].join("\n")
  }
}

/**
 * A check specialized to the structure of `value`, an admitted value found at `depth`; or
 * `undefined` when there is nothing to specialize (a scalar, or no `new Function` here).
 *
 * @internal
 */
export const specialize = (value: unknown, depth: number): ShapeCheck | undefined => {
  try {
    const shape = describe(value, { nodes: MAX_NODES })
    if (shape.k === "scalar" || shape.k === "generic") return undefined
    const emitter = new Emitter()
    emitter.node(shape, "value", depth)
    const make = new Function("OP", "hop", "plain", "sb", "FS", "K", "walk", emitter.source()) as (
      ...args: ReadonlyArray<unknown>
    ) => ShapeCheck
    return make(
      Object.prototype,
      Object.prototype.hasOwnProperty,
      isPlainObject,
      stringBytes,
      FAST_STRING,
      emitter.keyLists,
      valueAsIsAt
    )
  } catch {
    // a key that does not qualify, or no `new Function` here: the generic walk alone
    return undefined
  }
}
