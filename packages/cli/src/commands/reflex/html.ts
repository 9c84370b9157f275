/**
 * `steward reflex status --html FILE`: one self-contained page (inline CSS and SVG, no script, no
 * network) a person decides from. Per reflex head: its reliability diagram; precision, its Wilson
 * lower bound and coverage as curves across thresholds with the floor and the certified threshold
 * marked; a warning when the head ranks turns at or below chance (AUC ≤ 0.5); what it would take
 * to certify; the certification ladder; the turns it fired on that the person said were wrong;
 * the hold-out evidence; and the generation history.
 *
 * The evidence is recomputed from the ledger exactly as `Learning.certify` sees it (`htmlData.ts`);
 * the HTML is in `htmlRender.ts`, the charts in `htmlCharts.ts`.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Learning from "@steward/reflex-core/Learning"
import * as Params from "@steward/reflex-core/Params"
import * as Reflex from "@steward/reflex-core/Reflex"
import type * as Reflexes from "@steward/reflex-core/Reflexes"
import * as ReflexLedger from "@steward/reflex-core/ReflexLedger"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { cannotRun } from "../../CliError.js"
import { evidence, type HeadEvidence, type ReflexPage } from "./htmlData.js"
import { render } from "./htmlRender.js"

export {
  /** @internal */
  colours
} from "./htmlCharts.js"
export type {
  /** @since 0.1.0 */
  ReflexPage,
  /** @since 0.1.0 */
  Rung
} from "./htmlData.js"
export {
  /** @since 0.1.0 */
  render
} from "./htmlRender.js"

/**
 * Everything the page shows, read through the engine (status) and the ledger (generations,
 * labels, the misfires' observations).
 *
 * @since 0.1.0
 * @category constructors
 */
export const collect = Effect.fn("reflex.html.collect")(function*(
  reflexes: Reflexes.Reflexes["Type"],
  names: ReadonlyArray<string>
) {
  const ledger = yield* ReflexLedger.ReflexLedger
  const pages: Array<ReflexPage> = []
  for (const name of names) {
    const status = yield* reflexes.status(name)
    const stored = yield* ledger.generations(name)
    const generations = stored.map((g) => {
      const params = Params.decodeJsonOption(g.payload)
      return {
        version: g.version,
        parent: params?.parent ?? null,
        trainedOn: params?.trained_on ?? 0,
        active: g.active,
        createdAt: g.createdAt,
        evidence: Object.entries(params?.evidence ?? {}).map(([head, c]) => `${head}: ${c.reason}`)
      }
    })
    const definition = Reflex.builtins.find((d) => d.name === name)
    const byHead: Record<string, HeadEvidence> = {}
    const observations: Record<string, { subject: string; atMs: number }> = {}
    for (const [head, spec] of Object.entries(definition?.certification ?? {})) {
      const prior = definition!.prior.heads[head]
      const shown = status.heads.find((h) => h.head === head)
      if (prior === undefined || shown === undefined) continue
      const examples = yield* ledger.examples(name, head, Learning.MAX_EXAMPLES)
      const at = shown.certificate?.certified === true ? shown.certificate.threshold : shown.threshold
      const e = evidence(prior, examples, spec.actionable ?? (() => true), spec.floor, at)
      byHead[head] = e
      for (const m of e.misfires) {
        const seen = yield* ledger.observation(m.observation)
        if (Option.isSome(seen)) observations[m.observation] = { subject: seen.value.subject, atMs: seen.value.atMs }
      }
    }
    pages.push({ status, generations, evidence: byHead, observations })
  }
  return pages
})

/**
 * Write the page for `pages` to `file` (exit 2 naming the file when it cannot be written).
 *
 * @since 0.1.0
 * @category io
 */
export const write = Effect.fn("reflex.html.write")(function*(file: string, pages: ReadonlyArray<ReflexPage>) {
  const fs = yield* FileSystem.FileSystem
  yield* fs.writeFileString(file, render(pages)).pipe(
    Effect.mapError((error) => cannotRun("io", `cannot write the status page ${file}: ${error.message}`))
  )
})
