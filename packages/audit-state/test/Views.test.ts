import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Project from "../src/Project.js"
import * as State from "../src/State.js"
import * as Views from "../src/Views.js"
import { finding, fixture, harness } from "./helpers.js"

describe("Views (§5.4, §8.2 41–42)", () => {
  it("renders LEDGER.example.md exactly", () => {
    const doc = Effect.runSync(State.decodeText(harness((d) => {
      d.findings[0].status = "accepted"
      d.findings.push(finding("F-0002", { status: "fixed", fixed_by: "1111111111111111" }))
    })))
    assert.strictEqual(Views.renderLedger(doc), fixture("views/LEDGER.example.md"))
  })

  it("renders the frontmatter example and preserves the body byte for byte", () => {
    const r = finding("F-0001", { status: "accepted" }) as State.Finding
    const expected = fixture("views/findings-F-0001.example.md")
    assert.strictEqual(Views.applyFrontmatter("Evidence body.\n", r), expected)
    assert.strictEqual(Views.applyFrontmatter(expected, r), expected, "rendering twice is a no-op")
    const reported = Views.applyFrontmatter(expected, { ...r, status: "reported" })
    assert.include(reported, "status: reported")
    assert.isTrue(reported.endsWith("\nEvidence body.\n"))
  })

  it("cells escape pipes and backslashes; lists render bare or bracketed", () => {
    const doc = Effect.runSync(State.decodeText(harness((d) => (d.findings[0].title = "a | b \\ c"))))
    assert.include(Views.renderLedger(doc), "| a \\| b \\\\ c |")
    const block = Views.renderFrontmatter({ ...(finding("F-0001") as State.Finding), unit: ["U01", "U02"] })
    assert.include(block, "unit: [U01, U02]")
  })

  it("compare finds the first drifted line, ignoring trailing whitespace", () => {
    assert.isUndefined(Views.compare("LEDGER.md", "a  \nb\n", "a\nb\n"))
    assert.deepStrictEqual(Views.compare("LEDGER.md", "a\nX\n", "a\nb\n"), {
      file: "LEDGER.md",
      line: 2,
      found: "X",
      expected: "b"
    })
    assert.strictEqual(Views.compare("LEDGER.md", undefined, "a")?.found, "the file is missing")
  })
})

describe("the frontmatter banner is the host's (issue 15)", () => {
  const banner = ["# GENERATED FROM the host's store — DO NOT EDIT THIS BLOCK", "# re-render with `host render-views`"]
  const r = finding("F-0001", { status: "accepted" }) as State.Finding

  it("defaults to xcheck's two lines naming state.json, byte for byte", () => {
    assert.strictEqual(Views.renderFrontmatter(r), Views.renderFrontmatter(r, Views.FRONTMATTER_BANNER))
    assert.strictEqual(Views.applyFrontmatter("Evidence body.\n", r), fixture("views/findings-F-0001.example.md"))
    assert.include(Views.renderFrontmatter(r), "# GENERATED FROM audit/state.json — DO NOT EDIT THIS BLOCK\n")
  })

  it("a host's banner replaces those lines and nothing else", () => {
    const mine = Views.applyFrontmatter("Evidence body.\n", r, banner)
    const lines = mine.split("\n")
    assert.deepStrictEqual(lines.slice(0, 3), ["---", ...banner])
    assert.notInclude(mine, "state.json")
    const xcheck = fixture("views/findings-F-0001.example.md").split("\n")
    assert.deepStrictEqual(lines.slice(3), xcheck.slice(3), "fields and body as xcheck renders them")
  })

  it.effect("views rendered with the host's banner agree with its paths and drift from xcheck's", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "views-banner-"))
      const doc = yield* State.decodeText(harness())
      const host = Project.paths(dir, { frontmatterBanner: banner })
      yield* Project.renderViews(host, doc)
      const body = fs.readFileSync(path.join(dir, "audit/findings/F-0001.md"), "utf8")
      assert.isTrue(body.startsWith(["---", ...banner].join("\n") + "\n"))
      assert.deepStrictEqual(yield* Project.verifyViews(host, doc), [])
      const drift = yield* Project.verifyViews(Project.paths(dir), doc)
      assert.deepStrictEqual(drift.map((d) => [d.file, d.line]), [["findings/F-0001.md", 2]])
    }))
})
