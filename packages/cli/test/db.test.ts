import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-db-"))

/** A state directory with reflex history in its SQLite database. */
const populated = Effect.gen(function*() {
  const state = tempDir()
  for (const text of ["I stopped before the tests", "Done. All green.", "Should I go ahead and deploy?"]) {
    const run = yield* runCli([
      "reflex",
      "decide",
      "settle",
      "--text",
      text,
      "--tool-calls",
      "12",
      "--json",
      "--state-dir",
      state
    ])
    assert.strictEqual(run.exitCode, 0, run.stderr)
  }
  const decided = yield* runCli([
    "reflex",
    "decide",
    "settle",
    "--text",
    "I stopped short",
    "--tool-calls",
    "12",
    "--json",
    "--state-dir",
    state
  ])
  const label = yield* runCli([
    "reflex",
    "label",
    "settle",
    decided.json().observation,
    "stopped_short",
    "--json",
    "--state-dir",
    state
  ])
  assert.strictEqual(label.exitCode, 0, label.stderr)
  return state
})

/** Run with `$STEWARD_DATABASE_URL` set for the duration of one in-process command. */
const withDatabaseUrl = <A, E, R>(url: string, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const before = process.env.STEWARD_DATABASE_URL
      process.env.STEWARD_DATABASE_URL = url
      return before
    }),
    () => effect,
    (before) =>
      Effect.sync(() => {
        if (before === undefined) delete process.env.STEWARD_DATABASE_URL
        else process.env.STEWARD_DATABASE_URL = before
      })
  )

const skip = SqlBackends.postgresSkipReason

describe.skipIf(skip !== undefined)(`steward db copy (PostgreSQL) ${skip ?? ""}`, () => {
  it.live(
    "copies a populated state, verifies it, is idempotent, and the CLI reads the same status from it",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const state = yield* populated
        const url = yield* SqlBackends.freshPostgresDatabase()
        const first = yield* runCli(["db", "copy", "--to", url, "--json", "--state-dir", state])
        assert.strictEqual(first.exitCode, 0, first.stderr)
        const report = first.json()
        assert.strictEqual(report.outcome, "copied")
        const observations = report.tables.find((t: any) => t.table === "reflex_observations")
        assert.deepInclude(observations, { rows: 4, copied: 4, verified: true })
        assert.isTrue(report.tables.some((t: any) => t.table === "reflex_labels" && t.rows >= 1))

        const again = yield* runCli(["db", "copy", "--to", url, "--json", "--state-dir", state])
        assert.strictEqual(again.exitCode, 0, again.stderr)
        assert.strictEqual(again.json().outcome, "already-copied")

        const local = yield* runCli(["reflex", "status", "--json", "--state-dir", state])
        const shared = yield* withDatabaseUrl(url, runCli(["reflex", "status", "--json", "--state-dir", tempDir()]))
        assert.strictEqual(shared.exitCode, 0, shared.stderr)
        assert.deepStrictEqual(shared.json(), local.json())
      })),
    { timeout: 120_000 }
  )

  it.live(
    "refuses a target holding other rows unless told to merge; a refused copy writes nothing",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const state = yield* populated
        const url = yield* SqlBackends.freshPostgresDatabase()
        assert.strictEqual((yield* runCli(["db", "copy", "--to", url, "--json", "--state-dir", state])).exitCode, 0)
        const more = yield* runCli([
          "reflex",
          "decide",
          "settle",
          "--text",
          "Shall I continue?",
          "--tool-calls",
          "3",
          "--json",
          "--state-dir",
          state
        ])
        assert.strictEqual(more.exitCode, 0, more.stderr)
        // another host writes to the shared database in the meantime
        const other = yield* withDatabaseUrl(
          url,
          runCli([
            "reflex",
            "decide",
            "settle",
            "--text",
            "All done here.",
            "--tool-calls",
            "4",
            "--json",
            "--state-dir",
            tempDir()
          ])
        )
        assert.strictEqual(other.exitCode, 0, other.stderr)

        const refused = yield* runCli(["db", "copy", "--to", url, "--json", "--state-dir", state])
        assert.strictEqual(refused.exitCode, 1)
        assert.include(refused.errorJson().error.message, "not empty")
        const before = yield* withDatabaseUrl(url, runCli(["reflex", "status", "--json", "--state-dir", tempDir()]))

        const merged = yield* runCli(["db", "copy", "--to", url, "--merge", "--json", "--state-dir", state])
        assert.strictEqual(merged.exitCode, 0, merged.stderr)
        assert.strictEqual(merged.json().outcome, "merged")
        const observations = merged.json().tables.find((t: any) => t.table === "reflex_observations")
        assert.deepInclude(observations, { rows: 5, copied: 1, verified: true })
        const after = yield* withDatabaseUrl(url, runCli(["reflex", "status", "--json", "--state-dir", tempDir()]))
        assert.notDeepEqual(after.json(), before.json())
      })),
    { timeout: 120_000 }
  )
})

