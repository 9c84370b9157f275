/**
 * Admission profiles. `pure` is xcb's reflex profile (ALGAL v1 §4.2): no effectful cells and no
 * agent calls, a fixed `features`/`params`/`evidence` → `decision` interface, and small budgets.
 * Admission evaluates every rule it can and reports *all* violations, not just the first.
 *
 * @example
 * ```ts
 * import { Admission } from "@steward/algal-runtime"
 *
 * declare const json: unknown
 * const verdict = Admission.pureSync(json)
 * if (!verdict.ok) console.log(verdict.violations.map((v) => v.rule))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as AlgalError from "./AlgalError.js"
import * as Canonical from "./Canonical.js"
import * as internal from "./internal/admission/managed.js"
import { isObj } from "./internal/issue.js"
import * as Manifest from "./Manifest.js"
import * as Program from "./Program.js"

/**
 * The rules of the `pure` profile, in the order the original checks them.
 *
 * @since 0.1.0
 * @category models
 */
export type Rule =
  | "size"
  | "cell-kinds"
  | "max-agent-calls"
  | "interface-inputs"
  | "interface-decision"
  | "parse"
  | "cell-count"
  | "edge-count"
  | "budget-caps"
  | "compile"
  | "interface-signature"
  | "interface-coverage"
  | "managed-calls"
  | "agent-cells"
  | "budget-insert"
  | "interface-outputs"
  | "input-size"

/**
 * One violated rule.
 *
 * @since 0.1.0
 * @category models
 */
export interface Violation {
  readonly rule: Rule
  readonly message: string
}

/**
 * An admitted reflex program.
 *
 * @since 0.1.0
 * @category models
 */
export interface Admitted {
  readonly manifest: Manifest.Manifest
  readonly program: Program.Program
  /** The manifest digest (program fingerprint). */
  readonly digest: string
}

/**
 * The `pure` profile's limits.
 *
 * @since 0.1.0
 * @category constants
 */
export const pureLimits = {
  maxBytes: 65_536,
  maxCells: 16,
  maxEdges: 64,
  maxSteps: 64,
  maxWork: 100_000,
  maxContextBytes: 65_536,
  maxOutputBytes: 16_384,
  maxDepth: 1
} as const

const pureKinds = new Set(["input", "const", "expr"])
const reflexInputs = ["evidence", "features", "params"]

/**
 * Admit a program under the `pure` profile (synchronous): the admitted program, or every violated rule.
 *
 * @since 0.1.0
 * @category admission
 */
export const pureSync = (
  json: unknown
): { readonly ok: true; readonly admitted: Admitted } | {
  readonly ok: false
  readonly violations: ReadonlyArray<Violation>
} => {
  const violations: Array<Violation> = []
  const add = (rule: Rule, message: string) => void violations.push({ rule, message })
  const raw = isObj(json) ? json : {}
  // 1. size
  const text = Canonical.encode(json)
  if (text._tag === "Left") add("size", `not canonical JSON: ${text.left.message}`)
  else if (Buffer.byteLength(text.right, "utf8") > pureLimits.maxBytes) {
    add("size", `serialized program exceeds ${pureLimits.maxBytes} bytes`)
  }
  // 2. cell kinds
  if (!Array.isArray(raw.cells)) add("cell-kinds", "cells must be an array")
  else {
    const bad = (raw.cells as ReadonlyArray<unknown>)
      .map((c) => (isObj(c) ? c.kind : undefined))
      .filter((k) => typeof k !== "string" || !pureKinds.has(k))
    if (bad.length > 0) {
      add(
        "cell-kinds",
        `only input, const and expr cells are allowed (found ${[...new Set(bad.map(String))].join(", ")})`
      )
    }
  }
  // 3. maxAgentCalls exactly 0
  const budgets = isObj(raw.budgets) ? raw.budgets : undefined
  if (budgets === undefined || budgets.maxAgentCalls !== 0) {
    add("max-agent-calls", "budgets.maxAgentCalls must be exactly 0")
  }
  // 4. interface
  const iface = isObj(raw.interface) ? raw.interface : {}
  const inputs = isObj(iface.inputs) ? Object.keys(iface.inputs).sort() : []
  if (inputs.join(",") !== reflexInputs.join(",")) {
    add(
      "interface-inputs",
      `interface inputs must be exactly evidence, features, params (found ${inputs.join(", ") || "none"})`
    )
  }
  if (!isObj(iface.outputs) || !Object.prototype.hasOwnProperty.call(iface.outputs, "decision")) {
    add("interface-decision", "interface outputs must include decision")
  }
  // 5. parse
  const parsed = Manifest.parseSync(json)
  if (!parsed.ok) {
    add(
      "parse",
      `${parsed.error.code}: ${parsed.error.message}${
        parsed.error.path === undefined ? "" : ` at ${parsed.error.path}`
      }`
    )
    return { ok: false, violations }
  }
  const manifest = parsed.manifest
  // 6. caps
  if (manifest.cells.length > pureLimits.maxCells) add("cell-count", `more than ${pureLimits.maxCells} cells`)
  if (manifest.edges.length > pureLimits.maxEdges) add("edge-count", `more than ${pureLimits.maxEdges} edges`)
  const b = manifest.budgets
  const over = (["maxSteps", "maxWork", "maxContextBytes", "maxOutputBytes", "maxDepth"] as const).filter((k) =>
    b[k] > pureLimits[k]
  )
  if (over.length > 0) add("budget-caps", over.map((k) => `${k} ${b[k]} > ${pureLimits[k]}`).join("; "))
  // 7. compile with no store, tools or transports
  const compiled = Program.compileSync(manifest, { manifests: () => undefined, tools: {} })
  if (!compiled.ok) {
    add("compile", `${compiled.error.code}: ${compiled.error.message}`)
    return { ok: false, violations }
  }
  const program = compiled.program
  // 8. interface signature
  const outs = Object.keys(program.interfaceOutputs)
  if (outs.length !== 1 || outs[0] !== "decision") add("interface-signature", "exactly one interface output, decision")
  const ports = [...Object.entries(program.interfaceInputs), ...Object.entries(program.interfaceOutputs)]
  const badPorts = ports.filter(([, d]) => d.type !== "json" || d.many === true || d.optional === true).map(([n]) => n)
  if (badPorts.length > 0) {
    add("interface-signature", `interface ports must be json, not many, not optional (${badPorts.join(", ")})`)
  }
  // 9. every required input-cell port is supplied by the interface
  const supplied = new Set(Object.values(manifest.interface.inputs).map((ep) => `${ep.cell}.${ep.port}`))
  const unsupplied: Array<string> = []
  for (const c of manifest.cells) {
    if (c.kind !== "input") continue
    for (const [port, decl] of Object.entries(c.outputs)) {
      if (decl.optional !== true && !supplied.has(`${c.id}.${port}`)) unsupplied.push(`${c.id}.${port}`)
    }
  }
  if (unsupplied.length > 0) {
    add("interface-coverage", `input ports not supplied by the interface: ${unsupplied.join(", ")}`)
  }
  if (violations.length > 0) return { ok: false, violations }
  return { ok: true, admitted: { manifest, program, digest: program.digest } }
}

