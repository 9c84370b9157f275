/**
 * The shipped xcb settle reflex, rebuilt with the typed authoring API (the README's worked example).
 */
import * as Expr from "../src/Expr.js"
import * as Organism from "../src/Organism.js"

const { add, fold, get, gte, if_, isNum, let_, mul, record, round } = Expr

/** Σ w·features[f] over a head's terms, starting at its bias (non-numeric features count 0). */
const score = (head: string) =>
  fold(
    get(head, "terms"),
    get(head, "bias"),
    "acc",
    "t",
    add(
      get("acc"),
      mul(get("t", "w"), let_("v", get("features", get("t", "f")), if_(isNum(get("v")), get("v"), 0)))
    )
  )

const head = let_(
  "u",
  get("params", "unfinished"),
  let_(
    "c",
    get("params", "confirm"),
    record({
      u: score("u"),
      ucut: get("u", "cut"),
      c: score("c"),
      ccut: get("c", "cut")
    })
  )
)

const scoreOf = (x: "u" | "c") => round(mul(get("scored", x), 1000))
const verdict = (category: Expr.Any, gate: string, headName: string, x: "u" | "c") =>
  record({ category, gate, head: headName, score: scoreOf(x) })

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

const decide = let_(
  "s",
  get("evidence", "state"),
  if_(
    Expr.neq(get("s"), "idle"),
    verdict(let_("m", Expr.quote(states), get("m", get("s"))), "state", "unfinished", "u"),
    if_(
      gte(get("evidence", "limit"), 1),
      verdict("interrupted", "limit", "unfinished", "u"),
      if_(
        Expr.and(gte(get("evidence", "blocked"), 1), Expr.lt(get("evidence", "done_claim"), 1)),
        verdict("blocked", "blocked", "unfinished", "u"),
        if_(
          gte(get("scored", "c"), get("scored", "ccut")),
          verdict("confirm", "head", "confirm", "c"),
          verdict(
            if_(gte(get("scored", "u"), get("scored", "ucut")), "stopped_short", "done"),
            "head",
            "unfinished",
            "u"
          )
        )
      )
    )
  )
)

export const settle = Organism.make({
  key: "organism:xcb-settle-reflex",
  name: "XCB settle reflex",
  note:
    "How a settled worker turn ended. Non-idle deterministic states map to their category; an interrupted limit is unfinished; an idle report with a blocked cue and no completion claim is blocked; an idle report the confirm head scores over its threshold is waiting for the operator's go-ahead; otherwise the unfinished head separates done from stopped short.",
  budgets: { maxSteps: 6, maxAgentCalls: 0, maxWork: 60000, maxContextBytes: 65536, maxOutputBytes: 16384, maxDepth: 1 }
})
  .input("src", { features: "json", params: "json", evidence: "json" })
  .expr("head", {
    inputs: { features: "json", params: "json", evidence: "json" },
    program: head,
    output: { kind: "json", schema: {} }
  })
  .expr("decide", {
    inputs: { scored: "json", evidence: "json" },
    program: decide,
    output: { kind: "json", schema: {} }
  })
  .edge("src.features", "head.features")
  .edge("src.params", "head.params")
  .edge("src.evidence", "head.evidence")
  .edge("head.out", "decide.scored")
  .edge("src.evidence", "decide.evidence")
  .interface({
    inputs: { features: "src.features", params: "src.params", evidence: "src.evidence" },
    outputs: { decision: "decide.out" }
  })
