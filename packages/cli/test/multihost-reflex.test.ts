/**
 * Multi-host proof for the reflex ledger through the CLI (issue 19 item 6): four `steward`
 * processes, each with its own state directory, share one PostgreSQL database (on SQLite: one
 * state directory, whose database file is what they share) and decide and label
 * settle turns at once; two of them also label the same observation at the same time. Afterwards
 * every decision and every label is stored once, label seqs are gap-free, the contested
 * observation holds one label, and every host reads the same status.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { SqlBackends } from "@steward/testing"
import { Effect, Redacted } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { stewardArgv } from "./support/stewardProcess.js"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "multihost-reflex-"))

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** One `steward` process to completion (support/stewardProcess: the sources, or the bundle). */
const steward = (args: ReadonlyArray<string>) =>
  Effect.async<Ran>((resume) => {
    const child = spawn(process.execPath, stewardArgv(args), { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
  })

const json = (ran: Ran, what: string) => {
  assert.strictEqual(ran.code, 0, `${what}: ${ran.stderr}`)
  return JSON.parse(ran.stdout)
}

const texts = [
  "I stopped before running the tests; next I will run them.",
  "Done. All checks pass.",
  "Should I go ahead and open the pull request?",
  "I have updated the parser; the remaining step is the docs."
]

/**
 * Where the hosts meet: on PostgreSQL each host has its own state dir and names the shared URL; on
 * SQLite the hosts share one state dir, whose database file is the shared store.
 */
interface Shared {
  readonly name: string
  readonly stateFor: () => string
  readonly flags: ReadonlyArray<string>
  /** The stored settle observations and labels, read straight from the database. */
  readonly rows: Effect.Effect<{
    readonly obs: ReadonlyArray<string>
    readonly labels: ReadonlyArray<{ observation: string; head: string; seq: number | string }>
  }>
}

const readRows = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const obs = yield* sql<{ id: string }>`SELECT id FROM reflex_observations WHERE reflex = 'settle'`
  const labels = yield* sql<{ observation: string; head: string; seq: number | string }>`
    SELECT observation, head, seq FROM reflex_labels WHERE reflex = 'settle' ORDER BY seq`
  return { obs: obs.map((r) => r.id), labels }
})

const postgres = (url: string): Shared => ({
  name: "PostgreSQL",
  stateFor: tempDir,
  flags: ["--database-url", url],
  rows: readRows.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })), Effect.orDie)
})

const sqlite = (): Shared => {
  const state = tempDir()
  return {
    name: "SQLite",
    stateFor: () => state,
    flags: [],
    rows: readRows.pipe(
      Effect.provide(SqliteClient.layer({ filename: path.join(state, "steward.sqlite"), readonly: true })),
      Effect.orDie
    )
  }
}

/** A host: decides `n` settle turns and labels each one. */
const host = (shared: Shared, name: string, n: number) =>
  Effect.gen(function*() {
    const state = shared.stateFor()
    const common = ["--json", "--state-dir", state, ...shared.flags]
    const observations: Array<string> = []
    for (let k = 0; k < n; k++) {
      const decided = json(
        yield* steward([
          "reflex",
          "decide",
          "settle",
          "--text",
          `${texts[k % texts.length]} (${name}-${k})`,
          "--tool-calls",
          String(3 + k),
          "--subject",
          `host-${name}-${k}`,
          ...common
        ]),
        `${name} decide ${k}`
      )
      observations.push(decided.observation)
      json(
        yield* steward([
          "reflex",
          "label",
          "settle",
          decided.observation,
          k % 2 === 0 ? "stopped_short" : "done",
          ...common
        ]),
        `${name} label ${k}`
      )
    }
    return { state, observations }
  })

for (const backend of SqlBackends.all) {
  describe.skipIf(backend.skip !== undefined)(
    `several steward processes, one ${backend.name} database ${backend.skip ?? ""}`,
    () => {
      it.live(
        "reflex decisions and labels from four hosts: none lost, label seqs unique and ordered, one label per contested observation, one status",
        () =>
          Effect.scoped(Effect.gen(function*() {
            const shared = backend.name === "SQLite" ? sqlite() : postgres(yield* SqlBackends.freshPostgresDatabase())
            const names = ["a", "b", "c", "d"]
            const n = 2 // two decisions per host: 16 processes race on one database (CI time, not coverage)
            const hosts = yield* Effect.all(names.map((name) => host(shared, name, n)), { concurrency: "unbounded" })
            const observations = hosts.flatMap((h) => h.observations)
            assert.strictEqual(new Set(observations).size, names.length * n, "every decision has its own observation")

            // two hosts label one observation at the same moment, with different labels
            const contested = observations[0]!
            const racers = yield* Effect.all(
              [
                ["stopped_short", hosts[1]!.state],
                ["done", hosts[2]!.state]
              ].map(([label, state]) =>
                steward([
                  "reflex",
                  "label",
                  "settle",
                  contested,
                  label!,
                  "--json",
                  "--state-dir",
                  state!,
                  ...shared.flags
                ])
              ),
              { concurrency: "unbounded" }
            )
            for (const ran of racers) assert.strictEqual(ran.code, 0, ran.stderr)

            const stored = yield* shared.rows

            assert.sameMembers([...stored.obs], observations, "no observation lost or duplicated")
            const keys = stored.labels.map((l) => `${l.observation}/${l.head}`)
            assert.strictEqual(new Set(keys).size, keys.length, "one label row per observation and head")
            assert.sameMembers(
              [...new Set(stored.labels.map((l) => l.observation))],
              observations,
              "every label stored"
            )
            // a relabel with a different value takes a new seq: seqs stay unique and in commit order
            const seqs = stored.labels.map((l) => Number(l.seq))
            assert.strictEqual(new Set(seqs).size, seqs.length, "label seqs never repeat")
            for (let k = 1; k < seqs.length; k++) assert.isAbove(seqs[k]!, seqs[k - 1]!)

            // every host, and a fresh one, reads the same status from the shared database
            const statuses = yield* Effect.all(
              [...hosts.map((h) => h.state), shared.stateFor()].map((state) =>
                steward(["reflex", "status", "--json", "--state-dir", state, ...shared.flags])
              ),
              { concurrency: 2 }
            )
            const first = json(statuses[0]!, "status")
            const settle = first.find((r: any) => r.reflex === "settle")
            assert.strictEqual(settle.observed, names.length * n)
            assert.strictEqual(settle.labeled, names.length * n)
            for (const ran of statuses.slice(1)) assert.deepStrictEqual(json(ran, "status"), first)
          })),
        { timeout: 240_000 }
      )
    }
  )
}
