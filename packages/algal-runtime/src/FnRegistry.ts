/**
 * The host fn registry (ALGAL v1 §1.5): pure, synchronous functions that `fn` cells (and agent
 * tool calls) may invoke. Each fn has a signature — typed input and output ports and a work cost —
 * and an `invoke` that returns outputs plus any extra work, or a failure. The built-in fns of the
 * original kernel ship in `builtins`; hosts add their own with `layerWith`.
 *
 * @example
 * ```ts
 * import { FnRegistry } from "@steward/algal-runtime"
 *
 * const shout: FnRegistry.FnDefinition = {
 *   inputs: { value: { type: "text" } },
 *   outputs: { value: { type: "text" } },
 *   cost: 5,
 *   invoke: (inputs) => ({ ok: true, outputs: { value: String(inputs.value) + "!" } })
 * }
 * const layer = FnRegistry.layerWith({ "shout.v1": shout })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type { AlgalErrorCode } from "./AlgalError.js"
import * as Canonical from "./Canonical.js"
import * as ContextCompact from "./internal/fns/contextCompact.js"
import * as ManifestCompile from "./internal/fns/manifestCompile.js"
import * as MemoryQuery from "./internal/fns/memoryQuery.js"
import type { Json, PortDecl } from "./Manifest.js"

/**
 * What an fn returns: outputs (and extra work beyond its base cost) or a failure.
 *
 * @since 0.1.0
 * @category models
 */
export type FnResult =
  | { readonly ok: true; readonly outputs: Readonly<Record<string, Json>>; readonly work?: number }
  | { readonly ok: false; readonly message: string; readonly code?: AlgalErrorCode }

/**
 * A registered fn: its signature and a pure synchronous implementation. `invoke` receives only
 * the delivered (present) inputs and must not throw.
 *
 * @since 0.1.0
 * @category models
 */
export interface FnDefinition {
  readonly inputs: Readonly<Record<string, PortDecl>>
  readonly outputs: Readonly<Record<string, PortDecl>>
  readonly cost: number
  readonly invoke: (inputs: Readonly<Record<string, Json>>) => FnResult
}

/**
 * The registry: fns by name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Registry {
  readonly fns: ReadonlyMap<string, FnDefinition>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class FnRegistry extends Context.Tag("@steward/algal-runtime/FnRegistry")<FnRegistry, Registry>() {}

const json: PortDecl = { type: "json" }
const text: PortDecl = { type: "text" }
const ok = (
  value: Json,
  work?: number
): FnResult => (work === undefined ? { ok: true, outputs: { value } } : { ok: true, outputs: { value }, work })
const failed = (message: string): FnResult => ({ ok: false, message })
const show = (v: Json | undefined): string => (typeof v === "string" ? v : Canonical.encodeUnsafe(v ?? null))
const asciiUpper = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase())
const truncate = (s: string): string => (s.length > 200 ? s.slice(0, 200) : s)

const numeric = (name: string, f: (n: number) => number) => (inputs: Readonly<Record<string, Json>>): FnResult => {
  const n = inputs.value
  if (typeof n !== "number") return failed(`${name}: expected a number`)
  const r = f(n)
  if (!Number.isFinite(r) || (Number.isInteger(n) && !Number.isSafeInteger(r))) return failed(`${name}: overflow`)
  return ok(r)
}

/**
 * The built-in fns: `echo.v1`, `coalesce.v1`, `format.v1`, `tag.v1`, `pick.v1`, `join.v1`,
 * `assert.v1`, `inc.v1`, `double.v1`, `not.v1`, `uppercase.v1`, `label.v1`, `push.v1`,
 * `memory.query.v1` (an `algal.expr.v1` query over a snapshot, fuel ≤ 100,000, charged as extra work),
 * `context.compact.v1` (newest entries within `{keep?, maxBytes?}` → `view`, the rest → `archive`) and
 * `manifest.compile.v1` (a plan of 1–4 fn/expr steps → a linear `algal.organism.v1` manifest).
 *
 * @since 0.1.0
 * @category constructors
 */
