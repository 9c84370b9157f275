/**
 * A pure TypeScript reference of the shipped organisms' arithmetic, used only to cross-check the
 * ALGAL runs in tests. The product always runs the organisms through @steward/algal-runtime.
 */
type Terms = { bias: number; cut: number; terms: Array<{ f: string; w: number }> }

const z = (h: Terms, features: Record<string, number>) =>
  h.terms.reduce((acc, t) => acc + t.w * (typeof features[t.f] === "number" ? features[t.f]! : 0), h.bias)

export const routeReference = (
  features: Record<string, number>,
  params: Record<string, Terms>,
  evidence: { substantial: boolean; judged: boolean; kind: string | null }
) => {
  const head = evidence.judged ? "judged" : "plain"
  const h = params[head]!
  const score = z(h, features)
  const rounded = Math.round(score * 1000)
  if (evidence.substantial) return { route: "frontier", gate: "substantial", head, score: rounded }
  if (evidence.judged && (evidence.kind === "question" || evidence.kind === "probe")) {
    return { route: "standard", gate: "kind", head, score: rounded }
  }
  return { route: score >= h.cut ? "frontier" : "standard", gate: "score", head, score: rounded }
}

const stateMap: Record<string, string> = {
  working: "uncertain",
  needs_answer: "question",
  needs_action: "needs_action",
  needs_approval: "needs_approval",
  limited: "limited",
  failed: "failed",
  cancelled: "cancelled",
  uncertain: "uncertain"
}

export const settleReference = (
  features: Record<string, number>,
  params: Record<string, Terms>,
  evidence: { state: string; limit: number; blocked: number; done_claim: number }
) => {
  const u = z(params["stopped_short"]!, features)
  const c = z(params["confirm"]!, features)
  const ur = Math.round(u * 1000)
  if (evidence.state !== "idle") {
    return { category: stateMap[evidence.state], gate: "state", head: "stopped_short", score: ur }
  }
  if (evidence.limit >= 1) return { category: "interrupted", gate: "limit", head: "stopped_short", score: ur }
  if (evidence.blocked >= 1 && evidence.done_claim < 1) {
    return { category: "blocked", gate: "blocked", head: "stopped_short", score: ur }
  }
  if (c >= params["confirm"]!.cut) {
    return { category: "confirm", gate: "head", head: "confirm", score: Math.round(c * 1000) }
  }
  return {
    category: u >= params["stopped_short"]!.cut ? "stopped_short" : "done",
    gate: "head",
    head: "stopped_short",
    score: ur
  }
}
