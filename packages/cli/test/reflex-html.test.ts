import { assert, describe, it } from "@effect/vitest"
import * as Learning from "@steward/reflex-core/Learning"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { colours } from "../src/commands/reflex/html.js"
import { runCli } from "./harness.js"
import { browse, chromium, decodePng, layout, screenshot } from "./support/browser.js"

// The synthetic history of examples/data (copied so this package stands alone): the stopped_short
// head certifies at 0.65; confirm does not, and ranks its turns below chance (AUC 0.457).
const history = path.join(import.meta.dirname, "fixtures", "reflex", "settle-history.jsonl")
const lines: ReadonlyArray<{ id: string; head: string; label: boolean }> = fs.readFileSync(history, "utf8")
  .split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))

/** One head's section of the page. */
const section = (html: string, id: string): string => {
  const from = html.indexOf(`<section class="head" id="${id}">`)
  assert.isAbove(from, -1, id)
  return html.slice(from, html.indexOf("</section>", from))
}

const imported = (dir: string) =>
  Effect.gen(function*() {
    const run = yield* runCli(["reflex", "import", "settle", history, "--json", "--state-dir", dir])
    assert.strictEqual(run.exitCode, 0, run.stderr)
    return run.json().certificates as ReadonlyArray<any>
  })

describe("steward reflex status --html", () => {
  it.live(
    "writes a self-contained page per head: curves, chance warning, what certifying takes, misfires",
    () =>
      Effect.gen(function*() {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "steward-html-"))
        const certificates = yield* imported(dir)
        const file = path.join(dir, "status.html")
        const status = yield* runCli(["reflex", "status", "--html", file, "--state-dir", dir])
        assert.strictEqual(status.exitCode, 0, status.stderr)
        assert.include(status.stdout, `wrote the status page ${file}`)
        const html = fs.readFileSync(file, "utf8")
        assert.notInclude(html, "<script")
        assert.notMatch(html, /\b(?:src|href)=/) // nothing to fetch: styles and charts are inline
        for (const head of ["route-judged", "route-plain", "settle-stopped_short", "settle-confirm"]) {
          assert.include(html, `id="${head}"`)
        }

        const stoppedShort = section(html, "settle-stopped_short")
        const cert = certificates.find((c) => c.head === "stopped_short")
        assert.include(stoppedShort, "certified at threshold <strong class=\"threshold\">0.65</strong>")
        // the ladder row at the certified threshold is the certificate's own evidence
        assert.include(stoppedShort, `<td>0.65</td><td>${cert.fired}</td>`)
        assert.include(stoppedShort, `<td>${cert.precision}</td><td>${cert.lower}</td>`)
        assert.include(stoppedShort, "certified here")
        // coverage is a share of the window, never "— of 300"
        assert.include(stoppedShort, `Coverage at the certified threshold 0.65: <strong>60.0%</strong> (360 of 600`)
        assert.include(stoppedShort, `class="certified-threshold"`)
        assert.notInclude(stoppedShort, "At or below chance")

        const confirm = section(html, "settle-confirm")
        const c = certificates.find((x) => x.head === "confirm")
        assert.include(confirm, "not certified — precision not yet confidently at 0.85")
        assert.match(confirm, /<p class="warning chance" role="alert">⚠ At or below chance: [^<]*AUC 0\.457/)
        assert.include(confirm, `class="head-threshold"`) // the head's own threshold, marked grey
        const gap = Learning.toCertify(c.fired, c.precision, 0.85)
        assert.isNull(gap.moreFired, "0.56 precision never certifies at a 0.85 floor")
        assert.include(confirm, "What it would take to certify")
        assert.include(confirm, `precision ≥ ${gap.precisionNeeded} at this count`)

        // misfires: turns scored over the threshold that the person labeled no — checked against the history
        for (const [head, text] of [["stopped_short", stoppedShort], ["confirm", confirm]] as const) {
          const subjects = [...text.matchAll(/<td><code>import:([^<]+)<\/code><\/td>/g)].map((m) => m[1]!)
          assert.isAbove(subjects.length, 0, `${head} shows misfires`)
          for (const id of subjects) {
            const line = lines.find((l) => l.id === id)
            assert.isDefined(line, id)
            assert.deepStrictEqual([line!.head, line!.label], [head, false], `${id} is a wrong fire of ${head}`)
          }
        }
        assert.include(html, "Generation history")

        // --json keeps the status document unchanged
        const json = yield* runCli(["reflex", "status", "settle", "--json", "--html", file, "--state-dir", dir])
        assert.strictEqual(json.json()[0].reflex, "settle")
        const unwritable = yield* runCli([
          "reflex",
          "status",
          "--html",
          path.join(dir, "no", "such", "dir.html"),
          "--state-dir",
          dir
        ])
        assert.strictEqual(unwritable.exitCode, 2)
        assert.include(unwritable.stderr, "cannot write the status page")
      }),
    { timeout: 240_000 }
  )

  it.live.skipIf(chromium === undefined && process.env.CI === undefined)(
    "renders in real headless Chromium: curves, marks and labels that never overlap, with a screenshot",
    () =>
      Effect.gen(function*() {
        assert.isDefined(chromium, "chromium is not installed (.ci/run installs Debian's chromium)")
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "steward-html-"))
        yield* imported(dir)
        const file = path.join(dir, "status.html")
        const status = yield* runCli(["reflex", "status", "settle", "--html", file, "--state-dir", dir])
        assert.strictEqual(status.exitCode, 0, status.stderr)

        const dom = browse(["--dump-dom"], file)
        assert.strictEqual((dom.match(/<svg class="chart reliability"/g) ?? []).length, 2)
        assert.strictEqual((dom.match(/<svg class="chart curves"/g) ?? []).length, 2)
        for (const cls of ["precision", "lower", "coverage"]) {
          assert.strictEqual((dom.match(new RegExp(`<path class="${cls}" d="M`, "g")) ?? []).length, 2, cls)
        }
        assert.strictEqual((dom.match(/class="certified-threshold"/g) ?? []).length, 1)
        assert.include(dom, "certified at threshold <strong class=\"threshold\">0.65</strong>")
        assert.include(dom, "At or below chance")

        // every chart label inside its chart, none on another, and large enough to read
        for (const width of [1200, 800]) {
          const measured = layout(file, width)
          assert.isAbove(measured.texts, 40)
          assert.deepStrictEqual(measured.overlaps, [], `overlapping labels at ${width}px`)
          assert.deepStrictEqual(measured.clipped, [], `labels outside their chart at ${width}px`)
          assert.isAtLeast(measured.minHeight, 11, "axis and tick labels at least 11 px tall")
        }

        const png = decodePng(fs.readFileSync(screenshot(file, "reflex-status.png", "1200,3600")))
        assert.strictEqual(png.width, 1200)
        // painted marks in their own colours: the three curves, the floor, the certified and grey thresholds
        assert.isAbove(png.count(colours.precision), 300)
        assert.isAbove(png.count(colours.lower), 150)
        assert.isAbove(png.count(colours.coverage), 300)
        assert.isAbove(png.count(colours.floor), 200)
        assert.isAbove(png.count(colours.certified), 300)
        assert.isAbove(png.count(colours.threshold), 300)
      }),
    { timeout: 300_000 }
  )
})
