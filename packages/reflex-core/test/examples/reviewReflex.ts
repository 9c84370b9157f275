/**
 * A user-defined reflex written against the typed APIs — the README's worked example.
 *
 * "review": should a finished diff get a second reviewer? It has its own input (the diff's size
 * and whether it touches authentication), its own features (`size`, `auth`), two heads (`second`
 * for ordinary code, `owner` for code with a code owner), its own decided values and labels
 * (`review` / `ship`), and a decision organism built with `Reflex.organism`: the input cell and
 * the interface are declared for us, and the `decide` program must be typed as a decision.
 */
import * as Expr from "@steward/algal-runtime/Expr"
import * as Either from "effect/Either"
import * as Reflex from "../../src/Reflex.js"

const { add, fold, get, gte, if_, isNum, let_, mul, record, round } = Expr

/** What the host knows about a finished diff (never its text). */
export interface ReviewInput {
  readonly lines: number
  readonly touchesAuth: boolean
  readonly hasOwner: boolean
}

/** Σ w·features[f] over the chosen head's terms, from its bias. */
const logit = fold(
  get("h", "terms"),
  get("h", "bias"),
  "acc",
  "t",
  add(get("acc"), mul(get("t", "w"), let_("v", get("features", get("t", "f")), if_(isNum(get("v")), get("v"), 0))))
)

/** The decision organism: pick the head, score it, decide `review` over its cut. */
export const reviewOrganism = Reflex.organism({
  key: "organism:review-reflex",
  name: "Review reflex",
  note: "A second reviewer for a finished diff: scored by the owner head when the code has an owner.",
  budgets: { maxSteps: 4, maxAgentCalls: 0, maxWork: 20000, maxDepth: 1 },
  valueKey: "verdict"
}).decide("decide", {
  from: { features: "src.features", params: "src.params", evidence: "src.evidence" },
  program: let_(
    "head",
    if_(get("evidence", "owned"), "owner", "second"),
    let_(
      "h",
      get("params", get("head")),
      let_(
        "z",
        logit,
        record({
          verdict: if_(gte(get("z"), get("h", "cut")), "review", "ship"),
          gate: "score",
          head: get("head"),
          score: round(mul(get("z"), 1000))
        })
      )
    )
  )
})

/** The reflex: extractor, heads and prior, organism, labels and certification. */
export const review = Reflex.make({
  name: "review",
  description: "Ask for a second reviewer on a finished diff",
  heads: ["second", "owner"],
  prior: {
    reflex: "review",
    version: 0,
    parent: null,
    heads: {
      second: { bias: -2, weights: { size: 2, auth: 3 }, threshold: 0.5 },
      owner: { bias: -1, weights: { size: 1, auth: 2 }, threshold: 0.5 }
    },
    trained_on: 0,
    evidence: {}
  },
  organism: reviewOrganism,
  valueKey: "verdict",
  values: ["review", "ship"],
  extract: (input: ReviewInput) =>
    Either.right({
      _tag: "Extracted",
      extracted: {
        features: { size: Math.min(input.lines, 1000) / 1000, auth: input.touchesAuth ? 1 : 0 },
        evidence: { owned: input.hasOwner },
        facts: {}
      }
    }),
  gate: (decision) =>
    decision.value === "review"
      ? { value: decision.value, vetoed: false, actionable: true }
      : { value: decision.value, vetoed: false, actionable: false, reason: "ship: nothing to ask for" },
  certification: { second: { floor: 0.8 }, owner: { floor: 0.9 } },
  explicitLabels: (value, decidedHead) =>
    value === "review" || value === "ship" ? [{ head: decidedHead, label: value === "review" }] : undefined
})
