/**
 * One corpus file as a test: replay every sequence, print the agreement per category, and fail
 * on any divergence (the first few are shown). `CONFORMANCE_DUMP=DIR` writes every divergence.
 */
import { assert, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { load } from "./corpus.js"
import { runSequence } from "./driver.js"
import { compare, summary } from "./report.js"

export const conformance = (file: string) =>
  it.live(`${file}: every sequence agrees with xcheck 0.9.5 in every category`, () =>
    Effect.gen(function*() {
      const sequences = load(file)
      assert.isAbove(sequences.length, 0)
      const runs = yield* Effect.forEach(sequences, runSequence, { concurrency: 2 })
      const report = compare(runs)
      console.log(summary(file, report))
      const dump = process.env.CONFORMANCE_DUMP
      if (dump !== undefined) {
        fs.writeFileSync(path.join(dump, `${file}.divergences.json`), JSON.stringify(report.divergences, null, 1))
      }
      // steps README marks as the original's own bugs are skipped with their reason, never compared
      for (const s of report.skipped) assert.isAbove(s.reason.length, 0)
      assert.deepStrictEqual(report.divergences.slice(0, 3), [])
      assert.strictEqual(report.fullyAgreeing, report.sequences)
    }), 1_800_000)
