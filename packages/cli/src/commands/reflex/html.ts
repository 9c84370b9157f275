/**
 * `steward reflex status --html FILE`: one self-contained page (inline CSS and SVG, no script, no
 * network) with, per reflex head, its reliability diagram, the precision of every threshold the
 * certification ladder tried (with its Wilson lower bound against the floor) and its coverage,
 * the certificate, the hold-out evidence and the generation history.
 *
 * The ladder is recomputed from the ledger exactly as `Learning.certify` walks it: the same
 * prequential replay from the shipped prior over the head's newest labels, operator labels on
 * actionable turns only, the newest 1,500, thresholds from the head's own upward in steps of 0.05
 * until one passes or fires on fewer than 30.
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
import { cannotRun } from "../../CliError.js"

/**
 * One tried threshold of a head's certification ladder.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rung {
  readonly threshold: number
  readonly fired: number
  readonly hits: number
  readonly precision: number
  readonly lower: number
  /** Share of the window's labeled turns the head fires on at this threshold. */
  readonly coverage: number
}

/**
 * What the page shows for one reflex.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReflexPage {
  readonly status: Reflexes.Status
  readonly generations: ReadonlyArray<
    {
      readonly version: number
      readonly parent: number | null
      readonly trainedOn: number
      readonly active: boolean
      readonly createdAt: number
      readonly evidence: ReadonlyArray<string>
    }
  >
  /** Per certifiable head: the window size and the rungs tried (up to the first pass, or below 30 fired). */
  readonly ladders: Readonly<Record<string, { readonly window: number; readonly rungs: ReadonlyArray<Rung> }>>
}

const round4 = Learning.round4

/**
 * The certification ladder of one head over its labeled examples (see the module note).
 *
 * @since 0.1.0
 * @category constructors
 */
export const ladder = (
  prior: Params.Head,
  examples: ReadonlyArray<Learning.Example>,
  actionable: (features: Learning.Example["features"]) => boolean,
  floor: number
): { readonly window: number; readonly rungs: ReadonlyArray<Rung> } => {
  const replayed = Learning.replay(prior, prior, examples)
  const eligible = replayed.predictions.filter((p) =>
    Learning.operatorLabel(p.example.source) && actionable(p.example.features)
  )
  const window = eligible.slice(Math.max(0, eligible.length - Learning.CERTIFY_WINDOW))
  const total = window.reduce((sum, p) => sum + p.example.weight, 0)
  const rungs: Array<Rung> = []
  for (let k = 0;; k++) {
    const threshold = Math.round((prior.threshold + 0.05 * k) * 1e6) / 1e6
    if (!(threshold < 0.975)) break
    let fired = 0
    let hits = 0
    for (const p of window) {
      if (p.p < threshold) continue
      fired += p.example.weight
      if (p.example.label) hits += p.example.weight
    }
    rungs.push({
      threshold,
      fired: round4(fired),
      hits: round4(hits),
      precision: round4(fired > 0 ? hits / fired : 0),
      lower: round4(Learning.wilsonLower(hits, fired)),
      coverage: round4(total > 0 ? fired / total : 0)
    })
    // certification stops at the first rung with too little evidence or a lower bound at the floor
    if (fired < Learning.CERTIFY_MIN_FIRED || rungs[rungs.length - 1]!.lower >= floor) break
  }
  return { window: window.length, rungs }
}

/**
 * Everything the page shows, read through the engine (status) and the ledger (generations and
 * labels).
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
    const ladders: Record<string, { window: number; rungs: ReadonlyArray<Rung> }> = {}
    for (const [head, spec] of Object.entries(definition?.certification ?? {})) {
      const prior = definition!.prior.heads[head]
      if (prior === undefined) continue
      const examples = yield* ledger.examples(name, head, Learning.MAX_EXAMPLES)
      ladders[head] = ladder(prior, examples, spec.actionable ?? (() => true), spec.floor)
    }
    pages.push({ status, generations, ladders })
  }
  return pages
})

// ---------------------------------------------------------------------------------------------
// Rendering: plain strings, every value escaped; SVG sized in its own units and scaled by CSS.
// ---------------------------------------------------------------------------------------------

const esc = (value: unknown): string =>
  String(value).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!
  )
const pct = (x: number | null | undefined): string => x === null || x === undefined ? "—" : `${(x * 100).toFixed(1)}%`
const num = (x: number | null | undefined): string => x === null || x === undefined ? "—" : String(x)

// Colours the browser test looks for in the screenshot: keep them unique to their marks.
/** @internal */
export const colours = { bar: "#2f6fdf", lower: "#e8590c", floor: "#7b2cbf", certified: "#12b886", point: "#2f6fdf" }

const W = 360
const H = 240
const M = { left: 44, right: 12, top: 14, bottom: 34 }
const x = (v: number, lo: number, hi: number) => M.left + (v - lo) / (hi - lo) * (W - M.left - M.right)
const y = (v: number) => H - M.bottom - v * (H - M.top - M.bottom)

