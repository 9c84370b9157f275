/**
 * Numeric features of a task (route) and of a finished turn (settle), exactly per the xcb
 * reflexes: normalization, windows, word-boundary cue matching and the shipped cue lists.
 * Features are plain `name → number` records; a missing feature reads as 0 in every dot product.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Cues from "./Cues.js"
import { Name, StrictRecord } from "./internal/names.js"
import { any, countWords, flag, isAlnum, lastChar, lastParagraph, normalize, tail } from "./internal/text.js"

/**
 * A feature vector: at most `maxFeatures` finite numbers keyed by `[a-z0-9_]{1,48}` names.
 *
 * @since 0.1.0
 * @category models
 */
export type Features = Readonly<Record<string, number>>

/**
 * Maximum number of features one decision may carry.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxFeatures = 32

/**
 * Schema of a feature vector (names, bounds, finiteness).
 *
 * @since 0.1.0
 * @category schemas
 */
export const FeaturesSchema = StrictRecord(Name, Schema.Number.pipe(Schema.finite())).pipe(
  Schema.filter((record) => Object.keys(record).length <= maxFeatures || `at most ${maxFeatures} features`)
)

// ---------------------------------------------------------------------------------------------
// route
// ---------------------------------------------------------------------------------------------

/**
 * Keyword class of a task: lowercase ASCII, words split on every non-ASCII-alphanumeric
 * character, a cue matching as a contiguous word sequence.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskClass = "complex" | "routine" | "balanced"

const asciiWords = (text: string): Array<string> =>
  text.replace(/[A-Z]/g, (c) => c.toLowerCase()).split(/[^a-z0-9]+/).filter((w) => w.length > 0)

const containsSequence = (words: ReadonlyArray<string>, cue: ReadonlyArray<string>): boolean => {
  outer: for (let i = 0; i + cue.length <= words.length; i++) {
    for (let j = 0; j < cue.length; j++) if (words[i + j] !== cue[j]) continue outer
    return true
  }
  return false
}

const complexCues = Cues.COMPLEX_TASK.map((cue) => cue.split(" "))
const routineCues = Cues.ROUTINE_TASK.map((cue) => cue.split(" "))

/**
 * `classify_task`: complex if any complex keyword, else routine if any routine keyword, else balanced.
 *
 * @since 0.1.0
 * @category route
 */
export const classifyTask = (task: string): TaskClass => {
  const words = asciiWords(task)
  if (complexCues.some((cue) => containsSequence(words, cue))) return "complex"
  if (routineCues.some((cue) => containsSequence(words, cue))) return "routine"
  return "balanced"
}

/**
 * A substantial prompt (≥ 8192 UTF-8 bytes or ≥ 400 whitespace-separated words) always routes
 * frontier; no program can demote it.
 *
 * @since 0.1.0
 * @category route
 */
export const substantial = (task: string): boolean =>
  Buffer.byteLength(task, "utf8") >= 8192 || countWords(task, 400) >= 400

const verbSet = new Set(Cues.VERBS)

/**
 * Route features with ALGAL literal-space tokenization (split on ASCII space only; punctuation
 * is kept, so "fix," is not a verb).
 *
 * @since 0.1.0
 * @category route
 */
export const routeFeatures = (
  task: string,
  cues?: { readonly complexCue: boolean; readonly routineCue: boolean }
): Record<string, number> => {
  const words = task.split(" ").filter((w) => w.length > 0)
  const first = words.length > 0 ? words[0]!.toLowerCase() : ""
  const lower = task.toLowerCase()
  const spellings = new Set<string>()
  for (const w of words) if (verbSet.has(w.toLowerCase())) spellings.add(w)
  const klass = cues === undefined ? classifyTask(task) : undefined
  return {
    words: Math.min(words.length, 400) / 400,
    imperative: flag(verbSet.has(first)),
    resume: flag(first === "resume" || first === "continue" || Cues.RESUME_CUES.some((cue) => lower.includes(cue))),
    verbs: Math.min(spellings.size, 8) / 8,
    complex_cue: flag(cues === undefined ? klass === "complex" : cues.complexCue),
    routine_cue: flag(cues === undefined ? klass === "routine" : cues.routineCue)
  }
}

/**
 * The optional judge's answers, on the criterion-index scale 0..4 (used verbatim, then divided
 * by 5 as features), `frontier` as a probability 0..1, and the task `kind`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JudgeScore = Schema.Number.pipe(Schema.finite(), Schema.between(0, 4))

/**
 * @since 0.1.0
 * @category schemas
 */
export const JudgeKind = Schema.Literal(
  "feature",
  "bugfix",
  "refactor",
  "research",
  "ops",
  "writing",
  "question",
  "chore",
  "resume",
  "probe"
)

/**
 * @since 0.1.0
 * @category schemas
 */
