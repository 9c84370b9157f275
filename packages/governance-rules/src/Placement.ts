/**
 * The gate and the boundary as one decision: every shell decision says **where** it runs.
 *
 * - `deny` — nowhere. Denies are never loosened by the boundary.
 * - `ask` — the command needs to leave the boundary (network to a domain that is not allowed,
 *   writes outside the workspace or to a protected path, reading a masked secret, publishing,
 *   destroying work, escalation); granted, it runs on the host.
 * - `allow` — inside the sandbox. What the gate alone would have asked about only because the
 *   analyser cannot resolve it (an unknown program, control flow, an expansion, inline code)
 *   is allowed there, cited `sandbox.contained`; a destination on the sandbox's allowlist is
 *   allowed through the proxy, cited `sandbox.network`.
 *
 * With the boundary `off` (asked for) or `unavailable` (cannot be built here), the gate's
 * decision stands unchanged and runs on the host: today's fail-closed behaviour. ADR 0214.
 *
 * @example
 * ```ts
 * import { Placement } from "@steward/governance-rules"
 *
 * // const decision = yield* engine.decide({ tool: "shell", command: "some-unknown-linter --fix src" })
 * // const placed = Placement.place(decision, { tool: "shell", command: "…" }, { state: "on", allowDomains: [], writable: true })
 * // placed.decision === "allow", placed.where === "sandbox", placed.citation.ruleId === "sandbox.contained"
 * ```
 *
 * @since 0.1.0
 */
import * as Autonomy from "./Autonomy.js"
import type * as Policy from "./Policy.js"
import type { Citation, RuleEffect } from "./Rule.js"
import * as Rule from "./Rule.js"
import { allowsDomain } from "./SandboxProfile.js"

/**
 * Whether a boundary stands under the gate for this decision.
 *
 * @since 0.1.0
 * @category models
 */
export type BoundaryState =
  | {
    readonly state: "on"
    /** The sandbox's network allowlist (reached through the proxy). */
    readonly allowDomains: ReadonlyArray<string>
    /** `false` at `read_only`: the workspace is mounted read-only too. */
    readonly writable: boolean
  }
  | { readonly state: "off" }
  | { readonly state: "unavailable"; readonly reason: string }

/**
 * Where a decided call runs: `sandbox` (inside the boundary), `host` (unconfined: no boundary, or
 * an ask that needs to leave it, once granted), `nowhere` (denied).
 *
 * @since 0.1.0
 * @category models
 */
export type Where = "sandbox" | "host" | "nowhere"

/**
 * A decision with its place.
 *
 * @since 0.1.0
 * @category models
 */
export interface Placed {
  readonly decision: RuleEffect
  readonly where: Where
  /** The deciding citation (`sandbox.contained` / `sandbox.network` when the boundary decided). */
  readonly citation: Citation
  readonly reasons: ReadonlyArray<string>
  /** The gate's asks the boundary contains (empty without a boundary). */
  readonly contained: ReadonlyArray<Citation>
  /** The gate's decision alone, as if no boundary existed. */
  readonly gate: Policy.Decision
  readonly boundary: BoundaryState
}

const CODE_GUARDS_THAT_LEAVE = new Set(["engine.privilege"])

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "")
  } catch {
    return null
  }
}

/**
 * Whether an ask is one the boundary contains: the analyser could not resolve the command (engine
 * guards other than privilege, the `execute` baseline's unreadable-code asks, nothing matched a
 * command at a level that runs commands), or a network destination is on the allowlist.
 * Universal and user asks name an intent and are never contained.
 *
 * @since 0.1.0
 * @category predicates
 */
export const contains = (
  citation: Citation,
  level: Autonomy.Level,
  boundary: Extract<BoundaryState, { state: "on" }>
): "contained" | "network" | null => {
  if (citation.effect !== "ask") return null
  if (citation.action === "fetch" && citation.layer !== "universal" && citation.layer !== "user") {
    const host = hostOf(citation.resource)
    return host !== null && allowsDomain(boundary.allowDomains, host) ? "network" : null
  }
  switch (citation.layer) {
    case "engine":
      return citation.ruleId !== null && CODE_GUARDS_THAT_LEAVE.has(citation.ruleId) ? null : "contained"
    case "level":
      return citation.ruleId !== null && Autonomy.unreadableCodeAsks.has(citation.ruleId) ? "contained" : null
    case "default":
      return citation.action === "shell" && (level === "execute" || level === "autonomous") ? "contained" : null
    default:
      return null
  }
}

const containedCitation = (original: Citation, kind: "contained" | "network"): Citation => {
  const note = kind === "contained"
    ? "the analyser cannot resolve this, so it runs inside the sandbox, where it can do no harm outside the workspace"
    : "the destination is on the sandbox's network allowlist (reached through Steward's proxy)"
  return {
    layer: "sandbox",
    ruleId: `sandbox.${kind}`,
    ruleIndex: null,
    pattern: null,
    action: original.action,
    effect: "allow",
    resource: original.resource,
    segment: original.segment,
    note,
    source: null,
    reason: `allow (in the sandbox): ${note} — instead of ${original.reason}`
  }
}

/**
 * Place a decision. Only shell calls run in the sandbox; other tools keep the gate's decision
 * (file tools are contained by how they open files) and run on the host.
 *
 * @since 0.1.0
 * @category constructors
 */
export const place = (decision: Policy.Decision, call: Policy.ToolCall, boundary: BoundaryState): Placed => {
  const unchanged = (where: Where): Placed => ({
    decision: decision.decision,
    where,
    citation: decision.citation,
    reasons: decision.reasons,
    contained: [],
    gate: decision,
    boundary
  })
  if (decision.decision === "deny") return unchanged("nowhere")
  if (boundary.state !== "on" || call.tool !== "shell") return unchanged("host")

  let top: Citation | null = null
  let firstContained: Citation | null = null
  const contained: Array<Citation> = []
  const consider = (citation: Citation) => {
    const kind = contains(citation, decision.level, boundary)
    if (kind !== null) {
      const replaced = containedCitation(citation, kind)
      contained.push(citation)
      firstContained ??= replaced
      return
    }
    if (top === null || Rule.strictness(citation.effect) > Rule.strictness(top.effect)) top = citation
  }
  for (const segment of decision.segments) {
    if (segment.checks.length === 0) consider(segment.citation)
    for (const check of segment.checks) consider(check.citation)
  }
  const deciding: Citation = top !== null && (top as Citation).effect !== "allow"
    ? top
    : firstContained ?? top ?? decision.citation
  return {
    decision: deciding.effect,
    where: deciding.effect === "allow" ? "sandbox" : "host",
    citation: deciding,
    reasons: deciding === decision.citation
      ? decision.reasons
      : [deciding.reason, ...decision.reasons.filter((r) => r !== deciding.reason)],
    contained,
    gate: decision,
    boundary
  }
}