const axes = (xLabel: string, xFrom: number, xTo: number, yLabel: string): string => {
  const ticks = [0, 0.25, 0.5, 0.75, 1]
  return [
    `<line x1="${M.left}" y1="${y(0)}" x2="${W - M.right}" y2="${y(0)}" stroke="#444"/>`,
    `<line x1="${M.left}" y1="${y(0)}" x2="${M.left}" y2="${y(1)}" stroke="#444"/>`,
    ...ticks.map((t) =>
      `<text x="${M.left - 6}" y="${y(t) + 4}" text-anchor="end" class="tick">${t}</text>` +
      `<text x="${x(xFrom + t * (xTo - xFrom), xFrom, xTo)}" y="${
        H - M.bottom + 14
      }" text-anchor="middle" class="tick">${round4(xFrom + t * (xTo - xFrom))}</text>`
    ),
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 4}" text-anchor="middle" class="axis">${esc(xLabel)}</text>`,
    `<text x="12" y="${(M.top + H - M.bottom) / 2}" text-anchor="middle" class="axis" transform="rotate(-90 12 ${
      (M.top + H - M.bottom) / 2
    })">${esc(yLabel)}</text>`
  ].join("")
}

const reliability = (head: Reflexes.HeadStatus): string => {
  const bins = head.calibration.filter((b) => b.n > 0 && b.meanP !== null && b.observed !== null)
  const marks = bins.map((b) =>
    `<circle cx="${x(b.meanP!, 0, 1)}" cy="${y(b.observed!)}" r="${
      3 + Math.min(6, Math.sqrt(b.n) / 2)
    }" fill="${colours.point}" fill-opacity="0.75"><title>${
      esc(`${b.from}–${b.to}: predicted ${b.meanP}, observed ${b.observed}, n = ${b.n}`)
    }</title></circle>` +
    `<text x="${x(b.meanP!, 0, 1)}" y="${y(b.observed!) - 9}" text-anchor="middle" class="count">${b.n}</text>`
  )
  return `<svg class="chart reliability" viewBox="0 0 ${W} ${H}" role="img" aria-label="reliability diagram of ${
    esc(head.head)
  }">${axes("predicted probability", 0, 1, "observed rate")}<line x1="${x(0, 0, 1)}" y1="${y(0)}" x2="${
    x(1, 0, 1)
  }" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>${marks.join("")}${
    bins.length === 0
      ? `<text x="${W / 2}" y="${H / 2}" text-anchor="middle" class="axis">no labeled turns yet</text>`
      : ""
  }</svg>`
}

const precisionChart = (head: Reflexes.HeadStatus, rungs: ReadonlyArray<Rung>): string => {
  const certificate = head.certificate
  const floor = certificate?.floor ?? null
  const lo = Math.max(0, (rungs[0]?.threshold ?? head.threshold) - 0.05)
  const hi = 1
  const band = (W - M.left - M.right) / 20 * 0.7
  const bars = rungs.map((r) =>
    `<rect x="${x(r.threshold, lo, hi) - band / 2}" y="${y(r.precision)}" width="${band}" height="${
      y(0) - y(r.precision)
    }" fill="${colours.bar}"><title>${
      esc(`threshold ${r.threshold}: precision ${r.precision} over ${r.fired} fired, lower bound ${r.lower}`)
    }</title></rect>` +
    `<line x1="${x(r.threshold, lo, hi) - band / 2 - 2}" x2="${x(r.threshold, lo, hi) + band / 2 + 2}" y1="${
      y(r.lower)
    }" y2="${y(r.lower)}" stroke="${colours.lower}" stroke-width="3"/>` +
    `<text x="${x(r.threshold, lo, hi)}" y="${y(r.precision) - 4}" text-anchor="middle" class="count">${r.fired}</text>`
  )
  const floorLine = floor === null
    ? ""
    : `<line x1="${M.left}" x2="${W - M.right}" y1="${y(floor)}" y2="${
      y(floor)
    }" stroke="${colours.floor}" stroke-width="2" stroke-dasharray="6 3"/><text x="${W - M.right}" y="${
      y(floor) - 4
    }" text-anchor="end" class="tick">floor ${floor}</text>`
  const certified = certificate?.certified === true
    ? `<line class="certified-threshold" x1="${x(certificate.threshold, lo, hi)}" x2="${
      x(certificate.threshold, lo, hi)
    }" y1="${y(0)}" y2="${y(1)}" stroke="${colours.certified}" stroke-width="4"/>`
    : ""
  return `<svg class="chart precision" viewBox="0 0 ${W} ${H}" role="img" aria-label="precision per threshold of ${
    esc(head.head)
  }">${axes("threshold", lo, hi, "precision")}${bars.join("")}${floorLine}${certified}</svg>`
}

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  `<table><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${
    rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")
  }</tbody></table>`

const metrics = (m: Params.Metrics | null): string =>
  m === null
    ? "—"
    : `n ${m.n} · positives ${m.positives} · accuracy ${m.accuracy} · AUC ${num(m.auc)} · log loss ${m.log_loss}`