export const Judge = Schema.Struct({
  difficulty: JudgeScore,
  scope: JudgeScore,
  ambiguity: JudgeScore,
  stakes: JudgeScore,
  frontier: Schema.Number.pipe(Schema.finite(), Schema.between(0, 1)),
  kind: Schema.optional(JudgeKind)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Judge = typeof Judge.Type

/**
 * Add judge evidence: `difficulty|scope|ambiguity|stakes = score / 5`, `frontier` verbatim.
 *
 * @since 0.1.0
 * @category route
 */
export const withJudgeEvidence = (features: Features, judge: Judge): Record<string, number> => ({
  ...features,
  difficulty: judge.difficulty / 5,
  scope: judge.scope / 5,
  ambiguity: judge.ambiguity / 5,
  stakes: judge.stakes / 5,
  frontier: judge.frontier
})

// ---------------------------------------------------------------------------------------------
// settle
// ---------------------------------------------------------------------------------------------

/**
 * How a turn's effects ended.
 *
 * @since 0.1.0
 * @category models
 */
export const Effects = Schema.Literal("settled", "uncertain", "none")

/**
 * How a turn terminated.
 *
 * @since 0.1.0
 * @category models
 */
export const Terminal = Schema.Literal("completed", "token_limit", "turn_limit", "failed", "cancelled")

/**
 * The facts of a turn the features and gates read (never its text).
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnFacts {
  readonly effects: typeof Effects.Type
  readonly terminal: typeof Terminal.Type
}

/**
 * Facts of an ordinary completed turn whose effects settled.
 *
 * @since 0.1.0
 * @category constructors
 */
export const completedTurn: TurnFacts = { effects: "settled", terminal: "completed" }

const progressiveSubjects = new Set(Cues.PROGRESSIVE_SUBJECTS)

const isProgressive = (paragraph: string): boolean => {
  const words = paragraph.split(/[^\p{Alphabetic}\p{N}']+/u).filter((w) => w.length > 0)
  for (let i = 0; i + 1 < words.length; i++) {
    const a = words[i]!
    const b = words[i + 1]!
    const subject = progressiveSubjects.has(a) || (a === "am" && i > 0 && words[i - 1] === "i")
    if (subject && Buffer.byteLength(b, "utf8") > 4 && b.endsWith("ing")) return true
  }
  return false
}

const isReport = (text: string): boolean => {
  for (const line of text.split("\n")) {
    const start = line.trimStart()
    if (start.startsWith("# ") || start.startsWith("## ") || start.startsWith("### ")) return true
    const t = line.trim()
    if (
      Buffer.byteLength(t, "utf8") > 4 && t.startsWith("**") && t.endsWith("**") && !t.slice(2, -2).includes("*")
    ) return true
  }
  return false
}

const countOccurrences = (text: string, needle: string): number => {
  let count = 0
  let from = 0
  for (;;) {
    const i = text.indexOf(needle, from)
    if (i < 0) return count
    count++
    from = i + needle.length
  }
}

const LN_129 = Math.log(129)

/**
 * Settle features of a finished turn. `toolCalls` undefined (a turn reconciled after a restart)
 * means the turn is skipped: `Option.none()`, never scored as 0 tool calls.
 *
 * @since 0.1.0
 * @category settle
 */
export const settleFeatures = (
  text: string,
  facts: TurnFacts,
  toolCalls: number | undefined
): Option.Option<Record<string, number>> =>
  toolCalls === undefined || !Number.isFinite(toolCalls) || toolCalls < 0
    ? Option.none()
    : Option.some(settleFeaturesKnown(text, facts, toolCalls))

/**
 * Settle features when the tool-call count is known.
 *
 * @since 0.1.0
 * @category settle
 */
export const settleFeaturesKnown = (text: string, facts: TurnFacts, toolCalls: number): Record<string, number> => {
  const end = tail(text, 1200)
  const close = tail(text, 300)
  const paragraph = normalize(lastParagraph(text))
  const last = lastChar(text)
  const words = countWords(text, 400)
  const calls = Math.min(Math.floor(toolCalls), 128)
  const owner = any(end, Cues.OWNER_ONLY)
  const awaiting = any(end, Cues.AWAITING)
  const userAct = any(end, Cues.USER_ACT)
  return {
    promise_next: flag(any(end, Cues.PROMISE_NEXT)),
    awaiting: flag(awaiting),
    remaining_work: flag(any(end, Cues.REMAINING_WORK)),
    open_checklist: Math.min(countOccurrences(end, "- [ ]"), 5) / 5,
    ends_colon: flag(last === ":"),
    ends_mid: flag(last !== undefined && (isAlnum(last) || last === ",")),
    done_claim: flag(any(end, Cues.DONE_CLAIM)),
    offer_more: flag(any(end, Cues.OFFER_MORE)),
    blocked: flag(any(end, Cues.BLOCKED)),
    words: words / 400,
    brief: flag(words < 60),
    progressive: flag(isProgressive(paragraph)),
    future_self: flag(any(close, Cues.FUTURE_SELF)),
    question: flag(paragraph.includes("?")),
    ends_question: flag(last === "?"),
    ask: flag(any(close, Cues.ASK)),
    user_act: flag(userAct),
    risk: flag(any(close, Cues.RISK)),
    report: flag(isReport(text)),
    tools: Math.log(1 + calls) / LN_129,
    no_tools: flag(calls === 0),
    effects: flag(facts.effects === "settled"),
    limit: flag(facts.terminal === "token_limit" || facts.terminal === "turn_limit"),
    recommendation: flag(any(end, Cues.RECOMMEND)),
    owner_only: flag(owner),
    self_service: flag(
      !owner && (awaiting || userAct || any(end, Cues.HANDOFF_TO_USER)) && any(end, Cues.SELF_SERVICE)
    )
  }
}

// ---------------------------------------------------------------------------------------------
// idle-text state
// ---------------------------------------------------------------------------------------------

/**
 * The state a turn ended in, as the settle program's evidence reads it.
 *
 * @since 0.1.0
 * @category models
 */
export const TurnState = Schema.Literal(
  "idle",
  "working",
  "needs_answer",
  "needs_action",
  "needs_approval",
  "limited",
  "failed",
  "cancelled",
  "uncertain"
)

/**
 * @since 0.1.0
 * @category models
 */
export type TurnState = typeof TurnState.Type
