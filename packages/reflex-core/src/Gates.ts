/**
 * Gates that run outside the decision program, so a custom program cannot remove them: the
 * confirm veto, the continuation preconditions, the substantial-prompt route floor and routing
 * only among eligible tiers.
 *
 * @since 0.1.0
 */
import * as Cues from "./Cues.js"
import type { Features, TurnState } from "./Features.js"
import { charBefore, firstCue, isAlnum, paragraphs, tail } from "./internal/text.js"

const endings = new Set(Cues.VETO_ENDINGS)

/**
 * Whether `stem` occurs with a non-alphanumeric character before it and either the stem ends in a
 * non-alphanumeric character or the following alphanumeric run is an allowed ending.
 *
 * @since 0.1.0
 * @category veto
 */
export const stemMatches = (text: string, stem: string): boolean => {
  const open = !isAlnum(stem[stem.length - 1])
  let from = 0
  for (;;) {
    const i = text.indexOf(stem, from)
    if (i < 0) return false
    from = i + 1
    if (isAlnum(charBefore(text, i))) continue
    if (open) return true
    let j = i + stem.length
    const start = j
    while (j < text.length) {
      const cp = text.codePointAt(j)!
      const ch = String.fromCodePoint(cp)
      if (!isAlnum(ch)) break
      j += ch.length
    }
    if (endings.has(text.slice(start, j))) return true
  }
}

/**
 * Why the confirm veto holds over a turn's text, in words naming the cue class and the cue (for
 * example "risk: the asking paragraph mentions 'wire'"), or undefined when it does not:
 * deletion, secrets, production or spending anywhere in the last 16 KiB; deploy, release, tag,
 * migration, removal, payment, access change or a message to people (or any risk or hand-off cue)
 * in the asking paragraph (the last one, and the last one with a question mark).
 *
 * @since 0.2.0
 * @category veto
 */
export const confirmVetoReason = (text: string): string | undefined => {
  const window = tail(text, 16 * 1024)
  const anywhere = Cues.VETO_ANYWHERE.find((stem) => stemMatches(window, stem))
  if (anywhere !== undefined) return `veto: the turn mentions '${anywhere.trim()}'`
  const all = paragraphs(window)
  const last = all.length === 0 ? "" : all[all.length - 1]!
  let qp = last
  for (let i = all.length - 1; i >= 0; i--) {
    if (all[i]!.includes("?")) {
      qp = all[i]!
      break
    }
  }
  for (const ask of [last, qp]) {
    const stem = Cues.VETO_IN_ASK.find((s) => stemMatches(ask, s))
    if (stem !== undefined) return `veto: the asking paragraph mentions '${stem.trim()}'`
    const risk = firstCue(ask, Cues.RISK)
    if (risk !== undefined) return `risk: the asking paragraph mentions '${risk}'`
    const handoff = firstCue(ask, Cues.USER_ACT)
    if (handoff !== undefined) return `hand-off: the asking paragraph asks the person to '${handoff}'`
  }
  return undefined
}

/**
 * The confirm veto over a turn's text (see `confirmVetoReason`).
 *
 * @since 0.1.0
 * @category veto
 */
export const confirmVetoed = (text: string): boolean => confirmVetoReason(text) !== undefined

/**
 * Whether a `confirm` decision may be answered: no risk cue, no hand-off, no owner-only step, and
 * no veto stem in the text.
 *
 * @since 0.1.0
 * @category veto
 */
export const confirmable = (category: string, features: Features, text: string): boolean =>
  category === "confirm" && (features["risk"] ?? 0) === 0 && (features["user_act"] ?? 0) === 0 &&
  (features["owner_only"] ?? 0) === 0 && !confirmVetoed(text)

/**
 * Why the veto part holds (risk, hand-off, owner-only, stems), in words naming the cue class and
 * the cue, or undefined when the turn is not vetoed.
 *
 * @since 0.2.0
 * @category veto
 */
export const vetoReason = (features: Features, text: string): string | undefined => {
  if ((features["risk"] ?? 0) !== 0) {
    return `risk: the turn mentions '${firstCue(tail(text, 300), Cues.RISK) ?? "a risk cue"}'`
  }
  if ((features["user_act"] ?? 0) !== 0) {
    return `hand-off: the turn asks the person to '${firstCue(tail(text, 1200), Cues.USER_ACT) ?? "act"}'`
  }
  const owner = ownerOnlyReason(features, text)
  return owner ?? confirmVetoReason(text)
}

/**
 * Why a step is the owner's alone (the `owner_only` feature), or undefined.
 *
 * @since 0.2.0
 * @category veto
 */
export const ownerOnlyReason = (features: Features, text: string): string | undefined =>
  (features["owner_only"] ?? 0) === 0
    ? undefined
    : `owner-only: the turn names a step only the owner can take ('${
      firstCue(tail(text, 1200), Cues.OWNER_ONLY) ?? "owner step"
    }')`

