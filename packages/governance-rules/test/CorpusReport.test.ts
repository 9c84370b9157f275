import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type Case, decideAll, type Decided, judge, load, scene, type Verdict } from "./corpus.js"
import { Parser } from "./helpers.js"

// Issue 32 item 4: the measured trade-off. For each shared corpus, each level and the boundary
// off and on, the misses (false negatives: less strict than every right answer) and the nags
// (false positives: stricter than every right answer) — printed, so a change shows what it cost
// on the other side, and held to a ceiling that only ever goes down (raise it and the review
// sees why). `STEWARD_CORPUS_DETAIL=1` lists every wrong case with its citation.
const CORPORA = ["hostile-commands.jsonl", "hostile-commands-v2.jsonl", "routine-commands.jsonl"] as const
type Corpus = typeof CORPORA[number]

// corpus → "off"/"on" → [misses, nags] at most (all levels together)
const CEILING: Record<Corpus, Record<"off" | "on", readonly [number, number]>> = {
  "hostile-commands.jsonl": { off: [0, 0], on: [40, 0] },
  "hostile-commands-v2.jsonl": { off: [0, 0], on: [36, 0] },
  "routine-commands.jsonl": { off: [0, 4], on: [0, 0] }
}

interface Row {
  total: number
  miss: number
  nag: number
}

const count = (decided: ReadonlyArray<Decided>, verdict: (d: Decided) => Verdict) => {
  const rows = new Map<string, Row>()
  const wrong: Array<string> = []
  for (const d of decided) {
    const row = rows.get(d.case.level) ?? { total: 0, miss: 0, nag: 0 }
    rows.set(d.case.level, row)
    row.total++
    const got = verdict(d)
    const judged = judge(got, d.case.want)
    if (judged === "right") continue
    row[judged]++
    const citation = d.placed.gate === d.gate && verdict(d) === d.placed.decision ? d.placed.citation : d.gate.citation
    wrong.push(
      `${judged} ${d.case.level} ${got}∉${d.case.want.join("|")} [${d.case.class ?? d.case.category}] ${
        JSON.stringify(d.case.input).slice(0, 140)
      } ← ${citation.ruleId ?? citation.layer}`
    )
  }
  return { rows, wrong }
}

const cases = new Map<Corpus, ReadonlyArray<Case>>(CORPORA.map((name) => [name, load(name)]))
const at = scene()

describe("corpus report (issue 32 item 4)", () => {
  layer(Parser)((it) => {
    it.effect("misses and nags per corpus, level and boundary stay under their ceilings", () =>
      Effect.gen(function*() {
        const lines: Array<string> = []
        const detail: Array<string> = []
        const over: Array<string> = []
        for (const name of CORPORA) {
          const decided = yield* decideAll(cases.get(name)!, at)
          for (const boundary of ["off", "on"] as const) {
            const { rows, wrong } = count(decided, (d) => boundary === "off" ? d.gate.decision : d.placed.decision)
            let miss = 0
            let nag = 0
            for (const [level, row] of [...rows].sort()) {
              miss += row.miss
              nag += row.nag
              lines.push(
                `${name.padEnd(26)} sandbox ${boundary.padEnd(3)} ${level.padEnd(10)} ${
                  String(row.total).padStart(4)
                } cases  FN ${String(row.miss).padStart(3)}  FP ${String(row.nag).padStart(3)}`
              )
            }
            detail.push(`--- ${name}, sandbox ${boundary}`, ...wrong)
            // every ask and deny cites what decided it: its effect and a reason a person can read
            for (const d of decided) {
              const decision = boundary === "off" ? d.gate : d.placed
              if (decision.decision === "allow") continue
              const { citation } = decision
              if (citation.effect !== decision.decision || citation.reason.trim() === "") {
                over.push(`${name} sandbox ${boundary}: ${JSON.stringify(d.case.input).slice(0, 80)} lacks a citation`)
              }
            }
            const [maxMiss, maxNag] = CEILING[name][boundary]
            if (miss > maxMiss || nag > maxNag) {
              over.push(`${name} sandbox ${boundary}: FN ${miss} (≤ ${maxMiss}), FP ${nag} (≤ ${maxNag})`)
            }
          }
        }
        console.log(`corpus report\n${lines.join("\n")}`)
        if (process.env["STEWARD_CORPUS_DETAIL"] === "1") console.log(detail.join("\n"))
        assert.deepStrictEqual(over, [], "a corpus got worse")
      }), { timeout: 120_000 })
  })
})