export const builtins: ReadonlyMap<string, FnDefinition> = new Map<string, FnDefinition>([
  ["echo.v1", { inputs: { value: json }, outputs: { value: json }, cost: 10, invoke: (i) => ok(i.value ?? null) }],
  [
    "coalesce.v1",
    {
      inputs: {
        a: { type: "json", optional: true },
        b: { type: "json", optional: true },
        c: { type: "json", optional: true }
      },
      outputs: { value: json },
      cost: 10,
      invoke: (i) => {
        for (const k of ["a", "b", "c"]) {
          const v = i[k]
          if (v !== undefined && v !== null) return ok(v)
        }
        return failed("coalesce.v1: all inputs empty")
      }
    }
  ],
  [
    "format.v1",
    {
      inputs: { prefix: text, value: json },
      outputs: { value: text },
      cost: 10,
      invoke: (i) => ok(show(i.prefix) + show(i.value))
    }
  ],
  [
    "tag.v1",
    {
      inputs: { tag: text, value: json },
      outputs: { value: text },
      cost: 10,
      invoke: (i) => ok(`${asciiUpper(show(i.tag))}: ${show(i.value)}`)
    }
  ],
  [
    "pick.v1",
    {
      inputs: { record: json, field: text },
      outputs: { value: json },
      cost: 10,
      invoke: (i) => {
        const r = i.record
        if (r === null || typeof r !== "object" || Array.isArray(r)) return failed("pick.v1: record is not an object")
        const f = String(i.field)
        return ok(Object.prototype.hasOwnProperty.call(r, f) ? (r as Record<string, Json>)[f]! : null)
      }
    }
  ],
  [
    "join.v1",
    {
      inputs: { items: { type: "text", many: true }, sep: { type: "text", optional: true } },
      outputs: { value: text },
      cost: 10,
      invoke: (i) => {
        const items = Array.isArray(i.items) ? (i.items as ReadonlyArray<Json>) : []
        return ok(items.map(show).join(typeof i.sep === "string" ? i.sep : "\n"))
      }
    }
  ],
  [
    "assert.v1",
    {
      inputs: { value: json, expect: json },
      outputs: { value: json },
      cost: 10,
      invoke: (i) => {
        const a = Canonical.encodeUnsafe(i.value ?? null)
        const b = Canonical.encodeUnsafe(i.expect ?? null)
        return a === b ? ok(i.value ?? null) : failed(`assert.v1: value ${truncate(a)} != expect ${truncate(b)}`)
      }
    }
  ],
  ["inc.v1", { inputs: { value: json }, outputs: { value: json }, cost: 5, invoke: numeric("inc.v1", (n) => n + 1) }],
  ["double.v1", {
    inputs: { value: json },
    outputs: { value: json },
    cost: 5,
    invoke: numeric("double.v1", (n) => n * 2)
  }],
  [
    "not.v1",
    {
      inputs: { value: json },
      outputs: { value: json },
      cost: 5,
      invoke: (i) => (typeof i.value === "boolean" ? ok(!i.value) : failed("not.v1: expected a boolean"))
    }
  ],
  ["uppercase.v1", {
    inputs: { value: text },
    outputs: { value: text },
    cost: 5,
    invoke: (i) => ok(String(i.value).toUpperCase())
  }],
  [
    "label.v1",
    {
      inputs: { value: text },
      outputs: { value: { type: "choice", labels: ["a", "b"] } },
      cost: 10,
      invoke: (i) => ok(i.value === "a" ? "a" : "b")
    }
  ],
  [
    "push.v1",
    {
      inputs: { list: json, item: json },
      outputs: { value: json },
      cost: 5,
      invoke: (
        i
      ) => (Array.isArray(i.list)
        ? ok([...(i.list as ReadonlyArray<Json>), i.item ?? null])
        : failed("push.v1: list is not a list"))
    }
  ],
  [MemoryQuery.name, MemoryQuery.definition],
  [ContextCompact.name, ContextCompact.definition],
  [ManifestCompile.name, ManifestCompile.make(() => builtins)]
])

/**
 * A registry with the built-ins plus `extra` (an extra fn with a built-in's name replaces it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (extra: Readonly<Record<string, FnDefinition>> = {}): Registry => {
  const fns = new Map(builtins)
  for (const name of Object.keys(extra)) fns.set(name, extra[name]!)
  return { fns }
}

/**
 * The built-in registry.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<FnRegistry> = Layer.succeed(FnRegistry, make())

/**
 * The built-ins plus host fns.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (extra: Readonly<Record<string, FnDefinition>>): Layer.Layer<FnRegistry> =>
  Layer.succeed(FnRegistry, make(extra))
