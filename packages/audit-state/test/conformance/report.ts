/**
 * Agreement per category between Steward's run and xcheck's recorded outcomes. Like the bar, a
 * sequence stops being compared at its first accept/refuse or `next` divergence: later
 * expectations describe a state Steward is no longer in.
 */
import type { SequenceRun } from "./driver.js"

export const CATEGORIES = ["accept", "keyPhrase", "next", "state", "events", "metrics", "lint", "views"] as const
export type Category = typeof CATEGORIES[number]

export interface Divergence {
  readonly sequence: string
  readonly step: number
  readonly category: Category
  readonly argv: string
  readonly expected: unknown
  readonly observed: unknown
}

export interface Report {
  readonly counts: Record<Category, { compared: number; agreed: number }>
  readonly divergences: ReadonlyArray<Divergence>
  readonly skipped: ReadonlyArray<{ readonly sequence: string; readonly step: number; readonly reason: string }>
  readonly sequences: number
  readonly fullyAgreeing: number
}

const norm = (s: string) => s.toLowerCase().replaceAll("`", "").replaceAll("‘", "'").replaceAll("’", "'")

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

const nextAgrees = (expected: any, observed: any): boolean => {
  if (expected === null || observed === null) return expected === observed
  if (expected !== null && typeof expected === "object" && "error" in expected) {
    return observed !== null && typeof observed === "object" && "error" in observed
  }
  return same(expected, observed)
}

export const compare = (runs: ReadonlyArray<SequenceRun>): Report => {
  const counts = Object.fromEntries(CATEGORIES.map((c) => [c, { compared: 0, agreed: 0 }])) as Report["counts"]
  const divergences: Array<Divergence> = []
  const skipped: Array<Report["skipped"][number]> = []
  let fullyAgreeing = 0
  for (const run of runs) {
    let ok = true
    if (run.skipped) skipped.push({ sequence: run.sequence.id, step: run.skipped.at, reason: run.skipped.reason })
    const tally = (c: Category, agreed: boolean, step: number, argv: string, expected: unknown, observed: unknown) => {
      counts[c].compared++
      if (agreed) counts[c].agreed++
      else {
        ok = false
        divergences.push({ sequence: run.sequence.id, step, category: c, argv, expected, observed })
      }
      return agreed
    }
    for (const { index, observed: o, step } of run.steps) {
      const e = step.expect!
      const argv = (step.argv ?? []).join(" ")
      const acceptOk = tally("accept", o.accepted === e.accepted, index, argv, e.refusal ?? "accepted", o.message)
      if (acceptOk && !e.accepted && e.keyPhrase !== null) {
        tally("keyPhrase", norm(o.message).includes(norm(e.keyPhrase)), index, argv, e.keyPhrase, o.message)
      }
      const nextOk = tally("next", nextAgrees(e.next, o.next), index, argv, e.next, o.next)
      if (e.state !== undefined) {
        tally(
          "state",
          (e.state?.sha256 ?? null) === o.state,
          index,
          argv,
          e.state?.doc ?? e.state?.sha256 ?? null,
          o.stateDoc
        )
      }
      if (e.lint !== null && e.lint !== undefined && o.lint !== null) {
        tally(
          "lint",
          e.lint.clean === o.lint.clean && same(e.lint.subjects, o.lint.subjects),
          index,
          argv,
          e.lint,
          o.lint
        )
      }
      if (step.kind === "verb" && !argv.includes("render-views") && o.state !== null) {
        // xcheck: authorize (refusal = one write_refused, before the lock), then the lease pair
        // around the verb, refused or not; an accepted verb appends exactly one state_transition
        const kinds = o.events.map((x) => x.event).join(",")
        const want = o.accepted
          ? ["lease_acquired,state_transition,lease_released"]
          : ["write_refused", "lease_acquired,lease_released"]
        const named = o.events.every((x) =>
          x.event !== "state_transition" ||
          (x.target !== null && (!argv.includes("file-finding") || x.to_status !== null))
        )
        tally("events", want.includes(kinds) && named, index, argv, want, kinds)
      }
      if (o.accepted && step.kind !== "next" && o.state !== null) {
        tally("views", o.viewsClean, index, argv, "views agree with state", "drift")
      }
      if (!acceptOk || !nextOk) break
    }
    tally("metrics", run.metricsIssues.length === 0, run.steps.length, "metrics --json", [], run.metricsIssues)
    if (ok) fullyAgreeing++
  }
  return { counts, divergences, skipped, sequences: runs.length, fullyAgreeing }
}

export const summary = (name: string, r: Report): string =>
  [
    `conformance ${name}: ${r.fullyAgreeing}/${r.sequences} sequence(s) agree throughout`,
    ...Object.entries(r.counts).map(([c, n]) => `  ${c.padEnd(10)} ${n.agreed}/${n.compared}`),
    ...r.skipped.map((s) => `  skipped ${s.sequence} from step ${s.step}: ${s.reason}`)
  ].join("\n")
