/**
 * The `algal.organism.v1` manifest contract (ALGAL v1 §1): validation against the closed key sets
 * of all 17 cell kinds, normalization (§3.1) and the manifest digest (the "program fingerprint").
 *
 * A `Manifest` is the *normalized* manifest as plain JSON: budgets completed with defaults, port
 * shorthands expanded, empty `inputs` removed, agent-family `view`s defaulted, `edges` and both
 * `interface` sides present. Its digest is `sha256` over its canonical JSON.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Manifest } from "@steward/algal-runtime"
 *
 * const program = Effect.gen(function*() {
 *   const manifest = yield* Manifest.parse({
 *     contract: "algal.organism.v1",
 *     key: "organism:hello",
 *     name: "Hello",
 *     cells: [{ id: "in", kind: "input", outputs: { v: "json" } }]
 *   })
 *   return Manifest.digest(manifest) // "sha256:…"
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as AlgalError from "./AlgalError.js"
import * as Canonical from "./Canonical.js"
import { Issue } from "./internal/issue.js"
import type { Cell } from "./internal/manifest/cells.js"
import { nonIntegerLiteral, readEntries } from "./internal/manifest/literals.js"
import { firstNonIntegerLexeme } from "./internal/numberLexemes.js"
import * as internal from "./internal/parse.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Json = Canonical.Json

/**
 * The 17 cell kinds.
 *
 * @since 0.1.0
 * @category models
 */
export type CellKind =
  | "input"
  | "const"
  | "fn"
  | "expr"
  | "tool"
  | "agent"
  | "classifier"
  | "gate"
  | "decide"
  | "recall"
  | "organism"
  | "repeat"
  | "each"
  | "store"
  | "load"
  | "slot"
  | "spawn"

/**
 * All cell kinds, in the order of the spec's table.
 *
 * @since 0.1.0
 * @category constants
 */
export const cellKinds: ReadonlyArray<CellKind> = internal.cellKinds

/**
 * Kinds whose activation is an effect (a model call or host tool); they need an executor.
 *
 * @since 0.1.0
 * @category constants
 */
export const effectKinds: ReadonlySet<CellKind> = new Set(["tool", "agent", "classifier", "gate", "decide", "recall"])

/**
 * Kinds that run another organism.
 *
 * @since 0.1.0
 * @category constants
 */
export const compositionKinds: ReadonlySet<CellKind> = new Set(["organism", "repeat", "each", "spawn"])

/**
 * @since 0.1.0
 * @category models
 */
export type PortType = "text" | "json" | "choice" | "ref" | "cap"

/**
 * A JSON-port schema (v1, v2 or v3 keyword sets).
 *
 * @since 0.1.0
 * @category models
 */
export type JsonSchema = { readonly [key: string]: Json }

/**
 * A normalized port declaration.
 *
 * @since 0.1.0
 * @category models
 */
export interface PortDecl {
  readonly type: PortType
  readonly optional?: boolean
  readonly many?: boolean
  readonly labels?: ReadonlyArray<string>
  readonly schema?: JsonSchema
  readonly schemaVersion?: 1 | 2 | 3
  readonly capability?: string
}

/**
 * A `const` cell output: a port declaration with its value.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConstPortDecl extends PortDecl {
  readonly value: Json
}

/**
 * An `algal.expr.v1` envelope.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExprEnvelope {
  readonly contract: "algal.expr.v1"
  readonly program: Json
}

/**
 * The output contract of expr and agent-family cells.
 *
 * @since 0.1.0
 * @category models
 */
export type OutputContract =
  | { readonly kind: "text" }
  | { readonly kind: "json"; readonly schema: JsonSchema; readonly schemaVersion?: 1 | 2 | 3 }
  | { readonly kind: "choice"; readonly labels: ReadonlyArray<string>; readonly onMiss?: string }

export type * from "./internal/manifest/cells.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Endpoint {
  readonly cell: string
  readonly port: string
}

/**
 * @since 0.1.0
 * @category models
 */
export type Guard =
  | { readonly equals: string }
  | { readonly field: string; readonly equals: string }
  | { readonly expr: ExprEnvelope }

/**
 * @since 0.1.0
 * @category models
 */
