/**
 * Labels from what the person does next: reply categories with the label table and weights, tier
 * requests that label the previous route, and the replacement rule (explicit labels always win).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Cues from "./Cues.js"
import { any, isAlnum, normalize } from "./internal/text.js"

/**
 * Reply categories.
 *
 * @since 0.1.0
 * @category models
 */
export const ReplyCategory = Schema.Literal(
  "continue",
  "deliver",
  "approve",
  "handoff_done",
  "status",
  "correction",
  "quota_resume",
  "other"
)

/**
 * @since 0.1.0
 * @category models
 */
export type ReplyCategory = typeof ReplyCategory.Type

/**
 * One label for one head of one observation.
 *
 * @since 0.1.0
 * @category models
 */
export interface HeadLabel {
  readonly head: string
  readonly label: boolean
  readonly weight: number
  readonly source: string
}

const startsWithPhrase = (head: string, phrase: string): boolean => {
  if (!head.startsWith(phrase)) return false
  const next = head[phrase.length]
  return next === undefined || (!isAlnum(next) && next !== "'")
}

const leadingJunk = /^[^\p{Alphabetic}\p{N}]+/u

/**
 * Categorize a reply by its opening words (quota anywhere in the first 300 characters; deliver
 * anywhere, word-bounded; self-serve replies count as continue).
 *
 * @since 0.1.0
 * @category replies
 */
export const categorizeReply = (text: string): ReplyCategory => {
  const lower = Array.from(normalize(text.trim())).slice(0, 300).join("")
  if (any(lower, Cues.QUOTA_REPLIES)) return "quota_resume"
  let head = lower.replace(leadingJunk, "")
  for (let changed = true; changed;) {
    changed = false
    for (const prefix of Cues.REPLY_PREFIXES) {
      if (head.startsWith(prefix)) {
        head = head.slice(prefix.length).trimStart()
        changed = true
      }
    }
  }
  const starts = (list: ReadonlyArray<string>) => list.some((phrase) => startsWithPhrase(head, phrase))
  if (starts(Cues.CONTINUE_REPLIES) || head.replace(/[.!]+$/, "") === "go" || any(lower, Cues.SELF_SERVE_REPLIES)) {
    return "continue"
  }
  if (starts(Cues.APPROVE_REPLIES)) return "approve"
  if (starts(Cues.HANDOFF_REPLIES)) return "handoff_done"
  if (any(lower, Cues.DELIVER_REPLIES)) return "deliver"
  if (starts(Cues.STATUS_REPLIES)) return "status"
  if (starts(Cues.CORRECTION_REPLIES)) return "correction"
  return "other"
}

/**
 * The settle labels a reply category implies: continue/deliver ⇒ stopped_short yes (1.0), confirm no
 * (0.5); approve ⇒ confirm yes (1.0), stopped_short no (0.5); handoff_done/correction/other (e.g.
 * starting another task) ⇒ both no at half weight; status/quota_resume ⇒ nothing.
 *
 * @since 0.1.0
 * @category replies
 */
export const settleLabels = (category: ReplyCategory): ReadonlyArray<HeadLabel> => {
  const source = `user_${category}`
  switch (category) {
    case "continue":
    case "deliver":
      return [
        { head: "stopped_short", label: true, weight: 1, source },
        { head: "confirm", label: false, weight: 0.5, source }
      ]
    case "approve":
      return [
        { head: "confirm", label: true, weight: 1, source },
        { head: "stopped_short", label: false, weight: 0.5, source }
      ]
    case "handoff_done":
    case "correction":
    case "other":
      return [
        { head: "stopped_short", label: false, weight: 0.5, source },
        { head: "confirm", label: false, weight: 0.5, source }
      ]
    case "status":
    case "quota_resume":
      return []
  }
}

/**
 * A tier request in a reply ("use opus", "cheaper model"): the route label it implies, if any.
 *
 * @since 0.1.0
 * @category replies
 */
export const escalation = (text: string): "frontier" | "standard" | undefined => {
  const lower = text.toLowerCase()
  if (Cues.ESCALATION_STRONGER.some((cue) => lower.includes(cue))) return "frontier"
  if (Cues.ESCALATION_LIGHTER.some((cue) => lower.includes(cue))) return "standard"
  return undefined
}

/**
 * Whole-message continue (optional "please " prefix / " please" suffix, trailing `.`/`!` stripped).
 *
 * @since 0.1.0
 * @category replies
 */
export const continueLike = (text: string): boolean => {
  let t = normalize(text.trim()).replace(/[.!]+$/, "").trim()
  if (t.startsWith("please ")) t = t.slice(7).trim()
  if (t.endsWith(" please")) t = t.slice(0, -7).trim()
  return Cues.CONTINUE_LIKE.includes(t)
}

/**
 * The replacement rule: an explicit label is replaced only by another explicit label (explicit
 * labels always win, ADR 0402); otherwise a stored label is replaced by a heavier one, or by an
 * equally heavy one with a different value.
 *
 * @since 0.1.0
 * @category labels
 */
export const replaces = (
  stored: { readonly label: boolean; readonly weight: number; readonly source?: string },
  incoming: { readonly label: boolean; readonly weight: number; readonly source?: string }
): boolean => {
  const explicitStored = stored.source === EXPLICIT
  const explicitIncoming = incoming.source === EXPLICIT
  if (explicitStored && !explicitIncoming) return false
  if (explicitIncoming && !explicitStored) return true
  return incoming.weight > stored.weight || (incoming.weight === stored.weight && incoming.label !== stored.label)
}

/**
 * Source of explicit labels.
 *
 * @since 0.1.0
 * @category labels
 */
export const EXPLICIT = "explicit"

/**
 * Source of tier-request labels.
 *
 * @since 0.1.0
 * @category labels
 */
export const MODEL_REQUEST = "user_model_request"
