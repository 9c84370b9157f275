import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
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
