import { assert, describe, it } from "@effect/vitest"
import * as AlgalError from "@steward/algal-runtime/AlgalError"
import * as AuditError from "@steward/audit-state/AuditError"
import * as GovernanceError from "@steward/governance-rules/GovernanceError"
import * as SandboxProfile from "@steward/governance-rules/SandboxProfile"
import * as ReflexError from "@steward/reflex-core/ReflexError"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Cli from "../src/Cli.js"
import * as ErrorCodes from "../src/ErrorCodes.js"
import { runCli } from "./harness.js"

const doc = fs.readFileSync(path.join(import.meta.dirname, "../../../docs/cli.md"), "utf8")

describe("one error vocabulary", () => {
  it("every area's closed set of codes is mapped explicitly", () => {
    const areaCodes = [
      ...AlgalError.codes,
      ...AuditError.AuditErrorCode.literals,
      ...GovernanceError.codes,
      ...SandboxProfile.codes,
      ...ReflexError.codes
    ]
    for (const code of areaCodes) assert.isTrue(ErrorCodes.isMapped(code), `${code} has no CLI code`)
  })

  it("docs/cli.md lists every code with its exit code", () => {
    for (const [code, { exit }] of Object.entries(ErrorCodes.codes)) {
      assert.match(doc, new RegExp(`\\| \`${code}\` \\| ${exit} \\|`), code)
    }
  })

  it("docs/cli.md lists exactly the code's closed set of error codes and exit codes", () => {
    const section = (title: string) => {
      const start = doc.indexOf(`## ${title}\n`)
      assert.isAtLeast(start, 0, title)
      const end = doc.indexOf("\n## ", start + 1)
      return doc.slice(start, end === -1 ? undefined : end)
    }
    const documented = [...section("Error codes").matchAll(/^\| `([a-z-]+)` \| (\d+) \|/gm)].map((
      m
    ) => [m[1], Number(m[2])])
    assert.deepStrictEqual(
      Object.fromEntries(documented),
      Object.fromEntries(Object.entries(ErrorCodes.codes).map(([code, { exit }]) => [code, exit]))
    )
    const exits = [...section("Exit codes").matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]))
    // every exit a code can give is documented, and no other (143: SIGTERM, the other interruption)
    assert.deepStrictEqual(
      [...new Set(exits)].sort((a, b) => a - b),
      [...new Set([0, ...Object.values(ErrorCodes.codes).map((c) => c.exit), 143])].sort((a, b) => a - b)
    )
  })

  it("docs/cli.md names every area of the command tree", () => {
    const line = /Areas: ([^.]+)\./.exec(doc.replace(/\n/g, " "))
    assert.isNotNull(line)
    const listed = [...line![1]!.matchAll(/`([a-z]+)`/g)].map((m) => m[1])
    assert.deepStrictEqual(listed.sort(), Cli.areas.map((a) => a.name).sort())
  })

  it("an area code keeps its exit code; the CLI code agrees with it", () => {
    assert.strictEqual(ErrorCodes.toCli("GRAPH_CYCLE", 2), "invalid-input")
    assert.strictEqual(ErrorCodes.toCli("stale-revision", 1), "refused")
    assert.strictEqual(ErrorCodes.toCli("DIGEST_MISMATCH", 1), "mismatch")
    // an area that reports a normally-fatal code as a refusal: the exit code wins
    assert.strictEqual(ErrorCodes.toCli("MANIFEST_INVALID", 1), "refused")
    assert.strictEqual(ErrorCodes.toCli("not-a-known-code", 2), "internal")
  })

  it.live("--json errors carry a documented code and the area's code as reason", () =>
    Effect.gen(function*() {
      const missing = yield* runCli(["algal", "check", "/nonexistent/x.algal.json", "--json"])
      assert.strictEqual(missing.exitCode, 2)
      const error = missing.errorJson().error
      assert.isTrue(error.code in ErrorCodes.codes, error.code)
      assert.strictEqual(ErrorCodes.codes[error.code as ErrorCodes.Code].exit, missing.exitCode)
    }))
})
