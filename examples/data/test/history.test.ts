import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { DEFAULT_SEED, generate, readTemplates } from "../generate.mjs"

const here = dirname(dirname(fileURLToPath(import.meta.url)))
const history = join(here, "settle-history.jsonl")
const require = createRequire(import.meta.url)
const bin = join(dirname(require.resolve("@steward/cli/package.json")), "src", "bin.ts")

/** The real CLI from source (tsx), as `pnpm steward` runs it. */
const steward = (args: ReadonlyArray<string>): any =>
  JSON.parse(
    execFileSync(process.execPath, ["--import", "tsx", bin, ...args], { encoding: "utf8", cwd: here, stdio: "pipe" })
  )

const certificate = (report: any, head: string) => report.certificates.find((c: any) => c.head === head)

describe("settle-history.jsonl", () => {
  it("is exactly what the script generates from templates.json with the default seed", () => {
    assert.strictEqual(generate(readTemplates(), DEFAULT_SEED), readFileSync(history, "utf8"))
    assert.notStrictEqual(generate(readTemplates(), DEFAULT_SEED + 1), readFileSync(history, "utf8"))
  })

  it("has the documented size and heads", () => {
    const lines = readFileSync(history, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
    const templates = readTemplates()
    assert.strictEqual(lines.length, templates.kinds.reduce((n: number, kind: any) => n + kind.count, 0))
    assert.strictEqual(new Set(lines.map((line) => line.id)).size, lines.length)
    assert.deepStrictEqual([...new Set(lines.map((line) => line.head))].sort(), ["confirm", "unfinished"])
  })

  it(
    "a real `steward reflex import` certifies the continue head and not the confirm head",
    { timeout: 240_000 },
    () => {
      const state = mkdtempSync(join(tmpdir(), "steward-data-"))
      const dry = steward(["reflex", "import", "settle", history, "--dry-run", "--json", "--state-dir", state])
      assert.strictEqual(dry.inserted, 0)
      const report = steward(["reflex", "import", "settle", history, "--json", "--state-dir", state])
      assert.strictEqual(report.inserted, 900)
      for (const result of [dry, report]) {
        const unfinished = certificate(result, "unfinished")
        const confirm = certificate(result, "confirm")
        assert.isTrue(unfinished.certified)
        assert.isAtLeast(unfinished.lower, 0.75)
        assert.isAtLeast(unfinished.fired, 30)
        assert.isFalse(confirm.certified)
        assert.isBelow(confirm.lower, 0.85)
        assert.isAtLeast(confirm.fired, 30) // enough evidence: refused on precision, not for lack of turns
      }
      const status = steward(["reflex", "status", "--json", "--state-dir", state])
      const settle = status.find((row: any) => row.reflex === "settle")
      const heads = Object.fromEntries(settle.heads.map((head: any) => [head.head, head]))
      assert.isTrue(heads.unfinished.certificate.certified)
      assert.isFalse(heads.confirm.certificate.certified)
    }
  )
})
