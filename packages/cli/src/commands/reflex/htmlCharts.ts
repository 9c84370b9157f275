/**
 * The status page's charts: inline SVG drawn in its own units, scaled by CSS. Every label sits
 * in a margin or a fixed slot so no two overlap (the browser test measures them); what a colour
 * means is said by the HTML legend beside the chart, not by text inside it.
 * @internal
 */
import type * as Reflexes from "@steward/reflex-core/Reflexes"
import type { Rung } from "./htmlData.js"

/** HTML-escape. @internal */
export const esc = (value: unknown): string =>
  String(value).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!
  )

// Colours the browser test looks for in the screenshot: keep them unique to their marks.
/** @internal */
export const colours = {
  precision: "#2f6fdf",
  lower: "#e8590c",
  coverage: "#c2255c",
  floor: "#7b2cbf",
  certified: "#12b886",
  threshold: "#868e96",
  point: "#1864ab",
  thin: "#f1f3f5"
}

const W = 480
const H = 300
const M = { left: 50, right: 16, top: 30, bottom: 46 }
const px = (v: number) => Math.round((M.left + v * (W - M.left - M.right)) * 10) / 10
const py = (v: number) => Math.round((H - M.bottom - v * (H - M.top - M.bottom)) * 10) / 10

const axes = (xLabel: string, yLabel: string): string => {
  const ticks = [0, 0.2, 0.4, 0.6, 0.8, 1]
  return [
    ...ticks.map((t) =>
      `<line x1="${px(0)}" x2="${px(1)}" y1="${py(t)}" y2="${py(t)}" stroke="#e9ecef"/>` +
      `<text x="${px(0) - 6}" y="${py(t) + 4}" text-anchor="end" class="tick">${t}</text>` +
      `<text x="${px(t)}" y="${py(0) + 16}" text-anchor="middle" class="tick">${t}</text>`
    ),
    `<line x1="${px(0)}" y1="${py(0)}" x2="${px(1)}" y2="${py(0)}" stroke="#444"/>`,
    `<line x1="${px(0)}" y1="${py(0)}" x2="${px(0)}" y2="${py(1)}" stroke="#444"/>`,
    `<text x="${(px(0) + px(1)) / 2}" y="${H - 8}" text-anchor="middle" class="axis">${esc(xLabel)}</text>`,
    `<text x="14" y="${(py(0) + py(1)) / 2}" text-anchor="middle" class="axis" transform="rotate(-90 14 ${
      (py(0) + py(1)) / 2
    })">${esc(yLabel)}</text>`
  ].join("")
}

const svg = (kind: string, label: string, body: string) =>
  `<svg class="chart ${kind}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(label)}">${body}</svg>`

/** Reliability: predicted vs observed per bin; the turns per bin in a row above the x axis. @internal */
export const reliability = (head: Reflexes.HeadStatus): string => {
  const bins = head.calibration.filter((b) => b.n > 0 && b.meanP !== null && b.observed !== null)
  const marks = bins.map((b) =>
    `<circle cx="${px(b.meanP!)}" cy="${py(b.observed!)}" r="${
      3 + Math.min(6, Math.sqrt(b.n) / 2)
    }" fill="${colours.point}" fill-opacity="0.75"><title>${
      esc(`${b.from}–${b.to}: predicted ${b.meanP}, observed ${b.observed}, n = ${b.n}`)
    }</title></circle>`
  )
  // one fixed slot per bin, so the counts never collide however close two bins' dots are
  const counts = head.calibration.filter((b) => b.n > 0).map((b) =>
    `<text x="${px((b.from + b.to) / 2)}" y="14" text-anchor="middle" class="count">${b.n}</text>`
  )
  const body = axes("predicted probability", "observed rate") +
    `<text x="${px(0) - 6}" y="14" text-anchor="end" class="count">n</text>` +
    `<line x1="${px(0)}" y1="${py(0)}" x2="${px(1)}" y2="${py(1)}" stroke="#999" stroke-dasharray="4 3"/>` +
    marks.join("") + counts.join("") +
    (bins.length === 0
      ? `<text x="${W / 2}" y="${H / 2}" text-anchor="middle" class="axis">no labeled turns yet</text>`
      : "")
  return svg("reliability", `reliability diagram of ${head.head}`, body)
}

