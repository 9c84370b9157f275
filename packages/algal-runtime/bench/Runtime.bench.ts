import { ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, bench, describe } from "vitest"
import * as AlgalRuntime from "../src/AlgalRuntime.js"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"
import * as Receipt from "../src/Receipt.js"
import * as Runtime from "../src/Runtime.js"

// The issue-3 targets are in Targets.bench.ts; these are the surrounding costs.
const settleJson = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, "../test/fixtures/xcb/settle.algal.json"), "utf8")
)
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
const receipt = Runtime.runUnchecked(program, args).receipt

const managed = ManagedRuntime.make(AlgalRuntime.layer)
const service = managed.runSync(AlgalRuntime.AlgalRuntime)
afterAll(() => managed.dispose())

describe("settle reflex: around the run", () => {
  bench("settle run via AlgalRuntime.run (Effect service, args validated)", () => {
    managed.runSync(service.run(program, args))
  })
  bench("settle receipt fingerprint alone (canonical receipt + sha256)", () => {
    Receipt.fingerprint(receipt)
  })
})
