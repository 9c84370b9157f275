/**
 * The managed-controller admission profile (xcb `managed_program.rs`, ALGAL spec §4.3 and §5.2):
 * the checks behind `Admission.managedSync` and `Admission.managedCheckpoint`.
 *
 * @internal
 */
import type { AdmittedManaged, Rule, Violation } from "../../Admission.js"
import * as Canonical from "../../Canonical.js"
import * as Manifest from "../../Manifest.js"
import * as Program from "../../Program.js"
import { isObj } from "../issue.js"

/** @internal */
export const managedLimits = {
  maxBytes: 65_536,
  maxInputBytes: 32_768,
  maxCells: 32,
  maxEdges: 128,
  maxManagedCalls: 8,
  maxSteps: 64,
  maxWork: 100_000,
  maxContextBytes: 32_768,
  maxOutputBytes: 16_384,
  maxDepth: 0
} as const

const managedKinds = new Set(["input", "const", "fn", "expr"])
const forbiddenAgentKeys = ["route", "tools", "retry", "compact", "shadow"] as const

/** @internal */
export const managedSync = (
  json: unknown,
  managedCalls: number = managedLimits.maxManagedCalls
): { readonly ok: true; readonly admitted: AdmittedManaged } | {
  readonly ok: false
  readonly violations: ReadonlyArray<Violation>
} => {
  const violations: Array<Violation> = []
  const add = (rule: Rule, message: string) => void violations.push({ rule, message })
  if (!Number.isInteger(managedCalls) || managedCalls < 0 || managedCalls > managedLimits.maxManagedCalls) {
    add("managed-calls", `managed calls must be an integer 0..${managedLimits.maxManagedCalls}`)
    return { ok: false, violations }
  }
  if (!isObj(json)) {
    add("parse", "manifest must be an object")
    return { ok: false, violations }
  }
  const text = Canonical.encode(json)
  if (text._tag === "Left") add("size", `not canonical JSON: ${text.left.message}`)
  else if (Buffer.byteLength(text.right, "utf8") > managedLimits.maxBytes) {
    add("size", `manifest exceeds ${managedLimits.maxBytes} bytes`)
  }
  // budgets: insert missing ceilings, reject larger explicit values
  const ceilings: Record<string, number> = {
    maxSteps: managedLimits.maxSteps,
    maxAgentCalls: managedCalls,
    maxWork: managedLimits.maxWork,
    maxContextBytes: managedLimits.maxContextBytes,
    maxOutputBytes: managedLimits.maxOutputBytes,
    maxDepth: managedLimits.maxDepth
  }
  const given = json.budgets === undefined ? {} : json.budgets
  const budgets: Record<string, Canonical.Json> = {}
  if (!isObj(given)) add("budget-insert", "budgets must be an object")
  else {
    for (const [key, ceiling] of Object.entries(ceilings)) {
      const value = given[key]
      if (value === undefined) budgets[key] = ceiling
      else if (typeof value !== "number" || !Number.isInteger(value)) {
        add("budget-insert", `budgets.${key} must be an integer`)
      } else if (value > ceiling) add("budget-caps", `budgets.${key} ${value} > ${ceiling}`)
      else budgets[key] = value
    }
  }
  const raw: Record<string, unknown> = { ...json, budgets: { ...(isObj(given) ? given : {}), ...budgets } }
  // cell kinds and agent cells
  const cells = Array.isArray(json.cells) ? (json.cells as ReadonlyArray<unknown>) : []
  if (!Array.isArray(json.cells)) add("cell-kinds", "cells must be an array")
  let agents = 0
  cells.forEach((c, i) => {
    const cell = isObj(c) ? c : {}
    const kind = cell.kind
    if (kind === "agent") {
      agents += 1
      if (managedCalls === 0) add("agent-cells", `cells[${i}]: agent cells need managed calls`)
      const output = cell.output
      if (!isObj(output) || output.kind !== "text" || Object.keys(output).length !== 1) {
        add("agent-cells", `cells[${i}]: agent output must be exactly {"kind":"text"}`)
      }
      const present = forbiddenAgentKeys.filter((k) => cell[k] !== undefined)
      if (present.length > 0) add("agent-cells", `cells[${i}]: agent cells may not declare ${present.join(", ")}`)
      const maxTurns = isObj(cell.budget) ? cell.budget.maxTurns : undefined
      if (maxTurns !== undefined && maxTurns !== 1) add("agent-cells", `cells[${i}]: maxTurns must be 1`)
    } else if (typeof kind !== "string" || !managedKinds.has(kind)) {
      add("cell-kinds", `cells[${i}]: kind ${String(kind)} is not allowed (input, const, fn, expr, agent)`)
    }
  })
  if (agents > managedCalls) add("managed-calls", `${agents} agent cells exceed ${managedCalls} managed calls`)
  if (cells.length > managedLimits.maxCells) add("cell-count", `more than ${managedLimits.maxCells} cells`)
  if (Array.isArray(json.edges) && json.edges.length > managedLimits.maxEdges) {
    add("edge-count", `more than ${managedLimits.maxEdges} edges`)
  }
  const parsed = Manifest.parseSync(raw)
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
  const compiled = Program.compileSync(manifest, { manifests: () => undefined, tools: {} })
  if (!compiled.ok) {
    add("compile", `${compiled.error.code}: ${compiled.error.message}`)
    return { ok: false, violations }
  }
  const program = compiled.program
  // interface
  const outs = program.interfaceOutputs
  for (const [name, decl] of Object.entries(outs)) {
    if (name !== "summary" && name !== "prompt") {
      add("interface-outputs", `interface output ${name} is not summary or prompt`)
    } else if (decl.type !== "text") add("interface-outputs", `interface output ${name} must be text`)
  }
  if (!Object.prototype.hasOwnProperty.call(outs, "summary")) {
    add("interface-outputs", "interface output summary is required")
  }
  if (Object.prototype.hasOwnProperty.call(outs, "prompt") && agents > 0) {
    add("interface-outputs", "prompt is an output of pure programs only")
  }
  const badPorts = [...Object.entries(program.interfaceInputs), ...Object.entries(outs)]
    .filter(([, d]) => d.type === "ref" || d.type === "cap")
    .map(([n]) => n)
  if (badPorts.length > 0) add("interface-signature", `interface ports may not be ref or cap (${badPorts.join(", ")})`)
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
  const rawJson = raw as Canonical.Json
  return {
    ok: true,
    admitted: {
      manifest,
      program,
      digest: program.digest,
      raw: rawJson,
      rawDigest: Canonical.digestText(Canonical.encodeUnsafe(rawJson)),
      agentCells: agents
    }
  }
}

