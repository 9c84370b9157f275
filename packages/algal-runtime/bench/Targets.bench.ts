/**
 * Issue 3's benchmark acceptance, one describe block per target, each with its baseline in the
 * same block (ratios are steadier than absolutes on a shared machine):
 *
 * 1. the shipped settle program run WITH receipt and fingerprint — target median ≤ 25 µs;
 * 2. the same decision WITHOUT a receipt (`Runtime.evaluateSync`) vs a hand-written TS function —
 *    target ≤ 10×;
 * 3. canonical JSON + digest of a 10 KB document — target ≤ 50 µs: a real ALGAL document (a
 *    bundle of the shipped manifests) and a dense synthetic stress document, each with the
 *    platform's native floor (`JSON.stringify` + sha256, no sorting, no validation) beside it.
 *
 * Benchmarks measure the built package (`dist/`, ADR 0398): build first (`pnpm build`; the root
 * `pnpm bench` does). Run: `pnpm vitest bench --run --project algal-runtime` (add
 * `--outputJson <file>` for medians).
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { bench, describe } from "vitest"
import * as Canonical from "../src/Canonical.js"
import * as Expr from "../src/Expr.js"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"
import * as Runtime from "../src/Runtime.js"

const settleJson = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, "../test/fixtures/xcb/settle.algal.json"), "utf8")
)
const parsed = Manifest.parseSync(settleJson)
if (!parsed.ok) throw new Error(parsed.error.message)
const compiledProgram = Program.compileSync(parsed.manifest)
if (!compiledProgram.ok) throw new Error(compiledProgram.error.message)
const program = compiledProgram.program
const exprOf = (id: string): unknown => (program.byId.get(id)!.cell as Manifest.ExprCell).expr.program
const head = exprOf("head")
const decide = exprOf("decide")

type Src = {
  readonly features: Record<string, number>
  readonly params: {
    readonly unfinished: {
      readonly bias: number
      readonly cut: number
      readonly terms: ReadonlyArray<{ readonly f: string; readonly w: number }>
    }
    readonly confirm: {
      readonly bias: number
      readonly cut: number
      readonly terms: ReadonlyArray<{ readonly f: string; readonly w: number }>
    }
  }
  readonly evidence: {
    readonly state: string
    readonly limit: number
    readonly blocked: number
    readonly done_claim: number
  }
}

// The args of the original bench (3 + 2 learned terms) and a learned model's size (12 + 8 terms).
const small: Src = {
  features: { a: 1, b: 0.5, c: 2, d: 0 },
  params: {
    unfinished: { bias: -0.2, cut: 0.5, terms: [{ f: "a", w: 0.7 }, { f: "b", w: 0.1 }, { f: "c", w: -0.05 }] },
    confirm: { bias: -1, cut: 0.3, terms: [{ f: "b", w: 0.4 }, { f: "d", w: 1.5 }] }
  },
  evidence: { state: "idle", limit: 0, blocked: 0, done_claim: 1 }
}
const learned: Src = {
  features: Object.fromEntries([
    ...Array.from({ length: 12 }, (_, i) => [`u${i}`, ((i * 7) % 10) / 10] as const),
    ...Array.from({ length: 8 }, (_, i) => [`c${i}`, i % 2] as const)
  ]),
  params: {
    unfinished: {
      bias: -0.4,
      cut: 0.35,
      terms: Array.from({ length: 12 }, (_, i) => ({ f: `u${i}`, w: (i % 5) / 10 - 0.2 }))
    },
    confirm: { bias: -1.1, cut: 0.6, terms: Array.from({ length: 8 }, (_, i) => ({ f: `c${i}`, w: (i % 3) / 5 })) }
  },
  evidence: { state: "idle", limit: 0, blocked: 0, done_claim: 0 }
}

/** The same decision written by hand in TypeScript (the baseline of target 2). */
const byHand = (a: Src) => {
  const score = (h: Src["params"]["unfinished"]) => {
    let acc = h.bias
    for (const t of h.terms) {
      const v = (a.features as Record<string, unknown>)[t.f]
      acc += t.w * (typeof v === "number" ? v : 0)
    }
    return acc
  }
  const u = score(a.params.unfinished)
  const c = score(a.params.confirm)
  const e = a.evidence
  if (e.state !== "idle") return { category: e.state, gate: "state", head: "unfinished", score: Math.round(u * 1000) }
  if (e.limit >= 1) return { category: "interrupted", gate: "limit", head: "unfinished", score: Math.round(u * 1000) }
  if (e.blocked >= 1 && e.done_claim < 1) {
    return { category: "blocked", gate: "blocked", head: "unfinished", score: Math.round(u * 1000) }
  }
  if (c >= a.params.confirm.cut) {
    return { category: "confirm", gate: "head", head: "confirm", score: Math.round(c * 1000) }
  }
  return {
    category: u >= a.params.unfinished.cut ? "stopped_short" : "done",
    gate: "head",
    head: "unfinished",
    score: Math.round(u * 1000)
  }
}

