/**
 * The anchored MAP fit (spec §4.3) as a set of named steps that reference nothing but their
 * arguments, each other and JavaScript globals: no imports at run time, no closures. The calling
 * thread and the fit workers run these very functions, so a head fitted anywhere is the same
 * head, bit for bit (ADR 0450). The steps: encode and merge the rows, lay them out by binary
 * pattern and by continuous column, descend (one gradient step at a time until a fixed point or
 * the iteration cap), round.
 * @internal
 */
import type { Head } from "../Params.js"

/** @internal */
export interface FitRow {
  readonly features: Readonly<Record<string, number>>
  readonly label: boolean
  readonly weight: number
}

/** @internal */
export interface Encoded {
  readonly idx: ReadonlyArray<number>
  readonly val: ReadonlyArray<number>
  readonly key: string
}

/**
 * Where a descent stands: the unrounded bias and weights (in sorted-name order) after its last
 * iteration. A warm fit continues from one instead of from the prior. @internal
 */
export interface Descent {
  readonly bias: number
  readonly weights: ReadonlyArray<number>
}

/** Sparse encodings per example and feature-name signature. @internal */
export type Encodings = WeakMap<FitRow, { readonly signature: string; readonly encoded: Encoded | null }>

/** @internal */
export interface FitOptions {
  readonly iterations: number
  readonly learningRate: number
  readonly priorStrength: number
}

/** Distinct feature vectors with their summed weights (`ws`) and summed positive weights (`wys`). */
interface Merged {
  readonly rows: ReadonlyArray<Encoded>
  readonly ws: ReadonlyArray<number>
  readonly wys: ReadonlyArray<number>
  readonly sumW: number
}

/**
 * The rows laid out for the descent. Rows sharing a pattern of binary (0/1) columns share that
 * part of the logit and of the gradient (`pOff`/`pcol` the columns, `mOff` the member rows, in
 * pattern order); the continuous entries are kept per row (`cOff`/`cidx`/`cval`) and again per
 * column in row order (`colOff`/`colRow`/`colVal`), so each gradient sum receives its additions
 * in the order of the row loop.
 */
interface Layout {
  readonly k: number
  readonly np: number
  readonly pOff: Int32Array
  readonly mOff: Int32Array
  readonly pcol: Int32Array
  readonly cOff: Int32Array
  readonly cidx: Int32Array
  readonly cval: Float64Array
  readonly w: Float64Array
  readonly wy: Float64Array
  readonly colOff: Int32Array
  readonly colRow: Int32Array
  readonly colVal: Float64Array
  readonly contCols: Int32Array
}

/**
 * The sparse encoding of one example over the prior's sorted names (cached per example and name
 * signature); null when the example lacks one of the names (an older feature set).
 * @internal
 */
export function encodeRow(
  ex: FitRow,
  names: ReadonlyArray<string>,
  signature: string,
  encodings: Encodings | undefined
): Encoded | null {
  const cached = encodings?.get(ex)
  if (cached !== undefined && cached.signature === signature) return cached.encoded
  const k = names.length
  let e: Encoded | null = null
  let covered = true
  for (let j = 0; j < k; j++) {
    if (!(names[j]! in ex.features)) {
      covered = false
      break
    }
  }
  if (covered) {
    const idx: Array<number> = []
    const val: Array<number> = []
    for (let j = 0; j < k; j++) {
      const v = ex.features[names[j]!]
      if (typeof v === "number" && Number.isFinite(v) && v !== 0) {
        idx.push(j)
        val.push(v)
      }
    }
    e = { idx, val, key: `${idx.join(",")}|${val.join(",")}` }
  }
  encodings?.set(ex, { signature, encoded: e })
  return e
}

/**
 * Rows with identical features merged: Σ wᵢ(σ(z) − yᵢ)x = (W·σ(z) − Σ wᵢyᵢ)x, so each distinct
 * feature vector costs one evaluation per iteration. Weights outside (0,1] are ignored.
 * @internal
 */
export function mergeRows(
  examples: ReadonlyArray<FitRow>,
  names: ReadonlyArray<string>,
  encodings: Encodings | undefined
): Merged {
  const signature = names.join(",")
  const groups = new Map<string, number>()
  const rows: Array<Encoded> = []
  const wys: Array<number> = []
  const ws: Array<number> = []
  let sumW = 0
  for (const ex of examples) {
    if (!(ex.weight > 0 && ex.weight <= 1)) continue
    const e = encodeRow(ex, names, signature, encodings)
    if (e === null) continue
    sumW += ex.weight
    const at = groups.get(e.key)
    if (at !== undefined) {
      ws[at] = ws[at]! + ex.weight
      if (ex.label) wys[at] = wys[at]! + ex.weight
      continue
    }
    groups.set(e.key, rows.length)
    rows.push(e)
    wys.push(ex.label ? ex.weight : 0)
    ws.push(ex.weight)
  }
  return { rows, ws, wys, sumW }
}

