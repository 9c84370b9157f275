import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as AuditStore from "../src/AuditStore.js"
import * as Events from "../src/Events.js"
import * as Verbs from "../src/Verbs.js"
import { A, B, harness, layers, session, withState } from "./helpers.js"

const fileLayer = (file: string) => {
  const client = SqliteClient.layer({ filename: file })
  return Layer.merge(AuditStore.layerSql.pipe(Layer.provide(client), Layer.orDie), client)
}

/** A store on a file with two applied verbs; returns the file. */
const seeded = Effect.gen(function*() {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "audit-ledger-")), "state.sqlite")
  yield* Effect.gen(function*() {
    const store = yield* AuditStore.AuditStore
    yield* store.importState(harness())
    yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" })
    yield* store.apply({ verb: "set-status", id: "F-0001", status: "validated" })
  }).pipe(Effect.provide(fileLayer(file)))
  return file
})

const tamperThenWrite = (file: string, tamper: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* tamper(sql).pipe(Effect.orDie)
    const store = yield* AuditStore.AuditStore
    return yield* Effect.flip(store.apply({ verb: "set-status", id: "F-0001", status: "planned" }))
  }).pipe(Effect.provide(fileLayer(file)))

describe("the event stream refuses writes when it is not intact (SQL store)", () => {
  it.live("a rewritten event row: broken", () =>
    Effect.gen(function*() {
      const file = yield* seeded
      const e = yield* tamperThenWrite(
        file,
        // seq 0 is the first verb's lease_acquired, seq 1 its transition
        (sql) => sql`UPDATE audit_state_events SET line = replace(line, 'accepted', 'rejected') WHERE seq = 1`
      )
      assert.strictEqual(e.code, "ledger")
      assert.include(e.message, "not a record this tool can stand behind (broken)")
    }))

  it.live("deleted event rows: short", () =>
    Effect.gen(function*() {
      const file = yield* seeded
      const e = yield* tamperThenWrite(
        file,
        (sql) => Effect.zipRight(sql`DELETE FROM audit_state_events`, sql`UPDATE audit_state_head SET events = 0`)
      )
      assert.strictEqual(e.code, "ledger")
      assert.include(e.message, "(short)")
    }))

  it.live("a different, self-consistent stream: replaced", () =>
    Effect.gen(function*() {
      const file = yield* seeded
      // as many lines as the anchor counts (each verb now carries its lease pair), none of them ours
      let head = Events.GENESIS
      const others = Array.from({ length: 6 }, (_, k) => {
        const l = Events.link(head, {
          ts: `2026-01-01T00:00:0${k}+00:00`,
          event: "gate_reached",
          session_id: null,
          gate: "done"
        })
        head = l.head
        return l
      })
      const e = yield* tamperThenWrite(file, (sql) =>
        Effect.forEach(others, (o, k) =>
          sql`UPDATE audit_state_events SET line = ${o.line}, head = ${o.head} WHERE seq = ${k}`))
      assert.strictEqual(e.code, "ledger")
      assert.include(e.message, "(replaced)")
    }))

  it.live("control: an untouched store on the same file keeps writing", () =>
    Effect.gen(function*() {
      const file = yield* seeded
      const applied = yield* Effect.flatMap(AuditStore.AuditStore, (s) =>
        s.apply({ verb: "set-status", id: "F-0001", status: "planned" }))
        .pipe(Effect.provide(fileLayer(file)))
      assert.strictEqual(applied.revision, 4)
    }))
})

describe("import of an xcheck events stream", () => {
  it.effect("legacy unchained lines are accepted and chained on import; later writes continue the chain", () =>
    Effect.gen(function*() {
      const legacy = [
        {
          ts: "2026-08-01T00:00:00+00:00",
          event: "lease_acquired",
          session_id: null,
          role: "write",
          nonce: "0123456789abcdef"
        },
        {
          ts: "2026-08-01T00:00:01+00:00",
          event: "lease_released",
          session_id: null,
          role: "write",
          nonce: "0123456789abcdef"
        }
      ].map((e) => JSON.stringify(e)).join("\n")
      const store = yield* AuditStore.AuditStore
      const report = yield* store.importState(harness(), legacy)
      assert.deepStrictEqual(report, { revision: 1, records: 1, events: 2, legacyChained: 2 })
      yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" })
      const lines = (yield* store.exportEvents).trimEnd().split("\n")
      // two legacy lines, then the verb's lease_acquired, transition, lease_released
      assert.strictEqual(lines.length, 5)
      for (const l of lines) assert.strictEqual(JSON.parse(l).v, 1)
      const verified = Events.verify(lines)
      assert.isFalse(Events.isDefect(verified))
      assert.strictEqual((yield* store.load).ledger_anchor!.events, 3)
    }).pipe(Effect.provide(layers.memory)))
})

