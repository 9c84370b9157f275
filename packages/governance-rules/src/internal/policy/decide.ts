/**
 * Deciding analyzed segments against a compiled policy: every check of a segment is decided, the
 * strictest outcome wins (engine guards ask; a speculative reading counts only when denied), and
 * the decision keeps every segment and its reasons. Pure and synchronous: the hot path.
 *
 * @internal
 */
import type { CheckDecision, Compiled, Decision, SegmentDecision } from "../../Policy.js"
import type { Citation, LayerName } from "../../Rule.js"
import * as Analyze from "../analyze/index.js"
import * as Evaluate from "../evaluate.js"
import * as Loosen from "./loosen.js"

const ENGINE_PRECEDENCE: Record<LayerName, number> = {
  universal: 0,
  engine: 1,
  level: 2,
  user: 3,
  default: 4,
  sandbox: 5
}

const guardCitation = (guard: Analyze.Guard, segment: Analyze.Segment): Citation => ({
  layer: "engine",
  ruleId: `engine.${guard.id}`,
  ruleIndex: null,
  pattern: null,
  action: "shell",
  effect: "ask",
  resource: guard.detail,
  segment: segment.text,
  note: Analyze.guardReasons[guard.id],
  source: null,
  reason: `ask: ${Analyze.guardReasons[guard.id]} (${JSON.stringify(guard.detail.slice(0, 200))})`
})

// A guard's citation; `unknown-program` is loosened by a rule that names the program and grants
// one of the segment's shell checks (ADR 0218).
const guardDecision = (compiled: Compiled, guard: Analyze.Guard, segment: Analyze.Segment): Citation => {
  const citation = guardCitation(guard, segment)
  if (guard.id !== "unknown-program") return citation
  for (const check of segment.checks) {
    if (check.action !== "shell" || Loosen.programOf(check.resource) !== guard.detail) continue
    const grant = Loosen.explicitGrant(compiled, check.resource)
    if (grant !== null) return Loosen.overriding(grant, check.resource, segment.text, citation)
  }
  return citation
}

const better = (candidate: Citation, current: Citation | null): boolean => {
  if (current === null) return true
  const a = Evaluate.rank(candidate.effect)
  const b = Evaluate.rank(current.effect)
  if (a !== b) return a > b
  // an allow that loosened an ask is what let the call through: it is the one cited
  if (candidate.overrides !== undefined && current.overrides === undefined) return true
  if (candidate.overrides === undefined && current.overrides !== undefined) return false
  return ENGINE_PRECEDENCE[candidate.layer] < ENGINE_PRECEDENCE[current.layer]
}

/** @internal */
export const decideSegments = (compiled: Compiled, segments: ReadonlyArray<Analyze.Segment>): Decision => {
  const decided: Array<SegmentDecision> = []
  let top: Citation | null = null
  const cited: Array<Citation> = []
  for (const segment of segments) {
    if (segment.checks.length === 0 && segment.guards.length === 0) continue
    if (segment.speculative === true) {
      // One possible reading of something unresolved: it only counts when it is denied.
      const denied = speculativeDeny(compiled, segment)
      if (denied === null) continue
      cited.push(denied)
      decided.push({ text: segment.text, canonical: segment.canonical, decision: "deny", citation: denied, checks: [] })
      if (better(denied, top)) top = denied
      continue
    }
    let best: Citation | null = null
    const own: Array<CheckDecision> = []
    for (const check of segment.checks) {
      let citation = Evaluate.decideCheck(compiled.layers, check.action, check.resource, segment.text)
      // an ask on a program a user or remembered rule names explicitly is loosened (ADR 0218)
      if (citation.effect === "ask" && check.action === "shell" && citation.layer !== "user") {
        const grant = Loosen.explicitGrant(compiled, check.resource)
        if (grant !== null) citation = Loosen.overriding(grant, check.resource, segment.text, citation)
      }
      own.push({ action: check.action, resource: check.resource, decision: citation.effect, citation })
      if (better(citation, best)) best = citation
    }
    let checks = own
    if (segment.guards.length > 0) {
      checks = []
      for (const guard of segment.guards) {
        const citation = guardDecision(compiled, guard, segment)
        checks.push({ action: "shell", resource: guard.detail, decision: citation.effect, citation })
        if (better(citation, best)) best = citation
      }
      checks.push(...own)
    }
    for (const check of checks) if (check.decision !== "allow") cited.push(check.citation)
    decided.push({ text: segment.text, canonical: segment.canonical, decision: best!.effect, citation: best!, checks })
    if (better(best!, top)) top = best
  }
  if (top === null) {
    const source = segments[0]?.text ?? ""
    top = Evaluate.defaultCitation("shell", source, source)
    cited.push(top)
    decided.push({ text: source, canonical: "", decision: "ask", citation: top, checks: [] })
  }
  if (top.effect === "allow") cited.push(top)
  const decisive = top
  let reasons: ReadonlyArray<string> | undefined
  // Reasons are rendered on first read (the deciding one first).
  return {
    decision: decisive.effect,
    citation: decisive,
    segments: decided,
    get reasons() {
      return reasons ??= dedupe([decisive.reason, ...cited.map((c) => c.reason)])
    },
    level: compiled.level
  }
}

const dedupe = (items: ReadonlyArray<string>): Array<string> => [...new Set(items)]

const speculativeDeny = (compiled: Compiled, segment: Analyze.Segment): Citation | null => {
  for (const check of segment.checks) {
    const citation = Evaluate.decideCheck(compiled.layers, check.action, check.resource, segment.text)
    if (citation.effect === "deny") return citation
  }
  return null
}