// The two expressions through `Expr.run` (what the interpreter runs for each expr cell), each
// admitting its own env — the reference the straight-line evaluation improves on.
const compiledHead = Expr.compile(head, ["evidence", "features", "params"])
const compiledDecide = Expr.compile(decide, ["evidence", "scored"])
const viaRun = (src: Src) => {
  const scored = Expr.run(compiledHead, src as any, 100_000)
  if (!scored.ok) throw new Error("head failed")
  const out = Expr.run(compiledDecide, { scored: scored.value, evidence: src.evidence }, 100_000)
  if (!out.ok) throw new Error("decide failed")
  return out.value
}

// The benches measure real work: every path must reach the hand-written decision.
for (const src of [small, learned]) {
  const want = JSON.stringify(byHand(src))
  const run = Runtime.runUnchecked(program, { src })
  const evaluated = Runtime.evaluateSync(program, { src })
  if (!evaluated.ok) throw new Error(evaluated.error.message)
  for (const got of [viaRun(src), evaluated.evaluation.outputs.decision, run.outputs.decision]) {
    if (JSON.stringify(got) !== want) throw new Error(`decision mismatch: ${JSON.stringify(got)} vs ${want}`)
  }
}

// A ~10 KB document: 82 records whose keys need sorting, strings with non-ASCII, fractions.
const doc: Record<string, unknown> = {}
for (let i = 0; i < 82; i++) {
  doc[`key-${(i * 7919) % 82}`] = {
    id: i,
    name: `item ${i} é`,
    tags: ["alpha", "beta", "gamma"],
    score: i / 7,
    nested: { ok: i % 2 === 0, n: null }
  }
}
const docBytes = Buffer.byteLength(Canonical.encodeUnsafe(doc), "utf8")

describe("target 1: settle run with receipt + fingerprint (median ≤ 25 µs)", () => {
  bench("settle run with receipt + fingerprint (Runtime.runUnchecked, 3+2 terms)", () => {
    Runtime.runUnchecked(program, { src: small })
  })
  bench("settle run with receipt + fingerprint (Runtime.runUnchecked, 12+8 terms)", () => {
    Runtime.runUnchecked(program, { src: learned })
  })
})

// Target 2 times batches of 100 decisions per sample (the report divides by 100): one sub-µs call
// per sample would mostly time the timer, which adds ~40 ns to each side. Every result is kept
// (`sink`), so no call can be optimized away.
const BATCH = 100
let sink: unknown
const batch = (decide: (src: Src) => unknown, src: Src) => () => {
  for (let i = 0; i < BATCH; i++) sink = decide(src)
}
const viaEvaluateSync = (src: Src) => Runtime.evaluateSync(program, { src })

describe("target 2: settle decision without receipt vs hand-written TS (≤ 10×)", () => {
  bench("decision by hand (TypeScript baseline, 3+2 terms) ×100", batch(byHand, small))
  bench("decision via Runtime.evaluateSync (3+2 terms) ×100", batch(viaEvaluateSync, small))
  bench("reference: the two expressions via Expr.run, each admitting its env (3+2 terms) ×100", batch(viaRun, small))
  bench("decision by hand (TypeScript baseline, 12+8 terms) ×100", batch(byHand, learned))
  bench("decision via Runtime.evaluateSync (12+8 terms) ×100", batch(viaEvaluateSync, learned))
})
// read once, so the sink is a live value to the compiler and to the linter
export const lastResult = (): unknown => sink

// A real ALGAL document of ~10 KB: an `algal.bundle.v1` of the shipped example manifests
// (normalized, keyed by digest — a bundle's file name is its digest), added in name order until
// the canonical form reaches 10 KiB.
const examplesDir = path.join(import.meta.dirname, "../test/fixtures/algal/examples")
const bundle = { contract: "algal.bundle.v1", manifests: {} as Record<string, unknown> }
for (const name of fs.readdirSync(examplesDir).filter((n) => n.endsWith(".algal.json")).sort()) {
  const manifest = Manifest.parseSync(JSON.parse(fs.readFileSync(path.join(examplesDir, name), "utf8")))
  if (!manifest.ok) throw new Error(`${name}: ${manifest.error.message}`)
  bundle.manifests[Manifest.digest(manifest.manifest)] = Manifest.normalized(manifest.manifest)
  if (Buffer.byteLength(Canonical.encodeUnsafe(bundle), "utf8") >= 10_240) break
}
const bundleBytes = Buffer.byteLength(Canonical.encodeUnsafe(bundle), "utf8")

describe(`target 3: canonical JSON + digest of a ${bundleBytes}-byte bundle of the shipped manifests (median ≤ 50 µs)`, () => {
  bench("Canonical.digest (canonical bytes + sha256)", () => {
    Canonical.digest(bundle)
  })
  bench("reference: JSON.stringify + sha256 of the same document (the platform's native floor)", () => {
    createHash("sha256").update(JSON.stringify(bundle)).digest("hex")
  })
})

describe(`target 3, stress: a dense synthetic ${docBytes}-byte document (82 records of 17-digit fractions)`, () => {
  bench("Canonical.digest (canonical bytes + sha256)", () => {
    Canonical.digest(doc)
  })
  bench("reference: JSON.stringify of the same document (not canonical, no digest)", () => {
    JSON.stringify(doc)
  })
  bench("reference: JSON.stringify + sha256 of the same document (the platform's native floor)", () => {
    createHash("sha256").update(JSON.stringify(doc)).digest("hex")
  })
})