/**
 * Columns whose every value is 0/1 are binary; the rows grouped by their pattern of binary
 * columns (patterns and members in first-seen order).
 * @internal
 */
export function binaryPatterns(
  rows: ReadonlyArray<Encoded>,
  k: number
): { readonly binary: Uint8Array; readonly patterns: Map<string, Array<number>> } {
  const binary = new Uint8Array(k).fill(1)
  for (const r of rows) for (let q = 0; q < r.idx.length; q++) if (r.val[q] !== 1) binary[r.idx[q]!] = 0
  const patterns = new Map<string, Array<number>>()
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!
    let key = ""
    for (let q = 0; q < r.idx.length; q++) {
      if (binary[r.idx[q]!] === 1) key = key.length === 0 ? String(r.idx[q]) : `${key},${r.idx[q]}`
    }
    const members = patterns.get(key)
    if (members === undefined) patterns.set(key, [i])
    else members.push(i)
  }
  return { binary, patterns }
}

/**
 * The continuous entries of the rows (in pattern order) column by column, in row order: the
 * gradient of a continuous column then accumulates in exactly the order of the row loop.
 * @internal
 */
export function columnLists(
  cOff: Int32Array,
  cidx: Int32Array,
  cval: Float64Array,
  k: number
): {
  readonly colOff: Int32Array
  readonly colRow: Int32Array
  readonly colVal: Float64Array
  readonly contCols: Int32Array
} {
  const n = cOff.length - 1
  const colCount = new Int32Array(k)
  for (let q = 0; q < cidx.length; q++) colCount[cidx[q]!]++
  const colOff = new Int32Array(k + 1)
  for (let j = 0; j < k; j++) colOff[j + 1] = colOff[j]! + colCount[j]!
  const colRow = new Int32Array(cidx.length)
  const colVal = new Float64Array(cidx.length)
  const fill = colOff.slice(0, k)
  for (let m = 0; m < n; m++) {
    for (let q = cOff[m]!; q < cOff[m + 1]!; q++) {
      const j = cidx[q]!
      const at = fill[j]!
      fill[j] = at + 1
      colRow[at] = m
      colVal[at] = cval[q]!
    }
  }
  const contList: Array<number> = []
  for (let j = 0; j < k; j++) if (colCount[j]! > 0) contList.push(j)
  return { colOff, colRow, colVal, contCols: Int32Array.from(contList) }
}

/** The merged rows laid out by binary pattern and by continuous column. @internal */
export function layoutRows(merged: Merged, k: number): Layout {
  const { rows, ws, wys } = merged
  const n = rows.length
  const { binary, patterns } = binaryPatterns(rows, k)
  const np = patterns.size
  const pOff = new Int32Array(np + 1) // binary columns of each pattern
  const mOff = new Int32Array(np + 1) // member rows of each pattern
  const pCols: Array<number> = []
  const order: Array<number> = []
  let pi = 0
  for (const [key, members] of patterns) {
    if (key.length > 0) { for (const j of key.split(",")) pCols.push(Number(j)) }
    pOff[pi + 1] = pCols.length
    for (const i of members) order.push(i)
    mOff[pi + 1] = order.length
    pi++
  }
  // continuous part of each row, in pattern order
  const cOff = new Int32Array(n + 1)
  const cIdx: Array<number> = []
  const cVal: Array<number> = []
  const w = new Float64Array(n)
  const wy = new Float64Array(n)
  for (let m = 0; m < n; m++) {
    const i = order[m]!
    const r = rows[i]!
    for (let q = 0; q < r.idx.length; q++) {
      if (binary[r.idx[q]!] === 0) {
        cIdx.push(r.idx[q]!)
        cVal.push(r.val[q]!)
      }
    }
    cOff[m + 1] = cIdx.length
    w[m] = ws[i]!
    wy[m] = wys[i]!
  }
  const cidx = Int32Array.from(cIdx)
  const cval = Float64Array.from(cVal)
  const { colOff, colRow, colVal, contCols } = columnLists(cOff, cidx, cval, k)
  return { k, np, pOff, mOff, pcol: Int32Array.from(pCols), cOff, cidx, cval, w, wy, colOff, colRow, colVal, contCols }
}

/**
 * The gradient of the penalized loss at (`b`, `t`) into `g` (the residuals of every row into
 * `r`), returning the bias component. Every accumulator receives its IEEE additions in a fixed
 * order (ADR 0450): pattern sums and binary columns in pattern order, continuous columns in row
 * order.
 * @internal
 */