const auditFixtures = path.resolve(import.meta.dirname, "../../audit-state/test/fixtures")

/** An audit project (folder `name`) holding the minimal harness state, imported into its SQLite store. */
const auditProject = (name: string) =>
  Effect.gen(function*() {
    const project = path.join(tempDir(), name)
    fs.mkdirSync(project)
    const file = path.join(project, "state.json")
    fs.copyFileSync(path.join(auditFixtures, "state/harness-minimal.json"), file)
    const run = yield* runCli(["audit", "--project", project, "import-state", file, "--json"])
    assert.strictEqual(run.exitCode, 0, run.stderr)
    return project
  })

describe.skipIf(skip !== undefined)(`steward db copy of the demo's state (PostgreSQL) ${skip ?? ""}`, () => {
  it.live(
    "the demo's state and an audit project move into PostgreSQL; the CLI reads the same status, certificates, sessions and audit next there",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const demo = yield* runCli(["demo", "--json", "--state-dir", tempDir()])
        assert.strictEqual(demo.exitCode, 0, demo.stderr)
        const state: string = demo.json().stateDir
        const project = yield* auditProject("shop-api")
        const url = yield* SqlBackends.freshPostgresDatabase()

        const copyAll = runCli(["db", "copy", "--to", url, "--audit-project", project, "--json", "--state-dir", state])
        const copied = yield* copyAll
        assert.strictEqual(copied.exitCode, 0, copied.stderr)
        const report = copied.json()
        assert.strictEqual(report.outcome, "copied")
        assert.isTrue(report.tables.every((t: any) => t.verified))
        assert.isTrue(report.tables.some((t: any) => t.table === "harness_events" && t.rows > 0))
        assert.lengthOf(report.audit, 1)
        assert.deepInclude(report.audit[0], { schema: "steward_audit_shop_api", outcome: "copied", chain: "intact" })

        // read back: the same answers from the team database as from the local state
        const same = (args: ReadonlyArray<string>) =>
          Effect.gen(function*() {
            const local = yield* runCli([...args, "--json", "--state-dir", state])
            const shared = yield* withDatabaseUrl(url, runCli([...args, "--json", "--state-dir", tempDir()]))
            assert.strictEqual(local.exitCode, 0, local.stderr)
            assert.strictEqual(shared.exitCode, 0, shared.stderr)
            assert.deepStrictEqual(shared.json(), local.json(), args.join(" "))
            return shared.json()
          })
        const status = yield* same(["reflex", "status"])
        const settle = status.find((r: any) => r.reflex === "settle")
        assert.isNotNull(settle.heads.find((h: any) => h.head === "stopped_short").certificate, "the certificate moved")
        yield* same(["session", "list"])
        const next = yield* same(["audit", "--project", project, "next"])
        assert.strictEqual(next.decision.kind, "run-auditor")

        // copying again is a no-op, the audit project included
        const again = yield* copyAll
        assert.strictEqual(again.exitCode, 0, again.stderr)
        assert.strictEqual(again.json().outcome, "already-copied")
        assert.strictEqual(again.json().audit[0].outcome, "already-copied")
      })),
    { timeout: 400_000 }
  )

  it.live(
    "two audit projects share one database, each in its own schema; a key can be given by name",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const url = yield* SqlBackends.freshPostgresDatabase()
        const first = yield* auditProject("billing")
        const second = path.join(tempDir(), "billing-checkout")
        fs.mkdirSync(second)
        const inFirst = yield* withDatabaseUrl(url, runCli(["audit", "--project", first, "init", "--json"]))
        assert.strictEqual(inFirst.exitCode, 0, inFirst.stderr)
        assert.include(inFirst.json().database, "schema steward_audit_billing")
        const inSecond = yield* withDatabaseUrl(url, runCli(["audit", "--project", second, "init", "--json"]))
        assert.include(inSecond.json().database, "schema steward_audit_billing_checkout")
        // a checkout whose folder name differs names the team's key
        const elsewhere = path.join(tempDir(), "my-clone")
        fs.mkdirSync(elsewhere)
        const before = process.env.STEWARD_AUDIT_PROJECT
        process.env.STEWARD_AUDIT_PROJECT = "billing"
        // a fresh clone renders the shared state's views (a team commits them; here it has none yet)
        const viaKey = yield* withDatabaseUrl(
          url,
          Effect.zipRight(
            runCli(["audit", "--project", elsewhere, "render-views", "--json"]),
            runCli(["audit", "--project", elsewhere, "status", "--json"])
          )
        ).pipe(
          Effect.ensuring(Effect.sync(() => {
            if (before === undefined) delete process.env.STEWARD_AUDIT_PROJECT
            else process.env.STEWARD_AUDIT_PROJECT = before
          }))
        )
        assert.strictEqual(viaKey.exitCode, 0, viaKey.stderr)
        assert.strictEqual(viaKey.json().state_revision, inFirst.json().state_revision)
        // a project folder with no state in the shared database names the schema it looked in
        const nobody = path.join(tempDir(), "nobody")
        fs.mkdirSync(nobody)
        const missing = yield* withDatabaseUrl(url, runCli(["audit", "--project", nobody, "status", "--json"]))
        assert.strictEqual(missing.exitCode, 2)
        assert.include(missing.errorJson().error.message, "schema steward_audit_nobody")
        assert.notInclude(missing.stderr, "password")
      })),
    { timeout: 120_000 }
  )
})

