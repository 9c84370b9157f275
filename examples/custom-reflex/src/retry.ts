/**
 * A user-defined reflex with its own input, features, heads, values and labels: should a failed CI
 * job be retried without asking the person?
 *
 * - input: what the CI host knows about the failure (never the log text);
 * - features: `recent` (recent failures of this job, 0…1), `infra` (the runner reported an
 *   infrastructure error), `late` (how far into the job it failed, 0…1);
 * - heads: `retry` scores ordinary jobs, `flaky` scores jobs already marked flaky (the evidence
 *   picks the head, as route's judged head does);
 * - values: `retry` or `report`; a person's "retry"/"report" is the label of the head that decided.
 */
import * as Expr from "@steward/algal-runtime/Expr"
import * as Reflex from "@steward/reflex-core/Reflex"
import * as Either from "effect/Either"

const { add, fold, get, gte, if_, isNum, let_, mul, record, round } = Expr

/** What the CI host knows about a failed job. */
export interface FailedJob {
  readonly recentFailures: number
  readonly infrastructureError: boolean
  readonly failedAtFraction: number
  readonly markedFlaky: boolean
}

/** Σ w·features[f] over the chosen head's terms, from its bias. */
const logit = fold(
  get("h", "terms"),
  get("h", "bias"),
  "acc",
  "t",
  add(get("acc"), mul(get("t", "w"), let_("v", get("features", get("t", "f")), if_(isNum(get("v")), get("v"), 0))))
)

/** The decision organism: pick the head from the evidence, score it, `retry` over its cut. */
export const retryOrganism = Reflex.organism({
  key: "organism:ci-retry-reflex",
  name: "CI retry reflex",
  note: "Retry a failed CI job without asking: scored by the flaky head when the job is marked flaky.",
  budgets: { maxSteps: 4, maxAgentCalls: 0, maxWork: 20000, maxDepth: 1 },
  valueKey: "action"
}).decide("decide", {
  from: { features: "src.features", params: "src.params", evidence: "src.evidence" },
  program: let_(
    "head",
    if_(get("evidence", "flaky"), "flaky", "retry"),
    let_(
      "h",
      get("params", get("head")),
      let_(
        "z",
        logit,
        record({
          action: if_(gte(get("z"), get("h", "cut")), "retry", "report"),
          gate: "score",
          head: get("head"),
          score: round(mul(get("z"), 1000))
        })
      )
    )
  )
})

/** The reflex definition (validated: heads against the prior, the organism against `pure`). */
export const retry = Reflex.make({
  name: "retry",
  description: "Retry a failed CI job without asking",
  heads: ["retry", "flaky"],
  prior: {
    reflex: "retry",
    version: 0,
    parent: null,
    heads: {
      retry: { bias: -1.5, weights: { recent: -2, infra: 3, late: 0.5 }, threshold: 0.6 },
      flaky: { bias: 0, weights: { recent: 1, infra: 2, late: 0.5 }, threshold: 0.6 }
    },
    trained_on: 0,
    evidence: {}
  },
  organism: retryOrganism,
  valueKey: "action",
  values: ["retry", "report"],
  extract: (job: FailedJob) =>
    Either.right({
      _tag: "Extracted",
      extracted: {
        features: {
          recent: Math.min(job.recentFailures, 10) / 10,
          infra: job.infrastructureError ? 1 : 0,
          late: Math.max(0, Math.min(1, job.failedAtFraction))
        },
        evidence: { flaky: job.markedFlaky },
        facts: {}
      }
    }),
  // a gate outside the program: only a "retry" is ever acted on
  gate: (decision) =>
    decision.value === "retry"
      ? { value: decision.value, vetoed: false, actionable: true }
      : { value: decision.value, vetoed: false, actionable: false, reason: "report: the person looks at it" },
  certification: { retry: { floor: 0.8 }, flaky: { floor: 0.8 } },
  explicitLabels: (value, decidedHead) =>
    value === "retry" || value === "report" ? [{ head: decidedHead, label: value === "retry" }] : undefined
})
