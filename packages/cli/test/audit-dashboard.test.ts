/**
 * The audit dashboard a person decides from: the next step in `audit next`'s own words, the
 * independence warning `audit metrics` prints, and every finding with its title and status —
 * checked in the HTML and in real headless Chromium, with a screenshot for CI's artifacts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"
import { browse, chromium, decodePng, screenshot } from "./support/browser.js"

const full = fs.readFileSync(path.join(import.meta.dirname, "fixtures", "audit", "state.full.json"), "utf8")
const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** F-0002 closed by a verifier of the same provider (a degraded level), its title full of markup. */
const degraded = (): string => {
  const doc = JSON.parse(full)
  Object.assign(doc.findings[1], {
    status: "closed",
    next: "-",
    independence: "same-provider-different-session",
    title: "Cache key ignores <locale> & the tenant's \"id\""
  })
  return JSON.stringify(doc, null, 2)
}

const project = (state: string) =>
  Effect.gen(function*() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "steward-dash-"))
    fs.writeFileSync(path.join(dir, "state.json"), state)
    const run = yield* runCli(["audit", "--project", dir, "import-state", path.join(dir, "state.json")])
    assert.strictEqual(run.exitCode, 0, run.stderr)
    return dir
  })

const dashboard = (dir: string) =>
  Effect.gen(function*() {
    const run = yield* runCli(["audit", "--project", dir, "dashboard"])
    assert.strictEqual(run.exitCode, 0, run.stderr)
    return path.join(dir, "audit", "dashboard.html")
  })

describe("steward audit dashboard", () => {
  it.live(
    "lists the findings, says the next step as `next` does, and carries the independence warning",
    () =>
      Effect.gen(function*() {
        const dir = yield* project(degraded())
        const file = yield* dashboard(dir)
        const html = fs.readFileSync(file, "utf8")
        assert.notInclude(html.toLowerCase(), "<script")
        assert.notMatch(html, /\b(?:src|href)=/)

        // the next step: every line `audit next` prints (but its dry-run note) is on the page
        const next = yield* runCli(["audit", "--project", dir, "next", "--dry-run"])
        assert.strictEqual(next.exitCode, 0, next.stderr)
        const said = next.stdout.trim().split("\n").filter((l) => !l.startsWith("dry-run") && !l.startsWith("==="))
        assert.isAtLeast(said.length, 4)
        const nextSection = html.slice(html.indexOf("<section class=\"next\">"), html.indexOf("</section>"))
        for (const line of said.filter((l) => !l.startsWith("charter: "))) assert.include(nextSection, esc(line))
        assert.include(nextSection, "run-remediator")
        const charter = said.find((l) => l.startsWith("charter: "))
        if (charter !== undefined) assert.include(nextSection, esc(charter.slice("charter: ".length)))

        // the independence warning: the CLI's own line, flagged, and the ceiling
        const metrics = yield* runCli(["audit", "--project", dir, "metrics"])
        const line = metrics.stdout.split("\n").find((l) => l.startsWith("independence: "))!
        assert.include(line, "⚠ degraded")
        assert.include(html, `<code>${esc(line)}</code>`)
        assert.match(
          html,
          /<p class="warning independence" role="alert">⚠ 1 verdict\(s\) at a degraded independence level/
        )
        assert.include(html, "no level proves the absence of shared training data")

        // every finding with its title, severity and status (titles escaped)
        const doc = JSON.parse(degraded())
        const records = [...doc.findings, ...doc.class_findings]
        assert.include(html, `<h2>Findings (${records.length})</h2>`)
        for (const f of records) {
          assert.include(
            html,
            `<tr><td><code>${f.id}</code></td><td>${
              esc(f.title)
            }</td><td><span class="severity ${f.severity}">${f.severity}</span></td><td><span class="status ${f.status}">${f.status}</span></td>`
          )
        }

        // an audit with no degraded verdict carries no warning, and says there are none
        const clean = fs.readFileSync(yield* dashboard(yield* project(full)), "utf8")
        assert.notInclude(clean, "class=\"warning")
        assert.include(clean, "<code>independence: no verdicts</code>")
      }),
    { timeout: 120_000 }
  )

  it.live.skipIf(chromium === undefined && process.env.CI === undefined)(
    "renders in real headless Chromium with a screenshot",
    () =>
      Effect.gen(function*() {
        assert.isDefined(chromium, "chromium is not installed (.ci/run installs Debian's chromium)")
        const file = yield* dashboard(yield* project(degraded()))
        const dom = browse(["--dump-dom"], file)
        assert.include(dom, "<h2>Next step</h2>")
        assert.include(dom, "Cache key ignores &lt;locale&gt; &amp; the tenant's \"id\"")
        assert.match(dom, /class="warning independence" role="alert"/)
        const png = decodePng(fs.readFileSync(screenshot(file, "audit-dashboard.png", "1100,1400")))
        assert.strictEqual(png.width, 1100)
        // the next-step box's border and the warning's border are painted
        assert.isAbove(png.count("#1c7ed6"), 1000)
        assert.isAbove(png.count("#f08c00"), 1000)
      }),
    { timeout: 300_000 }
  )
})