export function gradient(
  layout: Layout,
  b: number,
  t: Float64Array,
  b0: number,
  t0: Float64Array,
  ps: number,
  g: Float64Array,
  r: Float64Array
): number {
  const { cOff, cidx, colOff, colRow, colVal, contCols, cval, k, mOff, np, pOff, pcol, w, wy } = layout
  let gb = ps * (b - b0)
  for (let j = 0; j < k; j++) g[j] = ps * (t[j]! - t0[j]!)
  for (let p = 0; p < np; p++) {
    let base = b
    const ps0 = pOff[p]!
    const ps1 = pOff[p + 1]!
    for (let q = ps0; q < ps1; q++) base += t[pcol[q]!]!
    const m0 = mOff[p]!
    const m1 = mOff[p + 1]!
    // residuals of the pattern's rows (independent of each other)
    for (let m = m0; m < m1; m++) {
      const start = cOff[m]!
      const end = cOff[m + 1]!
      let z = base
      if (end - start === 2) {
        z += t[cidx[start]!]! * cval[start]!
        z += t[cidx[start + 1]!]! * cval[start + 1]!
      } else {
        for (let q = start; q < end; q++) z += t[cidx[q]!]! * cval[q]!
      }
      r[m] = w[m]! / (1 + Math.exp(-z)) - wy[m]!
    }
    let rsum = 0
    for (let m = m0; m < m1; m++) rsum += r[m]!
    gb += rsum
    for (let q = ps0; q < ps1; q++) g[pcol[q]!] += rsum
  }
  for (let c = 0; c < contCols.length; c++) {
    const j = contCols[c]!
    let acc = g[j]!
    const e = colOff[j + 1]!
    for (let q = colOff[j]!; q < e; q++) acc += r[colRow[q]!]! * colVal[q]!
    g[j] = acc
  }
  return gb
}

/**
 * Gradient descent from (`start`, `t`) for at most `options.iterations` steps, updating `t` in
 * place and returning the final bias. The penalty stays centred on the prior (`b0`, `t0`).
 * @internal
 */
export function descend(
  layout: Layout,
  sumW: number,
  b0: number,
  t0: Float64Array,
  start: number,
  t: Float64Array,
  options: FitOptions
): number {
  const { iterations, learningRate: lr, priorStrength: ps } = options
  const k = layout.k
  const g = new Float64Array(k)
  const r = new Float64Array(layout.w.length)
  const denom = sumW + ps
  let b = start
  for (let it = 0; it < iterations; it++) {
    const gb = gradient(layout, b, t, b0, t0, ps, g, r)
    const nb = b - lr * gb / denom
    let moved = !Object.is(nb, b)
    b = nb
    for (let j = 0; j < k; j++) {
      const x = t[j]! - lr * g[j]! / denom
      if (!Object.is(x, t[j]!)) moved = true
      t[j] = x
    }
    // a step that leaves every value identical (Object.is) is a fixed point: every later
    // iteration repeats it exactly, so stopping here returns the very same head
    if (!moved) break
  }
  return b
}

/**
 * A head from unrounded values: half away from zero to 4 decimals (as Learning's rounding does),
 * then clamped to ±64.
 * @internal
 */
export function roundHead(names: ReadonlyArray<string>, b: number, t: ArrayLike<number>, threshold: number): Head {
  const weights: Record<string, number> = {}
  for (let j = 0; j < names.length; j++) {
    const x = t[j]!
    weights[names[j]!] = Math.max(-64, Math.min(64, Math.sign(x) * Math.round(Math.abs(x) * 10000) / 10000))
  }
  const bias = Math.max(-64, Math.min(64, Math.sign(b) * Math.round(Math.abs(b) * 10000) / 10000))
  return { bias, weights, threshold }
}

/**
 * Full-batch gradient descent on weighted log loss plus a Gaussian penalty centred on `prior`,
 * from the prior or continuing `warm` (a descent of the same names). `out.descent` receives where
 * the descent stopped.
 * @internal
 */
export function fitCore(
  prior: Head,
  examples: ReadonlyArray<FitRow>,
  options: FitOptions,
  encodings: Encodings | undefined,
  warm?: Descent | undefined,
  out?: { descent?: Descent } | undefined
): Head {
  const names = Object.keys(prior.weights).sort()
  const k = names.length
  const merged = mergeRows(examples, names, encodings)
  const t0 = new Float64Array(k)
  for (let j = 0; j < k; j++) t0[j] = prior.weights[names[j]!]!
  const resume = warm !== undefined && warm.weights.length === k
  if (merged.sumW <= 0) {
    if (out !== undefined) out.descent = warm ?? { bias: prior.bias, weights: Array.from(t0) }
    return prior
  }
  const layout = layoutRows(merged, k)
  const t = resume ? Float64Array.from(warm.weights) : Float64Array.from(t0)
  const b = descend(layout, merged.sumW, prior.bias, t0, resume ? warm.bias : prior.bias, t, options)
  if (out !== undefined) out.descent = { bias: b, weights: Array.from(t) }
  return roundHead(names, b, t, prior.threshold)
}

/**
 * Every function of the fit, callees first: a worker defines them from their source text and
 * runs `fitCore` exactly as the calling thread does. @internal
 */
export const fitFunctions: ReadonlyArray<(...args: ReadonlyArray<any>) => unknown> = [
  encodeRow,
  mergeRows,
  binaryPatterns,
  columnLists,
  layoutRows,
  gradient,
  descend,
  roundHead,
  fitCore
]
