/**
 * The anchored MAP fit exactly as it was before the kernel of `Learning.fit` was reorganized for
 * speed (ADR 0450): rows interleave their residual and their gradient update. Used only by tests to
 * prove the optimized fit returns the very same heads.
 */
import type { Example, FitOptions } from "../src/Learning.js"
import { defaultFitOptions, round4 } from "../src/Learning.js"
import type { Head } from "../src/Params.js"

const clamp64 = (x: number): number => Math.max(-64, Math.min(64, x))

interface Encoded {
  readonly idx: ReadonlyArray<number>
  readonly val: ReadonlyArray<number>
  readonly key: string
}

// Sparse encodings of examples per feature-name signature, cached across the many fits of a replay.
const encodings = new WeakMap<Example, { readonly signature: string; readonly encoded: Encoded | null }>()

const encode = (names: ReadonlyArray<string>, signature: string, ex: Example): Encoded | null => {
  const cached = encodings.get(ex)
  if (cached !== undefined && cached.signature === signature) return cached.encoded
  let encoded: Encoded | null = null
  let covered = true
  for (const name of names) {
    if (!(name in ex.features)) {
      covered = false
      break
    }
  }
  if (covered) {
    const idx: Array<number> = []
    const val: Array<number> = []
    for (let j = 0; j < names.length; j++) {
      const v = ex.features[names[j]!]
      if (typeof v === "number" && Number.isFinite(v) && v !== 0) {
        idx.push(j)
        val.push(v)
      }
    }
    encoded = { idx, val, key: `${idx.join(",")}|${val.join(",")}` }
  }
  encodings.set(ex, { signature, encoded })
  return encoded
}

export const referenceFit = (
  prior: Head,
  examples: ReadonlyArray<Example>,
  options: FitOptions = defaultFitOptions
): Head => {
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
    const e = encode(names, signature, ex)
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
  if (sumW <= 0) return prior
  const n = rows.length
  // Columns whose every value is 0/1 are "binary"; rows sharing the same binary pattern share the
  // part of the logit (and of the gradient) those columns contribute, computed once per pattern.
  const binary = new Uint8Array(k).fill(1)
  for (const r of rows) for (let q = 0; q < r.idx.length; q++) if (r.val[q] !== 1) binary[r.idx[q]!] = 0
  const patterns = new Map<string, Array<number>>()
  for (let i = 0; i < n; i++) {
    const r = rows[i]!
    const key = r.idx.filter((j) => binary[j] === 1).join(",")
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
  const { iterations, learningRate: lr, priorStrength: ps } = options
  const b0 = prior.bias
  const t0 = Float64Array.from(names.map((nm) => prior.weights[nm]!))
  let b = b0
  const t = Float64Array.from(t0)
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
      let rsum = 0
      const m1 = mOff[p + 1]!
      for (let m = mOff[p]!; m < m1; m++) {
        const start = cOff[m]!
        const end = cOff[m + 1]!
        let z = base
        for (let q = start; q < end; q++) z += t[cidx[q]!]! * cval[q]!
        const r = w[m]! / (1 + Math.exp(-z)) - wy[m]!
        rsum += r
        for (let q = start; q < end; q++) g[cidx[q]!] += r * cval[q]!
      }
      gb += rsum
      for (let q = ps0; q < ps1; q++) g[pcol[q]!] += rsum
    }
    b -= lr * gb / denom
    for (let j = 0; j < k; j++) t[j] = t[j]! - lr * g[j]! / denom
  }
  const weights: Record<string, number> = {}
  for (let j = 0; j < k; j++) weights[names[j]!] = clamp64(round4(t[j]!))
  return { bias: clamp64(round4(b)), weights, threshold: prior.threshold }
}