/**
 * The veto part alone (risk, hand-off, owner-only, stems), independent of the category.
 *
 * @since 0.1.0
 * @category veto
 */
export const vetoed = (features: Features, text: string): boolean => vetoReason(features, text) !== undefined

/**
 * Automatic continuation settings.
 *
 * @since 0.1.0
 * @category continuation
 */
export interface AutoContinue {
  readonly enabled: boolean
  /** 1..=16, default 8. */
  readonly maxConsecutive: number
  /** 1000..=3,600,000 ms, default 3,600,000. */
  readonly maxElapsedMs: number
}

/**
 * @since 0.1.0
 * @category continuation
 */
export const defaultAutoContinue: AutoContinue = { enabled: true, maxConsecutive: 8, maxElapsedMs: 3_600_000 }

/**
 * The facts of a finished turn the continuation gates read.
 *
 * @since 0.1.0
 * @category continuation
 */
export interface ContinuationFacts {
  readonly cancelRequested: boolean
  /** Continuations already made for this task. */
  readonly attempts: number
  /** Default 4. */
  readonly maxAttempts?: number
  /** The turn ended idle, or asked only by its text. */
  readonly askable: boolean
  readonly joined: boolean
  readonly effects: "settled" | "uncertain" | "none"
  /** Attention pending that the text did not cause (a denied tool, an approval prompt). */
  readonly pendingAttention: boolean
  readonly failed: boolean
  /** The output equals the previous one. */
  readonly repeated: boolean
  readonly terminal: "completed" | "token_limit" | "turn_limit" | "failed" | "cancelled"
  /** Since the last user input (or task creation). */
  readonly elapsedMs: number
  readonly autoContinue?: AutoContinue
}

/**
 * The outcome of the continuation gates.
 *
 * @since 0.1.0
 * @category continuation
 */
export interface ContinuationGate {
  /** False: no continuation of any kind. */
  readonly open: boolean
  /** A token/turn-limit continuation that needs no reflex. */
  readonly deterministic: boolean
  /** A completed turn a settle head may continue or answer. */
  readonly semantic: boolean
  readonly reason: string
}

/**
 * The continuation preconditions as one pure function over turn facts.
 *
 * @since 0.1.0
 * @category continuation
 */
export const continuation = (facts: ContinuationFacts): ContinuationGate => {
  const closed = (reason: string): ContinuationGate => ({ open: false, deterministic: false, semantic: false, reason })
  const auto = facts.autoContinue ?? defaultAutoContinue
  const maxAttempts = facts.maxAttempts ?? 4
  if (facts.cancelRequested) return closed("cancel requested")
  if (facts.attempts + 1 >= maxAttempts) return closed("attempt limit reached")
  if (!facts.askable) return closed("turn is not idle")
  if (!facts.joined) return closed("turn not joined")
  if (facts.effects === "uncertain") return closed("effects uncertain")
  if (facts.pendingAttention) return closed("attention pending")
  if (facts.failed) return closed("turn failed")
  if (facts.repeated) return closed("repeated output")
  const budget = auto.enabled && facts.attempts < auto.maxConsecutive && facts.elapsedMs < auto.maxElapsedMs
  const deterministic = budget && (facts.terminal === "token_limit" || facts.terminal === "turn_limit")
  const semantic = budget && facts.terminal === "completed"
  return {
    open: deterministic || semantic,
    deterministic,
    semantic,
    reason: deterministic ? "limit reached" : semantic ? "completed turn" : "continuation budget exhausted"
  }
}

/**
 * The route floor: a substantial prompt routes frontier whatever the program said.
 *
 * @since 0.1.0
 * @category route
 */
export const routeFloor = (route: "frontier" | "standard", substantial: boolean): "frontier" | "standard" =>
  substantial ? "frontier" : route

/**
 * Route only among eligible tiers: the decided tier when eligible, else the other eligible one,
 * else none.
 *
 * @since 0.1.0
 * @category route
 */
export const eligibleRoute = (
  route: "frontier" | "standard",
  eligible: ReadonlyArray<"frontier" | "standard">
): "frontier" | "standard" | undefined =>
  eligible.includes(route) ? route : eligible.length > 0 ? eligible[0] : undefined

/**
 * The idle-text state classifier (last 1,200 characters): needs_action, needs_approval,
 * needs_answer (ends with '?' or asks), else idle.
 *
 * @since 0.1.0
 * @category settle
 */
export const classifyIdle = (text: string): TurnState => {
  const end = tail(text, 1200)
  if (Cues.NEEDS_ACTION.some((cue) => end.includes(cue))) return "needs_action"
  if (Cues.NEEDS_APPROVAL.some((cue) => end.includes(cue))) return "needs_approval"
  if (end.trimEnd().endsWith("?") || Cues.NEEDS_ANSWER.some((cue) => end.includes(cue))) return "needs_answer"
  return "idle"
}