export interface Edge {
  readonly from: Endpoint
  readonly to: Endpoint
  readonly guard?: Guard
  readonly on?: "fail"
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Budgets {
  readonly maxSteps: number
  readonly maxAgentCalls: number
  readonly maxWork: number
  readonly maxContextBytes: number
  readonly maxOutputBytes: number
  readonly maxDepth: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Interface {
  readonly inputs: Readonly<Record<string, Endpoint>>
  readonly outputs: Readonly<Record<string, Endpoint>>
}

/**
 * A validated, normalized `algal.organism.v1` manifest (plain JSON).
 *
 * @since 0.1.0
 * @category models
 */
export interface Manifest {
  readonly contract: "algal.organism.v1"
  readonly key: string
  readonly name: string
  readonly note?: string
  readonly budgets: Budgets
  readonly interface: Interface
  readonly cells: ReadonlyArray<Cell>
  readonly edges: ReadonlyArray<Edge>
}

/**
 * Budget defaults applied by normalization.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBudgets: Budgets = internal.defaultBudgets

/**
 * Maximum canonical size of a manifest, before and after normalization.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxBytes = internal.maxManifestBytes

/** @internal */
export const toError = (issue: Issue): AlgalError.AlgalError =>
  AlgalError.make(issue.code, issue.message, {
    ...(issue.path === undefined ? {} : { path: issue.path }),
    ...(issue.detail === undefined ? {} : { detail: issue.detail })
  })

const digests = new WeakMap<Manifest, string>()

/**
 * Validate and normalize synchronously (the pure core of `parse`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const parseSync = (json: unknown): { readonly ok: true; readonly manifest: Manifest } | {
  readonly ok: false
  readonly error: AlgalError.AlgalError
} => {
  try {
    return { ok: true, manifest: internal.normalize(json) }
  } catch (error) {
    if (error instanceof Issue) return { ok: false, error: toError(error) }
    if (error instanceof RangeError) {
      return { ok: false, error: AlgalError.invalid("manifest is too deeply nested", "$") }
    }
    // Only reachable for exotic non-JSON inputs whose reading throws (a Proxy with a throwing trap).
    return { ok: false, error: AlgalError.invalid(`manifest could not be read: ${String(error)}`, "$") }
  }
}

/**
 * Validate a manifest against the `algal.organism.v1` contract and normalize it. Fails with
 * `PARSE_FAILED` (or `BUDGET_EXHAUSTED` for size bounds, `MANIFEST_INVALID` for duplicate ids)
 * naming the offending path.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse: (json: unknown) => Effect.Effect<Manifest, AlgalError.AlgalError> = Effect.fn("Manifest.parse")(
  function*(json: unknown) {
    const result = parseSync(json)
    if (!result.ok) return yield* result.error
    return result.manifest
  }
)

/**
 * Parse JSON text (rejecting non-finite numbers, lone surrogates and over-deep nesting) and then
 * the manifest. The text is also checked lexically: every integer field of the contract (the
 * `budgets`, per-cell `budget`, `retry.attempts`, `compact`, `k`, `rerank.take`, `maxRounds`,
 * `maxItems` and port `schemaVersion` fields) must be written as an integer literal — `6.0`, `6e0`
 * and `-0` fail with `PARSE_FAILED` naming the path (e.g. `$.budgets.maxSteps`), as in the original,
 * whose JSON reader tells them apart from `6` (ADR 0394). Other numbers may be written freely.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Manifest } from "@steward/algal-runtime"
 *
 * const text = `{"contract":"algal.organism.v1","key":"organism:a","name":"A","budgets":{"maxSteps":6.0},"cells":[]}`
 * Manifest.parseText(text).pipe(Effect.flip) // AlgalError PARSE_FAILED at $.budgets.maxSteps
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const parseText = Effect.fn("Manifest.parseText")(function*(text: string) {
  const json = Canonical.parse(text)
  if (json._tag === "Left") return yield* AlgalError.invalid(`invalid JSON: ${json.left.message}`, "$")
  const manifest = yield* parse(json.right)
  const found = firstNonIntegerLexeme(text)
  if (found !== undefined) return yield* nonIntegerLiteral(found)
  return manifest
})

/**
 * What an `algal.bundle.v1` text holds: the manifests that parse, and each entry that does not,
 * by its key in `manifests`, with the error (its path inside the bundle).
 *
 * @since 0.1.0
 * @category models
 */
export interface BundleContents {
  readonly manifests: ReadonlyArray<Manifest>
  readonly rejected: ReadonlyArray<{ readonly key: string; readonly error: AlgalError.AlgalError }>
}

/**
 * Read an `algal.bundle.v1` text (`{"contract":"algal.bundle.v1","manifests":{<digest>: manifest}}`)
 * with each manifest read as written, as `parseText` reads one: an entry with an integer field
 * written `6.0` is rejected like a manifest file with it (ADR 0394). Fails only when the text is
 * not JSON or not a bundle; entries that do not parse are listed in `rejected`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parseBundleText = Effect.fn("Manifest.parseBundleText")(function*(text: string) {
  const json = Canonical.parse(text)
  if (json._tag === "Left") return yield* AlgalError.invalid(`invalid JSON: ${json.left.message}`, "$")
  const bundle = json.right
  if (typeof bundle !== "object" || bundle === null || Array.isArray(bundle)) {
    return yield* AlgalError.invalid("a bundle must be an object", "$")
  }
  if ((bundle as Record<string, Json>).contract !== "algal.bundle.v1") {
    return yield* AlgalError.invalid("expected contract algal.bundle.v1", "$.contract")
  }
  const entries = (bundle as Record<string, Json>).manifests
  if (typeof entries !== "object" || entries === null || Array.isArray(entries)) {
    return yield* AlgalError.invalid("bundle manifests must be an object of manifests by digest", "$.manifests")
  }
  const contents: BundleContents = readEntries(text, entries as { readonly [key: string]: Json }, parseSync)
  return contents
})

/**
 * The normalized manifest as plain JSON.
 *
 * @since 0.1.0
 * @category accessors
 */
export const normalized = (manifest: Manifest): Json => manifest as unknown as Json

/**
 * Canonical JSON text of the normalized manifest.
 *
 * @since 0.1.0
 * @category accessors
 */
export const canonical = (manifest: Manifest): string => Canonical.encodeUnsafe(manifest)

/**
 * The manifest digest (`sha256:` over the canonical normalized manifest), memoized per manifest.
 *
 * @since 0.1.0
 * @category accessors
 */
export const digest = (manifest: Manifest): string => {
  let d = digests.get(manifest)
  if (d === undefined) {
    const digest = Canonical.digest(manifest)
    if (Either.isLeft(digest)) throw new Error(`canonical: ${digest.left.message}`)
    d = digest.right
    digests.set(manifest, d)
  }
  return d
}

/**
 * Find a cell by id.
 *
 * @since 0.1.0
 * @category accessors
 */
export const cell = (manifest: Manifest, id: string): Cell | undefined => manifest.cells.find((c) => c.id === id)
