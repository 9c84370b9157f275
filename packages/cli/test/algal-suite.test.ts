import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

/** The original runtime's published outputs, as algal-runtime's conformance suite holds them. */
const corpusDir = path.join(import.meta.dirname, "..", "..", "algal-runtime", "test", "fixtures", "conformance")
const examplesDir = path.join(corpusDir, "..", "algal", "examples")

const lines = (name: string): Array<any> =>
  fs.readFileSync(path.join(corpusDir, name), "utf8").trim().split("\n").map((l) => JSON.parse(l))

/** A corpus directory laid out as the original's: `<root>/conformance/<name>` with files under `<root>/`. */
const corpus = (name: string, cases: ReadonlyArray<unknown>, files: Record<string, string> = {}): string => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "steward-suite-"))
  fs.mkdirSync(path.join(root, "conformance"))
  for (const [file, source] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.copyFileSync(source, path.join(root, file))
  }
  const file = path.join(root, "conformance", name)
  fs.writeFileSync(file, cases.map((c) => JSON.stringify(c)).join("\n") + "\n")
  return file
}

describe("steward algal suite", () => {
  it.live("the original's random-organism corpus agrees in full (exit 0)", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["algal", "suite", path.join(corpusDir, "organisms.jsonl")])
      assert.strictEqual(run.exitCode, 0, run.stdout + run.stderr)
      assert.include(
        run.stdout,
        `organisms: ${lines("organisms.jsonl").length}/${lines("organisms.jsonl").length} agree`
      )
      assert.include(run.stdout, "full agreement")
    }), { timeout: 120_000 })

  it.live("file cases load the example (and its embedded manifests) from the corpus's parent directory", () =>
    Effect.gen(function*() {
      const cases = lines("fixtures.jsonl").filter((c) => c.file.startsWith("algal/examples/"))
      const files = Object.fromEntries(
        fs.readdirSync(examplesDir).filter((n) => n.endsWith(".algal.json")).map((
          n
        ) => [`algal/examples/${n}`, path.join(examplesDir, n)])
      )
      const run = yield* runCli(["algal", "suite", corpus("fixtures.jsonl", cases, files), "--json"])
      assert.strictEqual(run.exitCode, 0, run.stdout + run.stderr)
      assert.deepStrictEqual(run.json().tallies, { fixtures: { cases: cases.length, agree: cases.length } })
    }))

  it.live("a differing case is named with its first difference, and the suite exits 1", () =>
    Effect.gen(function*() {
      const [good, other] = lines("expr.jsonl")
      const wrong = { ...other, id: "tampered", expect: { ...other.expect, fuel: other.expect.fuel + 1 } }
      const run = yield* runCli(["algal", "suite", corpus("expr.jsonl", [good, wrong])])
      assert.strictEqual(run.exitCode, 1)
      assert.include(run.stdout, "expr: 1/2 agree")
      assert.include(run.stdout, "DIFF tampered (expr)")
      assert.include(run.stdout, `fuel: expected ${other.expect.fuel + 1}, got ${other.expect.fuel}`)
      const receipt = lines("organisms.jsonl").find((c) => c.expect.receipt !== undefined)
      const altered = { ...receipt, args: {}, id: "altered" }
      const organisms = yield* runCli(["algal", "suite", corpus("organisms.jsonl", [altered]), "--json"])
      assert.strictEqual(organisms.exitCode, 1)
      assert.strictEqual(organisms.json().failures[0].id, "altered")
      assert.match(organisms.json().failures[0].differences[0].field, /^receipt \$\./)
    }))

  it.live("a line that is not a case is refused with its line number (exit 2)", () =>
    Effect.gen(function*() {
      const file = corpus("expr.jsonl", [lines("expr.jsonl")[0]])
      fs.appendFileSync(file, "{\"id\": 3}\n")
      const run = yield* runCli(["algal", "suite", file, "--json"])
      assert.strictEqual(run.exitCode, 2)
      const error = run.errorJson().error
      assert.strictEqual(error.reason ?? error.code, "PARSE_FAILED")
      assert.include(error.message, "line 2")
    }))
})