describe.skipIf(skip !== undefined)(`database selection (PostgreSQL) ${skip ?? ""}`, () => {
  it.live(
    "--database-url beats $STEWARD_DATABASE_URL beats config.json; doctor names the database and each store",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const flagUrl = yield* SqlBackends.freshPostgresDatabase()
        const configUrl = yield* SqlBackends.freshPostgresDatabase()
        const state = tempDir()
        fs.writeFileSync(path.join(state, "config.json"), JSON.stringify({ database: { url: configUrl } }))
        const fromConfig = yield* runCli(["doctor", "--json", "--state-dir", state])
        assert.strictEqual(fromConfig.exitCode, 0, fromConfig.stderr)
        assert.deepInclude(fromConfig.json().database, { kind: "postgres", source: "config", url: configUrl })
        assert.isUndefined(fromConfig.json().sqlite)
        assert.deepInclude(fromConfig.json().database.stores[0], { store: "host", applied: 1 })

        const fromEnv = yield* withDatabaseUrl(flagUrl, runCli(["doctor", "--json", "--state-dir", state]))
        assert.deepInclude(fromEnv.json().database, { source: "env", url: flagUrl })
        const fromFlag = yield* withDatabaseUrl(
          configUrl,
          runCli(["doctor", "--json", "--state-dir", state, "--database-url", flagUrl])
        )
        assert.deepInclude(fromFlag.json().database, { source: "flag", url: flagUrl })
        // a reflex decision through the flag lands in that database and is read back from it
        const decided = yield* runCli([
          "reflex",
          "decide",
          "settle",
          "--text",
          "I stopped before the tests",
          "--tool-calls",
          "5",
          "--json",
          "--state-dir",
          tempDir(),
          `--database-url=${flagUrl}`
        ])
        assert.strictEqual(decided.exitCode, 0, decided.stderr)
        const status = yield* runCli([
          "reflex",
          "status",
          "--json",
          "--state-dir",
          tempDir(),
          "--database-url",
          flagUrl
        ])
        assert.strictEqual(status.exitCode, 0, status.stderr)
        assert.include(status.stdout, "\"observed\": 1")
      })),
    { timeout: 120_000 }
  )
})

describe("database selection", () => {
  it.live("a password never appears in an error; a non-PostgreSQL URL is refused naming its source", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const unreachable = yield* runCli([
        "db",
        "copy",
        "--to",
        "postgres://steward:hunter2@127.0.0.1:1/nowhere",
        "--json",
        "--state-dir",
        state
      ])
      assert.strictEqual(unreachable.exitCode, 2)
      assert.notInclude(unreachable.stderr, "hunter2")
      assert.include(unreachable.errorJson().error.message, "postgres://steward:***@127.0.0.1:1/nowhere")

      const wrong = yield* withDatabaseUrl(
        "mysql://root:hunter2@localhost/x",
        runCli(["reflex", "status", "--json", "--state-dir", state])
      )
      assert.strictEqual(wrong.exitCode, 2)
      assert.notInclude(wrong.stderr, "hunter2")
      assert.include(wrong.errorJson().error.message, "$STEWARD_DATABASE_URL")

      fs.writeFileSync(path.join(state, "config.json"), JSON.stringify({ database: { url: "sqlite:///x" } }))
      const badConfig = yield* runCli(["doctor", "--json", "--state-dir", state])
      assert.strictEqual(badConfig.exitCode, 2)
      assert.include(badConfig.errorJson().error.message, "database.url")
    }))
})
