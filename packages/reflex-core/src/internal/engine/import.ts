/**
 * Import JSONL history: parse every line, then either report what this history alone would
 * certify (dry run) or store it atomically, adopt the heads its replays win and certify.
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Import from "../../Import.js"
import * as Learning from "../../Learning.js"
import * as Params from "../../Params.js"
import * as ReflexError from "../../ReflexError.js"
import type { ImportReport } from "../../Reflexes.js"
import type { Observation } from "../../ReflexLedger.js"
import { clip, importId } from "../../ReflexLedger.js"
import * as FitPool from "../fitPool.js"
import type { EngineContext, Loaded } from "./context.js"
import { certifyAll, type SharedReplays, summary } from "./train.js"

// Imports with at least this many labels for a head fit on worker threads (when enabled).
const PARALLEL_FROM = 512

interface History {
  readonly head: string
  readonly examples: ReadonlyArray<Learning.Example>
  readonly memo: Learning.FitMemo
}

/**
 * The replays' challengers, fitted ahead on worker threads when the layer provides them; on any
 * failure each replay fits what is missing on the calling thread.
 */
const prefit = (ctx: EngineContext, l: Loaded, histories: ReadonlyArray<History>) => {
  if (Option.isNone(ctx.fitWorkers) || ctx.fitThreads <= 1) return Effect.void
  if (!histories.some((h) => h.examples.length >= PARALLEL_FROM)) return Effect.void
  return FitPool.prefit(
    ctx.fitWorkers.value,
    histories.map(({ examples, head, memo }) => {
      const prior = l.definition.prior.heads[head]!
      return {
        examples,
        prior,
        options: ctx.fitOptions,
        windows: Learning.scheduledFits(examples.length),
        store: (from: number, to: number, fitted: Params.Head) =>
          Learning.rememberFit(memo, prior, ctx.fitOptions, from, to, fitted)
      }
    }),
    ctx.fitThreads
  ).pipe(Effect.catchAllCause(() => Effect.void))
}

const dryRun = (ctx: EngineContext, l: Loaded, lines: ReadonlyArray<Import.ParsedLine>) =>
  Effect.gen(function*() {
    const reflex = l.definition.name
    const histories = l.definition.heads.map((head): History => {
      const examples = lines.filter((x) => x.head === head).map((x, i): Learning.Example => ({
        observation: importId(reflex, head, x.id),
        features: x.features,
        label: x.label,
        weight: x.weight,
        source: "import",
        seq: i + 1
      }))
      return { head, examples, memo: Learning.makeFitMemo(examples) }
    })
    yield* prefit(ctx, l, histories.filter((h) => l.definition.certification[h.head] !== undefined))
    const report: ImportReport = {
      reflex,
      dryRun: true,
      inserted: 0,
      examples: lines.length,
      adoptedVersion: null,
      certificates: histories.map(({ examples, head, memo }) => {
        const spec = l.definition.certification[head]
        return summary(
          l,
          head,
          spec === undefined ? undefined : Learning.certify({
            head,
            prior: l.definition.prior.heads[head]!,
            examples,
            floor: spec.floor,
            actionable: spec.actionable ?? (() => true),
            options: ctx.fitOptions,
            memo
          })
        )
      })
    }
    return report
  })

/** Replay the stored history of every head; adopt the heads whose replays promoted. */
const adopt = (ctx: EngineContext, l: Loaded, now: number) =>
  Effect.gen(function*() {
    const reflex = l.definition.name
    const active = yield* ctx.activeParams(l.definition)
    const won: Record<string, Params.Head> = {}
    let trainedOn = 0
    const histories: Array<History> = []
    for (const head of l.definition.heads) {
      const examples = yield* ctx.ledger.examples(reflex, head, Learning.MAX_EXAMPLES)
      histories.push({ head, examples, memo: Learning.makeFitMemo(examples) })
    }
    yield* prefit(ctx, l, histories)
    // Replays from a prior-equal active head are the certification replays too: computed once.
    // Otherwise the certification replay (from the prior) reuses the adoption replay's fits:
    // every challenger is fitted from the prior on the same windows of the same examples.
    const shared: Record<string, SharedReplays[string]> = {}
    for (const { examples, head, memo } of histories) {
      trainedOn = Math.max(trainedOn, examples.length)
      const prior = l.definition.prior.heads[head]!
      const replayed = Learning.replay(prior, active.heads[head]!, examples, ctx.fitOptions, undefined, memo)
      shared[head] = Params.sameHead(active.heads[head]!, prior) ? { examples, replayed, memo } : { examples, memo }
      if (replayed.promotions > 0 && !Params.sameHead(replayed.head, active.heads[head]!)) won[head] = replayed.head
    }
    let adoptedVersion: number | null = null
    if (Object.keys(won).length > 0) {
      adoptedVersion = yield* ctx.ledger.promote(reflex, active.version, now, (v, parent) =>
        Params.encodeJson({
          reflex,
          version: v,
          parent,
          heads: { ...active.heads, ...won },
          trained_on: trainedOn,
          evidence: {}
        }))
    }
    return { adoptedVersion, shared }
  })

/** @internal */
export const importHistory = (ctx: EngineContext) =>
  Effect.fn("Reflexes.importHistory")(function*(
    reflex: string,
    text: string,
    opts?: { readonly dryRun?: boolean; readonly file?: string; readonly learn?: boolean }
  ) {
    const l = yield* ctx.loaded(reflex)
    const lines = yield* Import.parse(l.definition, text, opts?.file ?? "import")
    if (opts?.dryRun === true) return yield* dryRun(ctx, l, lines)
    const now = yield* Clock.currentTimeMillis
    const rows = lines.map((x) => ({
      observation: {
        id: importId(reflex, x.head, x.id),
        reflex,
        subject: clip(`import:${x.id}`, 200),
        head: x.head,
        value: "imported",
        gate: "import",
        score: 0,
        features: x.features,
        evidence: x.evidence,
        paramsVersion: 0,
        program: "",
        receipt: "",
        atMs: now
      } satisfies Observation,
      labels: [{ head: x.head, label: x.label, weight: x.weight, source: "import" }]
    }))
    const file = opts?.file ?? "import"
    const inserted = yield* ctx.ledger.importRows(reflex, rows, now).pipe(
      Effect.mapError((e) => {
        // a stored id that is another example: name the line that repeats it
        const observation = (e.details as { readonly observation?: unknown } | undefined)?.observation
        const at = rows.findIndex((r) => r.observation.id === observation)
        if (e.code !== "invalid-import" || at < 0) return e
        const line = lines[at]!
        return ReflexError.make(
          "invalid-import",
          `${file}:${line.line}: id ${JSON.stringify(line.id)} is already stored with a different ${
            (e.details as { readonly conflict?: string }).conflict ?? "example"
          } (an identical line is skipped)`,
          { line: line.line }
        )
      })
    )
    if (opts?.learn === false) {
      const report: ImportReport = {
        reflex,
        dryRun: false,
        inserted,
        examples: lines.length,
        adoptedVersion: null,
        certificates: []
      }
      return report
    }
    const { adoptedVersion, shared } = inserted > 0 ? yield* adopt(ctx, l, now) : { adoptedVersion: null, shared: {} }
    const stored = yield* certifyAll(ctx, l, shared)
    const report: ImportReport = {
      reflex,
      dryRun: false,
      inserted,
      examples: lines.length,
      adoptedVersion,
      certificates: l.definition.heads.map((head) => summary(l, head, stored.find((x) => x.head === head)))
    }
    return report
  })
