/**
 * The shipped route and settle organisms, written with the typed authoring API. Their manifests
 * digest exactly as the shipped xcb organisms (xcb @8b9bf39), which the tests check against the
 * fixture files.
 * @internal
 */
import * as Expr from "@steward/algal-runtime/Expr"
import { organism } from "./authoring.js"

const { add, and, contains, fold, get, gte, if_, isNum, let_, lt, mul, neq, quote, record, round } = Expr

const budgets = {
  maxSteps: 6,
  maxAgentCalls: 0,
  maxWork: 60000,
  maxContextBytes: 65536,
  maxOutputBytes: 16384,
  maxDepth: 1
} as const

const json = { kind: "json", schema: {} } as const

/** Σ w·features[f] over a head's terms, from its bias; a feature that is not a number counts 0. */
const logit = (head: string) =>
  fold(
    get(head, "terms"),
    get(head, "bias"),
    "acc",
    "t",
    add(get("acc"), mul(get("t", "w"), let_("v", get("features", get("t", "f")), if_(isNum(get("v")), get("v"), 0))))
  )

const routeHead = let_(
  "judged",
  get("evidence", "judged"),
  let_(
    "h",
    if_(get("judged"), get("params", "judged"), get("params", "plain")),
    record({ head: if_(get("judged"), "judged", "plain"), z: logit("h"), cut: get("h", "cut") })
  )
)

const routeScore = round(mul(get("scored", "z"), 1000))

const routeDecide = if_(
  get("evidence", "substantial"),
  record({ route: "frontier", gate: "substantial", head: get("scored", "head"), score: routeScore }),
  if_(
    and(get("evidence", "judged"), contains(quote(["question", "probe"]), get("evidence", "kind"))),
    record({ route: "standard", gate: "kind", head: get("scored", "head"), score: routeScore }),
    record({
      route: if_(gte(get("scored", "z"), get("scored", "cut")), "frontier", "standard"),
      gate: "score",
      head: get("scored", "head"),
      score: routeScore
    })
  )
)

/** The route organism (frontier or standard tier). @internal */
export const route = organism({
  key: "organism:xcb-route-reflex",
  name: "XCB route reflex",
  note:
    "Frontier or standard tier for a new task. Features and typed judge evidence arrive as inputs; parameters are versioned data fitted from local outcomes. Large prompts always route frontier; judged questions and capability probes route standard.",
  budgets,
  valueKey: "route"
})
  .cells((b) =>
    b.expr("head", { inputs: { features: "json", params: "json", evidence: "json" }, program: routeHead, output: json })
      .edge("src.features", "head.features")
      .edge("src.params", "head.params")
      .edge("src.evidence", "head.evidence")
  )
  .decide("decide", { from: { scored: "head.out", evidence: "src.evidence" }, program: routeDecide })

const settleHead = let_(
  "u",
  get("params", "stopped_short"),
  let_(
    "c",
    get("params", "confirm"),
    record({ u: logit("u"), ucut: get("u", "cut"), c: logit("c"), ccut: get("c", "cut") })
  )
)

const verdict = <C extends Expr.Text>(category: C, gate: string, head: "stopped_short" | "confirm") =>
  record({ category, gate, head, score: round(mul(get("scored", head === "confirm" ? "c" : "u"), 1000)) })

// Non-idle deterministic states and their categories.
const states = {
  working: "uncertain",
  needs_answer: "question",
  needs_action: "needs_action",
  needs_approval: "needs_approval",
  limited: "limited",
  failed: "failed",
  cancelled: "cancelled",
  uncertain: "uncertain"
} as const

const settleDecide = let_(
  "s",
  get("evidence", "state"),
  if_(
    neq(get("s"), "idle"),
    verdict(let_("m", quote(states), get("m", get("s"))), "state", "stopped_short"),
    if_(
      gte(get("evidence", "limit"), 1),
      verdict("interrupted", "limit", "stopped_short"),
      if_(
        and(gte(get("evidence", "blocked"), 1), lt(get("evidence", "done_claim"), 1)),
        verdict("blocked", "blocked", "stopped_short"),
        if_(
          gte(get("scored", "c"), get("scored", "ccut")),
          verdict("confirm", "head", "confirm"),
          verdict(if_(gte(get("scored", "u"), get("scored", "ucut")), "stopped_short", "done"), "head", "stopped_short")
        )
      )
    )
  )
)

/** The settle organism (how a finished turn ended). @internal */
export const settle = organism({
  key: "organism:xcb-settle-reflex",
  name: "XCB settle reflex",
  note:
    "How a settled worker turn ended. Non-idle deterministic states map to their category; a turn cut off by a limit is interrupted; an idle report with a blocked cue and no completion claim is blocked; an idle report the confirm head scores over its threshold is waiting for the operator's go-ahead; otherwise the stopped_short head separates done from stopped short.",
  budgets,
  valueKey: "category"
})
  .cells((b) =>
    b.expr("head", {
      inputs: { features: "json", params: "json", evidence: "json" },
      program: settleHead,
      output: json
    })
      .edge("src.features", "head.features")
      .edge("src.params", "head.params")
      .edge("src.evidence", "head.evidence")
  )
  .decide("decide", { from: { scored: "head.out", evidence: "src.evidence" }, program: settleDecide })