const headSection = (page: ReflexPage, head: Reflexes.HeadStatus): string => {
  const c = head.certificate
  const rungs = page.ladders[head.head]?.rungs ?? []
  const verdict = c === null
    ? `<p class="verdict none">never certified (this head cannot act on its own)</p>`
    : c.certified
    ? `<p class="verdict yes">certified at threshold <strong class="threshold">${c.threshold}</strong> — precision ${c.precision}, lower bound ${c.lower} ≥ floor ${c.floor} over ${c.fired} fired (${
      esc(c.reason)
    })</p>`
    : `<p class="verdict no">not certified — ${
      esc(c.reason)
    } (lower bound ${c.lower} vs floor ${c.floor} at ${c.threshold})</p>`
  const ladderTable = rungs.length === 0 ? "" : table(
    ["threshold", "fired", "hits", "precision", "Wilson lower (z = 2.33)", "floor", "coverage", ""],
    rungs.map((r) => [
      esc(r.threshold),
      esc(r.fired),
      esc(r.hits),
      esc(r.precision),
      esc(r.lower),
      esc(c?.floor ?? "—"),
      pct(r.coverage),
      c?.certified === true && c.threshold === r.threshold
        ? "certified here"
        : r.fired < Learning.CERTIFY_MIN_FIRED
        ? "fewer than 30 fired: ladder stops"
        : c !== null && r.lower >= c.floor
        ? "passes"
        : "below floor"
    ])
  )
  return `<section class="head" id="${esc(`${page.status.reflex}-${head.head}`)}">
<h2>${esc(page.status.reflex)} · ${esc(head.head)}</h2>
<p class="standing">${esc(head.standing)} · mode <code>${
    esc(head.mode)
  }</code> · ${head.labels} labels (${head.positives} positive) · head threshold ${head.threshold}</p>
${verdict}
<div class="charts"><figure>${
    reliability(head)
  }<figcaption>Reliability: predicted vs observed per bin (dot size and number = turns)</figcaption></figure>
<figure>${
    rungs.length === 0 ? "<p>no certification ladder for this head</p>" : precisionChart(head, rungs)
  }<figcaption>Precision per tried threshold (bars, number = fired), Wilson lower bound (orange), floor (dashed), certified threshold (green)</figcaption></figure></div>
${ladderTable}
<p class="coverage">Coverage at the certified threshold: ${
    c?.certified === true ? pct(rungs.find((r) => r.threshold === c.threshold)?.coverage) : "—"
  } of ${page.ladders[head.head]?.window ?? 0} labeled turns in the window.</p>
<h3>Hold-out evidence</h3>
<p>Active head on the fixed hashed hold-out fifth: ${esc(metrics(head.holdout))}</p>
<p>Active head on every retained label: ${esc(metrics(head.metrics))}</p>
<p>When certified, about one acting turn in ten is still held back for the person (a hash of head, task and revision).</p>
${
    head.trial === null
      ? ""
      : `<p>Open trial: ${head.trial.fresh} of ${head.trial.needed} fresh labels — ${esc(head.trial.reason)}</p>`
  }
</section>`
}

const reflexSection = (page: ReflexPage): string => {
  const s = page.status
  const history = table(
    ["generation", "parent", "trained on", "active", "created", "promotion evidence"],
    [{
      version: 0,
      parent: null,
      trainedOn: 0,
      active: page.generations.every((g) => !g.active),
      createdAt: null,
      evidence: ["shipped prior"]
    }, ...page.generations]
      .map((g) => [
        esc(g.version),
        esc(g.parent ?? "—"),
        esc(g.trainedOn),
        g.active ? "✓" : "",
        g.createdAt === null ? "—" : esc(new Date(g.createdAt).toISOString()),
        esc(g.evidence.join("; "))
      ])
  )
  return `<article class="reflex"><h1>${esc(s.reflex)} <small>${esc(s.description)}</small></h1>
<p>Generation ${s.generation.version} (parent ${
    esc(s.generation.parent ?? "—")
  }, trained on ${s.generation.trainedOn}) · program <code>${esc(s.program.digest)}</code>${
    s.program.custom ? " (custom)" : ""
  } · ${s.observed} observed, ${s.labeled} labeled · promotion ${esc(s.promotion)}</p>
${s.heads.map((head) => headSection(page, head)).join("\n")}
<h3>Generation history</h3>${history}</article>`
}

/**
 * The whole page.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (pages: ReadonlyArray<ReflexPage>, title = "Steward reflex status"): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
h1 small{font-weight:normal;color:#666;font-size:60%} .head{border-top:1px solid #ddd;margin-top:18px}
.charts{display:flex;flex-wrap:wrap;gap:16px} figure{margin:0} figcaption{font-size:12px;color:#555;max-width:360px}
.chart{width:360px;height:240px;background:#fafafa} .tick{font-size:9px;fill:#444} .axis{font-size:10px;fill:#222} .count{font-size:9px;fill:#111}
table{border-collapse:collapse;margin:8px 0} td,th{border:1px solid #ddd;padding:2px 8px;text-align:right} th{background:#f3f3f3}
.verdict.yes{color:#0b7a55} .verdict.no{color:#b3261e} code{font-size:12px}
</style></head>
<body>
${pages.map(reflexSection).join("\n")}
</body></html>
`

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
