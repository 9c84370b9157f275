/**
 * Gates that run outside the decision program, so a custom program cannot remove them: the
 * confirm veto, the continuation preconditions, the substantial-prompt route floor and routing
 * only among eligible tiers.
 *
 * @since 0.1.0
 */
import * as Cues from "./Cues.js"
import type { Features, TurnState } from "./Features.js"
import { any, charBefore, isAlnum, paragraphs, tail } from "./internal/text.js"

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
 * The confirm veto over a turn's text: deletion, secrets, production or spending anywhere in the
 * last 16 KiB; deploy, release, tag, migration, removal, payment, access change or a message to
 * people (or any risk or hand-off cue) in the asking paragraph (the last one, and the last one
 * with a question mark).
 *
 * @since 0.1.0
 * @category veto
 */
export const confirmVetoed = (text: string): boolean => {
  const window = tail(text, 16 * 1024)
  if (Cues.VETO_ANYWHERE.some((stem) => stemMatches(window, stem))) return true
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
    if (Cues.VETO_IN_ASK.some((stem) => stemMatches(ask, stem))) return true
    if (any(ask, Cues.RISK) || any(ask, Cues.USER_ACT)) return true
  }
  return false
}

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
 * The veto part alone (risk, hand-off, owner-only, stems), independent of the category.
 *
 * @since 0.1.0
 * @category veto
 */
export const vetoed = (features: Features, text: string): boolean =>
  (features["risk"] ?? 0) !== 0 || (features["user_act"] ?? 0) !== 0 || (features["owner_only"] ?? 0) !== 0 ||
  confirmVetoed(text)

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