/** @internal */
export const managedCheckpoint = (receipt: {
  readonly outcome: string
  readonly effects: ReadonlyArray<unknown>
}, managedCalls: number = managedLimits.maxManagedCalls): Array<string> => {
  const problems: Array<string> = []
  if (receipt.outcome !== "suspended") problems.push(`outcome is ${receipt.outcome}, not suspended`)
  const size = Canonical.encode(receipt)
  if (size._tag === "Left" || Buffer.byteLength(size.right, "utf8") > 524_288) {
    problems.push("checkpoint exceeds 512 KiB")
  }
  if (receipt.effects.length > managedCalls) {
    problems.push(`${receipt.effects.length} effects exceed ${managedCalls} managed calls`)
  }
  receipt.effects.forEach((e, i) => {
    const effect = isObj(e) ? e : {}
    if (effect.executor !== "xcb-managed-agent-v1") problems.push(`effects[${i}] is not from the managed executor`)
    if (effect.retryable !== false) problems.push(`effects[${i}] is not retryable:false`)
    const last = i === receipt.effects.length - 1
    if (last) {
      if (!isObj(effect.error) || effect.error.code !== "EFFECT_SUSPENDED") {
        problems.push(`effects[${i}] (the last) is not EFFECT_SUSPENDED`)
      }
    } else if (typeof effect.output !== "string") problems.push(`effects[${i}] has no text output`)
  })
  return problems
}