const path = (points: ReadonlyArray<readonly [number, number] | null>): string => {
  let d = ""
  let pen = false
  for (const point of points) {
    if (point === null) {
      pen = false
      continue
    }
    d += `${pen ? "L" : "M"}${px(point[0])} ${py(point[1])}`
    pen = true
  }
  return d
}

/**
 * Precision, its Wilson lower bound and coverage across thresholds, the floor, the region where
 * the head fires on fewer than 30 turns (too little to certify), and the certified threshold — or,
 * when there is none, the head's own.
 * @internal
 */
export const curves = (
  head: Reflexes.HeadStatus,
  curve: ReadonlyArray<Rung>,
  minFired: number
): string => {
  const c = head.certificate
  const floor = c?.floor ?? null
  const fired = curve.filter((r) => r.fired > 0)
  const thinFrom = curve.find((r) => r.fired < minFired)?.threshold
  const thin = thinFrom === undefined
    ? ""
    : `<rect class="thin" x="${px(thinFrom)}" y="${py(1)}" width="${px(1) - px(thinFrom)}" height="${
      py(0) - py(1)
    }" fill="${colours.thin}"/>`
  const line = (cls: string, colour: string, pick: (r: Rung) => number, dash = "") =>
    `<path class="${cls}" d="${
      path(curve.map((r) => r.fired > 0 ? [r.threshold, pick(r)] as const : null))
    }" fill="none" stroke="${colour}" stroke-width="2.5"${dash === "" ? "" : ` stroke-dasharray="${dash}"`}/>`
  const floorLine = floor === null
    ? ""
    : `<line class="floor" x1="${px(0)}" x2="${px(1)}" y1="${py(floor)}" y2="${
      py(floor)
    }" stroke="${colours.floor}" stroke-width="2" stroke-dasharray="6 3"/>`
  const marked = c?.certified === true
    ? { cls: "certified-threshold", colour: colours.certified, at: c.threshold, text: `certified at ${c.threshold}` }
    : { cls: "head-threshold", colour: colours.threshold, at: head.threshold, text: `threshold ${head.threshold}` }
  const mark = `<line class="${marked.cls}" x1="${px(marked.at)}" x2="${px(marked.at)}" y1="${py(0)}" y2="${
    py(1)
  }" stroke="${marked.colour}" stroke-width="3"/><text x="${px(marked.at)}" y="${M.top - 10}" text-anchor="${
    marked.at > 0.8 ? "end" : marked.at < 0.2 ? "start" : "middle"
  }" class="mark">${esc(marked.text)}</text>`
  const points = fired.map((r) =>
    `<circle cx="${px(r.threshold)}" cy="${py(r.precision)}" r="6" fill="transparent"><title>${
      esc(
        `threshold ${r.threshold}: fired ${r.fired}, precision ${r.precision}, lower bound ${r.lower}, coverage ${r.coverage}`
      )
    }</title></circle>`
  )
  const body = thin + axes("threshold (the head acts when p ≥ threshold)", "share") + floorLine +
    line("coverage", colours.coverage, (r) => r.coverage) +
    line("lower", colours.lower, (r) => r.lower, "5 3") +
    line("precision", colours.precision, (r) => r.precision) + mark + points.join("") +
    (fired.length === 0
      ? `<text x="${W / 2}" y="${H / 2}" text-anchor="middle" class="axis">no labeled turns yet</text>`
      : "")
  return svg("curves", `precision, lower bound and coverage across thresholds of ${head.head}`, body)
}

/** The legend of {@link curves}, in HTML so it flows instead of overlapping. @internal */
export const curvesLegend = (floor: number | null, minFired: number): string => {
  const swatch = (colour: string, text: string, dashed = false) =>
    `<li><span class="swatch${dashed ? " dashed" : ""}" style="border-color:${colour}"></span>${esc(text)}</li>`
  return `<ul class="legend">${
    [
      swatch(colours.precision, "precision (share of fired turns the person said were right)"),
      swatch(colours.lower, "Wilson lower bound (z = 2.33)", true),
      swatch(colours.coverage, "coverage (share of the window's turns it fires on)"),
      floor === null ? "" : swatch(colours.floor, `floor ${floor}: the lower bound must reach it`, true),
      swatch(colours.certified, "certified threshold (grey: the head's own, when not certified)"),
      `<li><span class="swatch block" style="background:${colours.thin}"></span>fires on fewer than ${minFired} turns: too few to certify</li>`
    ].join("")
  }</ul>`
}
