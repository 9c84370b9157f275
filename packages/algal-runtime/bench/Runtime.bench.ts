import { ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as Canonical from "../src/Canonical.js"
import * as Expr from "../src/Expr.js"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"
import * as Receipt from "../src/Receipt.js"
import * as Runtime from "../src/Runtime.js"

const settleJson = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../test/fixtures/xcb/settle.algal.json"), "utf8"))
const parsed = Manifest.parseSync(settleJson)
if (!parsed.ok) throw new Error(parsed.error.message)
const compiled = Program.compileSync(parsed.manifest)
if (!compiled.ok) throw new Error(compiled.error.message)
const program = compiled.program

const args = {
  src: {
    features: { a: 1, b: 0.5, c: 2, d: 0 },
    params: {
      unfinished: { bias: -0.2, cut: 0.5, terms: [{ f: "a", w: 0.7 }, { f: "b", w: 0.1 }, { f: "c", w: -0.05 }] },
      confirm: { bias: -1, cut: 0.3, terms: [{ f: "b", w: 0.4 }, { f: "d", w: 1.5 }] }
    },
    evidence: { state: "idle", limit: 0, blocked: 0, done_claim: 1 }
  }
}
const decisionOnly = program.cells[2]!.cell as Manifest.ExprCell
const headOnly = program.cells[1]!.cell as Manifest.ExprCell

/** The same decision written by hand (the baseline of the ratio). */
const byHand = (a: typeof args.src) => {
  const score = (h: { bias: number; terms: ReadonlyArray<{ f: string; w: number }> }) => {
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
  if (e.blocked >= 1 && e.done_claim < 1) return { category: "blocked", gate: "blocked", head: "unfinished", score: Math.round(u * 1000) }
  if (c >= a.params.confirm.cut) return { category: "confirm", gate: "head", head: "confirm", score: Math.round(c * 1000) }
  return { category: u >= a.params.unfinished.cut ? "stopped_short" : "done", gate: "head", head: "unfinished", score: Math.round(u * 1000) }
}

// The decision without a receipt: the two expr cells evaluated through the interpreter's expr path.
const decideWithoutReceipt = () => {
  const scored = Expr.evaluate(headOnly.expr.program, args.src, 100_000)
  if (!scored.ok) throw new Error("head failed")
  return Expr.evaluate(decisionOnly.expr.program, { scored: scored.value, evidence: args.src.evidence }, 100_000)
}

// A ~10 KB document for canonical JSON + digest.
const doc: Record<string, unknown> = {}
for (let i = 0; i < 82; i++) {
  doc[`key-${(i * 7919) % 82}`] = { id: i, name: `item ${i} é`, tags: ["alpha", "beta", "gamma"], score: i / 7, nested: { ok: i % 2 === 0, n: null } }
}
const docBytes = Buffer.byteLength(Canonical.encodeUnsafe(doc), "utf8")

const receipt = Runtime.runUnchecked(program, args).receipt

const managed = ManagedRuntime.make(AlgalRuntime.layer)
const service = managed.runSync(AlgalRuntime.AlgalRuntime)
afterAll(() => managed.dispose())

describe("settle reflex", () => {
  bench("settle run with receipt + fingerprint (Runtime.runUnchecked)", () => {
    Runtime.runUnchecked(program, args)
  })
  bench("settle run via AlgalRuntime.run (Effect service, args validated)", () => {
    managed.runSync(service.run(program, args))
  })
  bench("settle receipt fingerprint alone (canonical receipt + sha256)", () => {
    Receipt.fingerprint(receipt)
  })
  bench("settle decision without receipt (two expr cells)", () => {
    decideWithoutReceipt()
  })
  bench("settle decision by hand (TypeScript baseline)", () => {
    byHand(args.src)
  })
})

describe(`canonical JSON + digest (${docBytes} bytes)`, () => {
  bench("Canonical.digest of a 10 KB document", () => {
    Canonical.digest(doc)
  })
  bench("reference: JSON.stringify of the same document (machine speed, not canonical)", () => {
    JSON.stringify(doc)
  })
})