describe("§8.2 6/26/52", () => {
  it.effect("6: the writer validates — a finding pointing at a pass not in the queue is refused", () =>
    withState("memory", harness(), (store) =>
      Effect.gen(function*() {
        const e = yield* Effect.flip(store.apply({
          verb: "file-finding",
          id: "F-0002",
          title: "t",
          severity: "major",
          dimension: "invariants",
          unit: ["U01"],
          pass: "P-77",
          body: "findings/F-0002.md",
          locator: "src/core.py:1",
          sourceHash: "e".repeat(64)
        }))
        assert.strictEqual(e.code, "invalid-state")
        assert.include(e.message, "is not a pass in the queue")
        const e2 = yield* Effect.flip(
          store.apply({ verb: "set-status", id: "F-0001", status: "accepted", next: "Verifier" })
        )
        assert.strictEqual(e2.code, "invalid-state")
        assert.include(e2.message, "does not own status 'accepted'")
        assert.strictEqual((yield* store.load).state_revision, 1)
      })))

  it.effect("26: a Remediator dispatch may validate; a Verifier may not file findings (fail-closed)", () =>
    withState(
      "memory",
      harness((d) => {
        d.findings[0].status = "accepted"
        d.sessions = [session(A, { role: "Remediator" })]
      }),
      (store) =>
        Effect.gen(function*() {
          const ok = yield* store.apply({ verb: "set-status", id: "F-0001", status: "validated" })
          assert.strictEqual(ok.event.session_id, A)
          yield* store.openDispatch({ role: "Verifier", executable: "codex", charter: "v", prompt: "p", sessionId: B })
          const e = yield* Effect.flip(
            store.apply({
              verb: "queue-pass",
              id: "P-02",
              dimension: "invariants",
              units: ["U01"],
              charter: "c",
              stop: "s"
            })
          )
          assert.strictEqual(e.code, "unauthorized")
          assert.include(e.message, "Verifier")
        })
    ))

  it("52: independence levels for every envelope pair", () => {
    const env = (provider: string, agent_model: string) => session(A, { provider, agent_model }) as any
    const level = (f: any, v: any, fid = A, vid = B) => Verbs.independenceLevel(fid, vid, f, v).level
    assert.strictEqual(level(env("anthropic", "opus"), env("openai", "o3")), "cross-provider")
    assert.strictEqual(level(env("anthropic", "opus"), env("anthropic", "haiku")), "cross-model")
    // Steward departs from xcheck here (ADR 0026, issue 39): same provider+model, different ids is
    // `same`, not xcheck's `same-provider-different-session` — one model checking its own fix.
    assert.strictEqual(level(env("anthropic", "opus"), env("anthropic", "opus")), "same")
    assert.strictEqual(level(env("anthropic", "opus"), env("anthropic", "opus"), A, A), "same")
    assert.strictEqual(level(undefined, env("openai", "o3")), "unrecorded")
    assert.strictEqual(level(env("unknown", "unknown"), env("unknown", "unknown")), "same-provider-different-session")
  })

  it("ADR 0026: `same` needs the provider and both models known; an unknown one stays xcheck's degraded level", () => {
    const env = (provider: string, agent_model: string) => session(A, { provider, agent_model }) as any
    const measure = (f: any, v: any) => Verbs.independenceLevel(A, B, f, v)
    const same = measure(env("openai", "o3"), env("openai", "o3"))
    assert.deepStrictEqual(same, {
      level: "same",
      note: "NO INDEPENDENCE: the same provider and model fixed and verified"
    })
    for (
      const [f, v] of [
        [env("anthropic", "unknown"), env("anthropic", "unknown")],
        [env("anthropic", "opus"), env("anthropic", "unknown")],
        [env("unknown", "opus"), env("unknown", "opus")],
        [env("", "opus"), env("", "opus")]
      ] as const
    ) {
      assert.strictEqual(measure(f, v).level, "same-provider-different-session", `${f.provider}/${f.agent_model}`)
    }
  })
})

describe("paths stay inside audit/", () => {
  it.effect("file-finding, record-plan and record-coverage refuse a body outside audit/", () =>
    withState(
      "memory",
      harness((d) => d.queue.push({ ...d.queue[0], id: "P-02", done: false, coverage: undefined })),
      (store) =>
        Effect.gen(function*() {
          const cf = yield* Effect.flip(store.apply({
            verb: "file-finding",
            id: "F-0002",
            title: "t",
            severity: "major",
            dimension: "invariants",
            unit: ["U01"],
            pass: "P-01",
            body: "../../etc/passwd",
            locator: "a.py",
            sourceHash: "e".repeat(64)
          }))
          assert.include(cf.message, "is not a relative path inside audit/")
          const plan = yield* Effect.flip(
            store.apply({ verb: "record-plan", id: "RP-0001", findings: ["F-0001"], body: "/tmp/x.md" })
          )
          assert.include(plan.message, "--body '/tmp/x.md'")
          const cov = yield* Effect.flip(
            store.apply({ verb: "record-coverage", id: "P-02", report: "passes/../../x.md" })
          )
          assert.include(cov.message, "--report")
          assert.isTrue(Verbs.isAuditPath("findings/F-0001.md"))
        })
    ))
})
