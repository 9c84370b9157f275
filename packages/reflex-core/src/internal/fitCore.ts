/**
 * The anchored MAP fit (spec §4.3) as ONE self-contained function: it references nothing but
 * its arguments and JavaScript globals, so its source text (`fitCore.toString()`) can run in a
 * worker thread and produce the very same heads as on the main thread (ADR 0450). Keep it so: no
 * imports at run time, no helpers, no nested functions.
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

/**
 * Full-batch gradient descent on weighted log loss plus a Gaussian penalty centred on `prior`.
 * @internal
 */
export function fitCore(
  prior: Head,
  examples: ReadonlyArray<FitRow>,
  options: { readonly iterations: number; readonly learningRate: number; readonly priorStrength: number },
  encodings: Encodings | undefined,
  warm?: Descent | undefined,
  out?: { descent?: Descent } | undefined
): Head {
  const names = Object.keys(prior.weights).sort()
  const signature = names.join(",")
  const k = names.length
  // Rows with identical features are merged: Σ wᵢ(σ(z) − yᵢ)x = (W·σ(z) − Σ wᵢyᵢ)x, so each
  // distinct feature vector costs one evaluation per iteration.
  const groups = new Map<string, number>()
  const rows: Array<Encoded> = []
  const wys: Array<number> = []
  const ws: Array<number> = []
  let sumW = 0
  for (const ex of examples) {
    if (!(ex.weight > 0 && ex.weight <= 1)) continue
    // the sparse encoding over the prior's names (cached per example and name signature)
    let e: Encoded | null = null
    const cached = encodings?.get(ex)
    if (cached !== undefined && cached.signature === signature) {
      e = cached.encoded
    } else {
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
    }
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
  if (sumW <= 0) {
    if (out !== undefined) {
      const start: Array<number> = []
      for (let j = 0; j < k; j++) start.push(prior.weights[names[j]!]!)
      out.descent = warm ?? { bias: prior.bias, weights: start }
    }
    return prior
  }
  const n = rows.length
  // Columns whose every value is 0/1 are "binary"; rows sharing the same binary pattern share the
  // part of the logit (and of the gradient) those columns contribute, computed once per pattern.
  const binary = new Uint8Array(k).fill(1)
  for (const r of rows) for (let q = 0; q < r.idx.length; q++) if (r.val[q] !== 1) binary[r.idx[q]!] = 0
  const patterns = new Map<string, Array<number>>()
  for (let i = 0; i < n; i++) {
    const r = rows[i]!
    let key = ""
    for (let q = 0; q < r.idx.length; q++) {
      if (binary[r.idx[q]!] === 1) key = key.length === 0 ? String(r.idx[q]) : `${key},${r.idx[q]}`
    }
    const members = patterns.get(key)
    if (members === undefined) patterns.set(key, [i])
    else members.push(i)
  }
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
  const pcol = Int32Array.from(pCols)
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
  // The continuous entries again, column by column in row order: the gradient of a continuous
  // column then accumulates in exactly the order of the row loop, from a separate pass.
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
  const contCols = Int32Array.from(contList)
  const r = new Float64Array(n)
  const { iterations, learningRate: lr, priorStrength: ps } = options
  const b0 = prior.bias
  const t0 = new Float64Array(k)
  for (let j = 0; j < k; j++) t0[j] = prior.weights[names[j]!]!
  // a warm fit continues a descent of the same names; the penalty stays centred on the prior
  let b = warm !== undefined && warm.weights.length === k ? warm.bias : b0
  const t = warm !== undefined && warm.weights.length === k ? Float64Array.from(warm.weights) : Float64Array.from(t0)
  const g = new Float64Array(k)
  const denom = sumW + ps
  for (let it = 0; it < iterations; it++) {
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
  if (out !== undefined) out.descent = { bias: b, weights: Array.from(t) }
  // round half away from zero to 4 decimals (as Learning's rounding does), then clamp to ±64
  const weights: Record<string, number> = {}
  for (let j = 0; j < k; j++) {
    const x = t[j]!
    weights[names[j]!] = Math.max(-64, Math.min(64, Math.sign(x) * Math.round(Math.abs(x) * 10000) / 10000))
  }
  const bias = Math.max(-64, Math.min(64, Math.sign(b) * Math.round(Math.abs(b) * 10000) / 10000))
  return { bias, weights, threshold: prior.threshold }
}
