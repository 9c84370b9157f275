import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

// The audit area speaks xcheck's grammar errors (spec §3, conformance case 54) with the CLI's
// closed code, and its generated LEDGER.md names this CLI's store and re-render command.

const tempProject = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-audit-grammar-"))

describe("steward audit — xcheck's grammar", () => {
  it.effect("an unknown token, a second command, a missing value, a non-integer, a flag of another verb", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string, string]> = [
        [["audit", "--banana", "status"], "unknown arg: --banana (see --help)", "--banana"],
        [["audit", "status", "--banana"], "unknown arg: --banana (see --help)", "--banana"],
        [["audit", "status", "metrics"], "multiple commands: 'status' and 'metrics' (only one allowed)", ""],
        [["audit", "status", "--project"], "--project requires a DIR value", "--project"],
        [["audit", "set-status", "F-0001", "accepted", "--expect-revision", "banana"], "must be an integer", ""],
        [["audit", "metrics", "--expect-revision", "3"], "--expect-revision is not valid for command 'metrics'", ""]
      ]
      for (const [args, phrase, option] of cases) {
        const text = yield* runCli(args)
        assert.strictEqual(text.exitCode, 2, args.join(" "))
        assert.include(text.stderr, phrase, args.join(" "))
        const json = yield* runCli([...args, "--json"])
        assert.strictEqual(json.exitCode, 2)
        assert.strictEqual(json.stdout, "")
        const error = json.errorJson().error
        assert.strictEqual(error.code, "usage", args.join(" "))
        assert.include(error.message, phrase)
        if (option !== "") assert.strictEqual(error.details.option, option)
      }
      const elsewhere = (yield* runCli(["audit", "metrics", "--expect-revision", "3", "--json"])).errorJson().error
      assert.include(elsewhere.details.commands, "set-status")
      // a likely typo still names the nearest valid option, as everywhere else
      const typo = yield* runCli(["audit", "status", "--porject", "x"])
      assert.include(typo.stderr, "unknown option --porject (did you mean --project?)")
      // other areas keep their wording
      const algal = yield* runCli(["algal", "check", "--banana", "x.json"])
      assert.include(algal.stderr, "unknown option --banana for steward algal check")
    }))

  it.effect("LEDGER.md names the store it comes from and `steward audit render-views`", () =>
    Effect.gen(function*() {
      const project = tempProject()
      assert.strictEqual((yield* runCli(["audit", "init", "--project", project])).exitCode, 0)
      const ledger = fs.readFileSync(path.join(project, "audit/LEDGER.md"), "utf8")
      assert.include(ledger, "GENERATED FROM audit/state.sqlite")
      assert.include(ledger, "`steward audit render-views`")
      assert.notInclude(ledger, "xcheck")
      // five banner lines, as xcheck's: the table header is on line 9, the first row on line 11
      assert.strictEqual(ledger.split("\n")[8], "| id | title | severity | status | next | updated |")
      // the view verifies against itself (status reads it back without drift) ...
      assert.strictEqual((yield* runCli(["audit", "status", "--project", project])).exitCode, 0)
      // ... and an xcheck-rendered LEDGER.md is drift this CLI repairs with render-views
      fs.writeFileSync(path.join(project, "audit/LEDGER.md"), ledger.replace("audit/state.sqlite", "audit/state.json"))
      const drift = yield* runCli(["audit", "status", "--project", project, "--json"])
      assert.strictEqual(drift.errorJson().error.code, "mismatch")
      assert.include(drift.errorJson().error.message, "steward audit render-views")
      assert.strictEqual((yield* runCli(["audit", "render-views", "--project", project])).exitCode, 0)
      assert.strictEqual(fs.readFileSync(path.join(project, "audit/LEDGER.md"), "utf8"), ledger)
    }))
})