/**
 * Admit under the `pure` profile. A rejection is `MANIFEST_INVALID` ("reflex program rejected")
 * whose `detail` is `{ violations }`, every violated rule.
 *
 * @since 0.1.0
 * @category admission
 */
export const pure: (json: unknown) => Effect.Effect<Admitted, AlgalError.AlgalError> = Effect.fn("Admission.pure")(
  function*(json: unknown) {
    const verdict = pureSync(json)
    if (verdict.ok) return verdict.admitted
    return yield* AlgalError.make(
      "MANIFEST_INVALID",
      `reflex program rejected: ${verdict.violations.map((v) => v.rule).join(", ")}`,
      { detail: { violations: verdict.violations } }
    )
  }
)

/**
 * The managed-controller profile's ceilings (xcb `managed_program.rs`, §4.3). Missing budgets are
 * inserted with these values (`maxAgentCalls` = the managed call count).
 *
 * @since 0.1.0
 * @category constants
 */
export const managedLimits: typeof internal.managedLimits = internal.managedLimits

/**
 * A program admitted under the managed-controller profile.
 *
 * @since 0.1.0
 * @category models
 */
export interface AdmittedManaged extends Admitted {
  /** The raw manifest with missing budgets inserted (what xcb pins). */
  readonly raw: Canonical.Json
  /** xcb's `manifestDigest`: the canonical digest of the raw, budget-filled JSON. */
  readonly rawDigest: string
  /** The number of agent cells (each may make one call). */
  readonly agentCells: number
}

/**
 * The managed-controller admission profile (§4.3) for resumable controllers: manifest ≤ 64 KiB;
 * missing budgets inserted (`maxSteps 64, maxAgentCalls = managedCalls, maxWork 100000,
 * maxContextBytes 32768, maxOutputBytes 16384, maxDepth 0`), larger explicit values rejected;
 * cell kinds input/const/fn/expr plus — when `managedCalls` is 1–8 — `agent` cells with output
 * exactly `{"kind":"text"}`, no route/tools/retry/compact/shadow, `maxTurns` 1, at most
 * `managedCalls` of them; ≤ 32 cells, ≤ 128 edges; interface outputs ⊆ {summary (text, required),
 * prompt (text, pure programs only)}; interface ports are not ref/cap. Every violated rule is listed.
 *
 * @since 0.1.0
 * @category admission
 */
export const managedSync: (
  json: unknown,
  managedCalls?: number
) => { readonly ok: true; readonly admitted: AdmittedManaged } | {
  readonly ok: false
  readonly violations: ReadonlyArray<Violation>
} = internal.managedSync

/**
 * The managed-controller profile as an Effect: a rejection is `MANIFEST_INVALID`
 * ("managed program rejected: <rules>") with `detail.violations`.
 *
 * @since 0.1.0
 * @category admission
 */
export const managed: (json: unknown, managedCalls?: number) => Effect.Effect<AdmittedManaged, AlgalError.AlgalError> =
  Effect.fn(
    "Admission.managed"
  )(function*(json: unknown, managedCalls?: number) {
    const verdict = managedSync(json, managedCalls)
    if (verdict.ok) return verdict.admitted
    return yield* AlgalError.make(
      "MANIFEST_INVALID",
      `managed program rejected: ${[...new Set(verdict.violations.map((v) => v.rule))].join(", ")}`,
      { detail: { violations: verdict.violations } }
    )
  })

/**
 * Check that a receipt is an acceptable managed checkpoint (§5.2): outcome `suspended`, every effect
 * from the managed executor with `retryable:false`, all but the last with string outputs, the last
 * `EFFECT_SUSPENDED`, at most `managedCalls` effects, canonical size ≤ 512 KiB.
 *
 * @since 0.1.0
 * @category admission
 */
export const managedCheckpoint: (
  receipt: { readonly outcome: string; readonly effects: ReadonlyArray<unknown> },
  managedCalls?: number
) => Array<string> = internal.managedCheckpoint
