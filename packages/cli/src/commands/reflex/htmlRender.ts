/**
 * The status page's HTML: one article per reflex, one section per head — its standing, a warning
 * when it ranks turns no better than chance, the verdict and what it would take to certify, the
 * charts, the ladder, the turns it fired on wrongly, the hold-out evidence — and the generation
 * history. Plain strings, every value escaped; no script, nothing fetched.
 * @internal
 */
import * as Learning from "@steward/reflex-core/Learning"
import type * as Params from "@steward/reflex-core/Params"
import type * as Reflexes from "@steward/reflex-core/Reflexes"
import { curves, curvesLegend, esc, reliability } from "./htmlCharts.js"
import type { HeadEvidence, ReflexPage } from "./htmlData.js"

const pct = (x: number | null | undefined): string => x === null || x === undefined ? "—" : `${(x * 100).toFixed(1)}%`
const num = (x: number | null | undefined): string => x === null || x === undefined ? "—" : String(x)

const table = (cls: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  `<table class="${cls}"><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${
    rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")
  }</tbody></table>`

const metrics = (m: Params.Metrics | null): string =>
  m === null
    ? "—"
    : `n ${m.n} · positives ${m.positives} · accuracy ${m.accuracy} · AUC ${num(m.auc)} · log loss ${m.log_loss}`

/** The AUCs at or below 0.5, named by where they were measured. */
const atChance = (head: Reflexes.HeadStatus, e: HeadEvidence | undefined): ReadonlyArray<string> =>
  [
    ["on the certification window, scored before each label (prequential)", e?.auc ?? null],
    ["on every retained label", head.metrics?.auc ?? null],
    ["on the hold-out fifth", head.holdout?.auc ?? null]
  ].filter((x): x is [string, number] => typeof x[1] === "number" && x[1] <= 0.5).map(([where, auc]) =>
    `AUC ${auc} ${where}`
  )

const chanceWarning = (head: Reflexes.HeadStatus, e: HeadEvidence | undefined): string => {
  const found = atChance(head, e)
  return found.length === 0 ?
    "" :
    `<p class="warning chance" role="alert">⚠ At or below chance: ${
      esc(found.join("; "))
    }. This head ranks the person's turns no better than a coin toss: its scores carry no signal, so no threshold makes it right more often than it is wrong by luck. Do not let it act; look at its features and labels (the misfires below) first.</p>`
}

const verdict = (c: Reflexes.CertificateView | null): string =>
  c === null
    ? `<p class="verdict none">never certified (this head cannot act on its own)</p>`
    : c.certified
    ? `<p class="verdict yes">certified at threshold <strong class="threshold">${c.threshold}</strong> — precision ${c.precision}, lower bound ${c.lower} ≥ floor ${c.floor} over ${c.fired} fired (${
      esc(c.reason)
    })</p>`
    : `<p class="verdict no">not certified — ${
      esc(c.reason)
    } (lower bound ${c.lower} vs floor ${c.floor} at ${c.threshold})</p>`

const gapText = (fired: number, precision: number, floor: number): string => {
  const gap = Learning.toCertify(fired, precision, floor)
  const short = fired < gap.minimum
    ? `${num(Learning.round4(gap.minimum - fired))} more fired turns to reach ${gap.minimum}`
    : ""
  const more = gap.moreFired === null
    ? "more turns at this precision never certify"
    : gap.moreFired === 0
    ? "passes now"
    : `${gap.moreFired} more fired turns at precision ${precision}`
  const precise = gap.precisionNeeded === null ? "" : `or precision ≥ ${gap.precisionNeeded} at this count`
  return [short, more, precise].filter((x) => x !== "").join("; ")
}

const toCertify = (head: Reflexes.HeadStatus, e: HeadEvidence | undefined): string => {
  const c = head.certificate
  if (c === null || e === undefined) return ""
  if (c.certified) {
    const at = e.curve.find((r) => r.threshold === c.threshold) ?? e.rungs.find((r) => r.threshold === c.threshold)
    return `<p class="coverage">Coverage at the certified threshold ${c.threshold}: <strong>${
      pct(at?.coverage)
    }</strong> (${
      num(at?.fired)
    } of ${e.window} labeled turns in the window). It keeps the certificate while its precision there stays at or above ${
      Learning.round4(c.floor - 0.05)
    } (the floor less 0.05).</p>`
  }
  const first = e.rungs[0]
  const coverage = first === undefined
    ? ""
    : ` Not certified, so it acts on nothing yet; at its threshold ${first.threshold} it would fire on ${
      pct(first.coverage)
    } (${first.fired} of ${e.window} labeled turns in the window).`
  return `<div class="to-certify"><h3>What it would take to certify</h3><p>At threshold ${c.threshold} the head fired on ${c.fired} labeled turns with precision ${c.precision}; the Wilson lower bound ${c.lower} must reach the floor ${c.floor} over at least ${Learning.CERTIFY_MIN_FIRED} fired turns. It needs: <strong class="needs">${
    esc(gapText(c.fired, c.precision, c.floor))
  }</strong>.${esc(coverage)}</p></div>`
}

const ladder = (c: Reflexes.CertificateView | null, e: HeadEvidence | undefined): string =>
  e === undefined || e.rungs.length === 0 ? "" : table(
    "ladder",
    ["threshold", "fired", "hits", "precision", "Wilson lower (z = 2.33)", "floor", "coverage", "", "to certify here"],
    e.rungs.map((r) => [
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
        ? `fewer than ${Learning.CERTIFY_MIN_FIRED} fired: ladder stops`
        : c !== null && r.lower >= c.floor
        ? "passes"
        : "below floor",
      c === null || r.lower >= c.floor ? "—" : esc(gapText(r.fired, r.precision, c.floor))
    ])
  )

const misfires = (e: HeadEvidence | undefined, page: ReflexPage): string => {
  if (e === undefined) return ""
  const title = `<h3>Misfires: turns it fired on that the person said were wrong</h3>`
  if (e.misfireCount === 0) {
    return `${title}<p class="misfires none">none at threshold ${e.misfireThreshold} in the window of ${e.window} labeled turns.</p>`
  }
  return `${title}<p>${e.misfireCount} of the window's labeled turns scored at or over ${e.misfireThreshold} and were labeled <em>no</em>; the newest ${e.misfires.length}. The ledger keeps no text: find a turn by its subject (the import line id, or the host's task id).</p>${
    table(
      "misfires",
      ["subject", "observation", "recorded", "p (before its label)", "label", "weight", "features that pushed it"],
      e.misfires.map((m) => {
        const seen = page.observations[m.observation]
        return [
          `<code>${esc(seen?.subject ?? "—")}</code>`,
          `<code>${esc(m.observation.slice(0, 12))}</code>`,
          seen === undefined ? "—" : esc(new Date(seen.atMs).toISOString().slice(0, 19).replace("T", " ")),
          esc(m.p),
          `no (${esc(m.source)})`,
          esc(m.weight),
          esc(m.drivers.map((d) => `${d.feature} +${d.contribution}`).join(", ") || "—")
        ]
      })
    )
  }`
}

const headSection = (page: ReflexPage, head: Reflexes.HeadStatus): string => {
  const e = page.evidence[head.head]
  const c = head.certificate
  const charts = `<figure>${
    reliability(head)
  }<figcaption>Reliability: predicted vs observed per bin (dot size = turns; the top row counts them)</figcaption></figure>${
    e === undefined
      ? ""
      : `<figure>${curves(head, e.curve, Learning.CERTIFY_MIN_FIRED)}<figcaption>${
        curvesLegend(c?.floor ?? null, Learning.CERTIFY_MIN_FIRED)
      }</figcaption></figure>`
  }`
  return `<section class="head" id="${esc(`${page.status.reflex}-${head.head}`)}">
<h2>${esc(page.status.reflex)} · ${esc(head.head)}</h2>
<p class="standing">${esc(head.standing)} · mode <code>${
    esc(head.mode)
  }</code> · ${head.labels} labels (${head.positives} positive) · head threshold ${head.threshold}</p>
${chanceWarning(head, e)}${verdict(c)}${toCertify(head, e)}
<div class="charts">${charts}</div>
${ladder(c, e)}
${misfires(e, page)}
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
    "history",
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
.charts{display:flex;flex-wrap:wrap;gap:24px} figure{margin:0} figcaption{font-size:12px;color:#444;max-width:480px}
.chart{width:480px;height:300px;background:#fff;border:1px solid #eee} .tick{font-size:12px;fill:#333} .axis{font-size:13px;fill:#222}
.count{font-size:11px;fill:#555} .mark{font-size:12px;fill:#111;font-weight:600}
.legend{list-style:none;padding:0;margin:6px 0} .legend li{margin:2px 0}
.swatch{display:inline-block;width:22px;height:0;border-top:3px solid;vertical-align:middle;margin-right:6px}
.swatch.dashed{border-top-style:dashed} .swatch.block{height:10px;border:1px solid #ccc}
table{border-collapse:collapse;margin:8px 0} td,th{border:1px solid #ddd;padding:2px 8px;text-align:right} th{background:#f3f3f3}
.misfires td{text-align:left}
.verdict.yes{color:#0b7a55} .verdict.no{color:#b3261e} code{font-size:12px}
.warning{background:#fff3bf;border:2px solid #f08c00;padding:8px 12px;font-weight:600}
.to-certify{background:#f8f9fa;border-left:4px solid #adb5bd;padding:2px 12px}
</style></head>
<body>
${pages.map(reflexSection).join("\n")}
</body></html>
`
