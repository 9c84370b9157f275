/**
 * Two custom settle organisms written with the typed authoring API (`Reflex.organism`).
 *
 * - `cautiousSettle`: an admissible program. It never answers "confirm" (the shipped program can
 *   say the person only needs to confirm); an idle turn is `stopped_short` or `done` by the
 *   `stopped_short` head alone, and any other turn state is left `uncertain` for the person.
 * - `askingSettle`: the same decision, but it first asks a model (an `agent` cell). A reflex
 *   program must be pure, so `steward reflex check` refuses it with every rule it breaks, and a
 *   state directory that installs it keeps running the shipped program.
 */
import * as Expr from "@steward/algal-runtime/Expr"
import * as Reflex from "@steward/reflex-core/Reflex"

const { add, fold, get, gte, if_, isNum, let_, mul, neq, record, round } = Expr

/** Σ w·features[f] over the `stopped_short` head's terms, from its bias (a non-number counts 0). */
const stoppedShortLogit = fold(
  get("u", "terms"),
  get("u", "bias"),
  "acc",
  "t",
  add(get("acc"), mul(get("t", "w"), let_("v", get("features", get("t", "f")), if_(isNum(get("v")), get("v"), 0))))
)

/** The decision: typed as `{ category, gate, head, score }` — leave a field out and it does not compile. */
const decide = let_(
  "u",
  get("params", "stopped_short"),
  if_(
    neq(get("evidence", "state"), "idle"),
    record({ category: "uncertain", gate: "state", head: "stopped_short", score: 0 }),
    let_(
      "z",
      stoppedShortLogit,
      record({
        category: if_(gte(get("z"), get("u", "cut")), "stopped_short", "done"),
        gate: "head",
        head: "stopped_short",
        score: round(mul(get("z"), 1000))
      })
    )
  )
)

const from = { features: "src.features", params: "src.params", evidence: "src.evidence" } as const

/** The admissible custom settle program. */
export const cautiousSettle = Reflex.organism({
  key: "organism:cautious-settle",
  name: "Cautious settle",
  note:
    "Never answers confirm: an idle turn is stopped short or done by the stopped_short head; other states stay uncertain.",
  budgets: { maxSteps: 4, maxAgentCalls: 0, maxWork: 60000, maxDepth: 1 },
  valueKey: "category"
}).decide("decide", { from, program: decide })

/** The same decision after asking a model first: not a pure program, so refused. */
export const askingSettle = Reflex.organism({
  key: "organism:asking-settle",
  name: "Asking settle",
  note: "Asks a model whether the turn is finished before deciding (not allowed in a reflex).",
  budgets: { maxSteps: 4, maxAgentCalls: 1, maxWork: 60000, maxDepth: 1 },
  valueKey: "category"
})
  .cells((b) => b.agent("ask", { prompt: "Is this turn finished? Answer yes or no.", output: { kind: "text" } }))
  .decide("decide", { from, program: decide })
