/**
 * The original ALGAL runtime's published outputs (test/fixtures/conformance, see its README): every
 * case must agree — expression values, codes and fuel; malformed manifests' stage and code; random
 * organisms' manifest digest and receipt text (or rejection code); the example fixtures with and
 * without effects. A failure names each disagreeing case and its first differing field.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AlgalError from "../src/AlgalError.js"
import * as Conformance from "../src/Conformance.js"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"
import { fixturesDir } from "./helpers.js"

const corpusDir = path.join(fixturesDir, "conformance")

const findByName = (dir: string, name: string): string | undefined => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) {
      const found = findByName(full, name)
      if (found !== undefined) return found
    } else if (entry.name === name) return full
  }
  return undefined
}

/** A case's file is relative to the corpus's parent directory (bare names are searched for there). */
export const load = (file: string) =>
  Effect.suspend(() => {
    const direct = path.join(fixturesDir, file)
    const found = fs.existsSync(direct) ? direct : findByName(fixturesDir, path.basename(file))
    if (found === undefined) return Effect.fail(AlgalError.make("INPUT_MISSING", `no file ${file}`))
    const dir = path.dirname(found)
    const siblings = fs.readdirSync(dir).filter((n) => n.endsWith(".algal.json")).flatMap((n) => {
      const parsed = Manifest.parseSync(JSON.parse(fs.readFileSync(path.join(dir, n), "utf8")))
      return parsed.ok ? [parsed.manifest] : []
    })
    return Effect.succeed({
      manifest: JSON.parse(fs.readFileSync(found, "utf8")),
      manifests: Program.resolverOf(siblings)
    })
  })

const describeFailures = (report: Conformance.Report): string =>
  report.failures.slice(0, 25).map((f) =>
    `${f.id}: ` + f.differences.map((d) => `${d.field} expected ${d.expected} got ${d.actual}`).join("; ")
  ).join("\n")

describe("Conformance with the original runtime's outputs", () => {
  for (const category of Conformance.categories) {
    it.effect(`${category}.jsonl agrees case by case`, () =>
      Effect.gen(function*() {
        const text = fs.readFileSync(path.join(corpusDir, `${category}.jsonl`), "utf8")
        const report = yield* Conformance.runSuite(text, { category, load })
        const tally = report.tallies[category]!
        console.log(`${category}: ${tally.agree}/${tally.cases} agree`)
        assert.strictEqual(tally.cases, text.trim().split("\n").length)
        assert.deepStrictEqual(
          report.failures.map((f) => f.id),
          [],
          `${category}: ${tally.agree}/${tally.cases} agree\n${describeFailures(report)}`
        )
      }), { timeout: 120_000 })
  }
})
