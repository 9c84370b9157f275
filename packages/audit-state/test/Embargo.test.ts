import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as Decision from "../src/Decision.js"
import * as Embargo from "../src/Embargo.js"
import * as Metrics from "../src/Metrics.js"
import * as Project from "../src/Project.js"
import * as State from "../src/State.js"
import { finding, harness, session, withState } from "./helpers.js"

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex")
const S1 = "aaaaaaaaaaaaaaa1"
const S2 = "aaaaaaaaaaaaaaa2"
const S3 = "aaaaaaaaaaaaaaa3"
const S4 = "aaaaaaaaaaaaaaa4"

/** P-01 queued (not done), F-0001 closed: without the embargo the decision is `run-auditor P-01`. */
const queued = (patch: (d: any) => void = () => {}) =>
  harness((d) => {
    d.queue[0].done = false
    delete d.queue[0].coverage
    d.findings[0].status = "closed"
    patch(d)
  })
const auditor = (id: string, patch: Record<string, unknown> = {}) =>
  session(id, { role: "Auditor", charter_hash: sha("P-01"), outcome: "ok", ...patch })
const load = (text: string) => Effect.runSync(State.decodeText(text))
const on = { ...Decision.defaultConfig, embargo: true }

describe("Embargo.charterSlice (§4.3 line format)", () => {
  it("hashes the queue line, the sorted finding lines and the policy line", () => {
    const doc = load(harness((d) => {
      d.findings.push(finding("F-0003", { status: "accepted", attempts: 1 }))
      d.findings.push(finding("F-0002", { pass: "P-01" }))
    }))
    const lines = [
      "queue:P-01:check the documented invariants hold in the unit:15 findings or the unit is exhausted:True:done:passes/P-01.md",
      "finding:F-0001:reported:0",
      "finding:F-0002:reported:0",
      "finding:F-0003:accepted:1",
      "policy:unknown"
    ]
    assert.deepStrictEqual(Embargo.charterSliceLines(doc, "P-01"), lines)
    assert.strictEqual(Embargo.charterSlice(doc, "P-01"), sha(lines.join("\n")))
    assert.isUndefined(Embargo.charterSlice(doc, "P-09"))
  })

  it("uses Python spellings for a pass without coverage and changes when a finding of the pass moves", () => {
    const doc = load(queued())
    assert.strictEqual(
      Embargo.charterSliceLines(doc, "P-01")![0],
      "queue:P-01:check the documented invariants hold in the unit:15 findings or the unit is exhausted:False:None:None"
    )
    const moved = load(queued((d) => void (d.findings[0].status = "withdrawn")))
    assert.notStrictEqual(Embargo.charterSlice(moved, "P-01"), Embargo.charterSlice(doc, "P-01"))
  })

  it("ADR 0109: the source digest is sha256 of Steward's decision identifier; the policy is unknown", () => {
    assert.strictEqual(Embargo.SOURCE_DIGEST, sha(Embargo.ORCHESTRATOR_SOURCE))
    assert.strictEqual(Embargo.POLICY_DIGEST, "unknown")
    const doc = load(queued())
    assert.deepStrictEqual(Embargo.dispatchKeyPayload(doc, "Auditor", "P-01"), {
      role: "Auditor",
      source_digest: Embargo.SOURCE_DIGEST,
      charter_slice: Embargo.charterSlice(doc, "P-01")!
    })
    assert.isNull(Embargo.dispatchKeyPayload(doc, "Remediator", "finding F-0001").charter_slice)
  })
})

describe("Decision.stateAndDecision with the embargo (§4.2 steps 4 and 9)", () => {
  const three = queued((d) => void (d.sessions = [auditor(S1), auditor(S2), auditor(S3)]))
  const key = (
    doc: State.StateDoc
  ) => ["Auditor", sha("P-01"), Embargo.charterSlice(doc, "P-01")!, Embargo.SOURCE_DIGEST]

  it("off (the default): three barren Auditor dispatches change nothing", () => {
    assert.deepStrictEqual(Decision.stateAndDecision(load(three)), { kind: "run-auditor", detail: "P-01" })
    assert.deepStrictEqual(Decision.stateAndDecision(load(three), Decision.defaultConfig, []), {
      kind: "run-auditor",
      detail: "P-01"
    })
  })

  it("on: 3 barren dispatches (no recorded key = matches anything) hold the pass → stop-embargo", () => {
    const doc = load(three)
    assert.deepStrictEqual(Decision.stateAndDecision(doc, on, []), {
      kind: "stop-embargo",
      detail: { "P-01": [3, key(doc), S3] }
    })
  })

  it("embargo_after: 2 dispatches are below the default 3, at embargo_after 2 they hold", () => {
    const two = load(queued((d) => void (d.sessions = [auditor(S1), auditor(S2)])))
    assert.deepStrictEqual(Decision.stateAndDecision(two, on), { kind: "run-auditor", detail: "P-01" })
    assert.deepStrictEqual(Decision.stateAndDecision(two, { ...on, embargoAfter: 2 }), {
      kind: "stop-embargo",
      detail: { "P-01": [2, key(two), S2] }
    })
  })

  it("a dispatch with a declared transition (a write verb under its session id) does not count", () => {
    const doc = load(three)
    const declared = [{ event: "state_transition", session_id: S2, verb: "file-finding" }]
    assert.deepStrictEqual(Decision.stateAndDecision(doc, on, declared), { kind: "run-auditor", detail: "P-01" })
    // an event that is not a write verb, or another kind, is no declaration
    const noise = [
      { event: "state_transition", session_id: S2, verb: "dispatch" },
      { event: "write_refused", session_id: S2, verb: "file-finding" },
      { event: "state_transition", session_id: null, verb: "set-status" }
    ]
    assert.strictEqual(Decision.stateAndDecision(doc, on, noise).kind, "stop-embargo")
  })

  it("only finished Auditor dispatches of the same charter count", () => {
    const doc = load(queued((d) => {
      d.sessions = [
        auditor(S1),
        auditor(S2),
        session(S3, { role: "Remediator", charter_hash: sha("P-01"), outcome: "ok" }),
        auditor(S4, { charter_hash: sha("P-02") })
      ]
    }))
    assert.strictEqual(Decision.stateAndDecision(doc, on).kind, "run-auditor")
    const open = load(queued((d) => void (d.sessions = [auditor(S1), auditor(S2), auditor(S3, { outcome: null })])))
    assert.strictEqual(Decision.stateAndDecision(open, on).kind, "run-auditor")
  })

  it("recorded keys: a matching key counts, a different slice or source digest does not, None matches", () => {
    const doc = load(three)
    const slice = Embargo.charterSlice(doc, "P-01")!
    const k = (sid: string, patch: Record<string, unknown> = {}) => ({
      event: "dispatch_key",
      session_id: sid,
      role: "Auditor",
      source_digest: Embargo.SOURCE_DIGEST,
      charter_slice: slice,
      ...patch
    })
    assert.strictEqual(Decision.stateAndDecision(doc, on, [k(S1), k(S2), k(S3)]).kind, "stop-embargo")
    assert.strictEqual(Decision.stateAndDecision(doc, on, [k(S1, { charter_slice: null }), k(S2)]).kind, "stop-embargo")
    assert.strictEqual(
      Decision.stateAndDecision(doc, on, [k(S1), k(S2, { charter_slice: "0".repeat(64) })]).kind,
      "run-auditor"
    )
    assert.strictEqual(
      Decision.stateAndDecision(doc, on, [k(S3, { source_digest: "f".repeat(64) })]).kind,
      "run-auditor"
    )
  })

  it("a held pass leaves the queue: another pass runs; open work routes as usual; only done* becomes stop-embargo", () => {
    const twoPasses = load(queued((d) => {
      d.sessions = [auditor(S1), auditor(S2), auditor(S3)]
      d.queue.push({ ...d.queue[0], id: "P-02" })
    }))
    assert.deepStrictEqual(Decision.stateAndDecision(twoPasses, on), { kind: "run-auditor", detail: "P-02" })
    const triage = load(queued((d) => {
      d.sessions = [auditor(S1), auditor(S2), auditor(S3)]
      d.findings[0].status = "reported"
    }))
    assert.deepStrictEqual(Decision.stateAndDecision(triage, on), { kind: "stop-triage", detail: ["F-0001"] })
    const deferred = load(queued((d) => {
      d.sessions = [auditor(S1), auditor(S2), auditor(S3)]
      d.findings[0].status = "deferred"
    }))
    assert.strictEqual(Decision.stateAndDecision(deferred, on).kind, "stop-embargo")
  })

  it("describe names the held pass, its attempts and the last session", () => {
    const d = Decision.stateAndDecision(load(three), on)
    const line = Decision.describe(d)
    for (const s of ["embargo", "P-01", "3 barren", S3]) assert.include(line, s)
    // the same line from the list form `status --json` carries (ADR 0110)
    assert.strictEqual(Decision.describe({ kind: d.kind, detail: Decision.statusDetail(d.detail) as any }), line)
  })

  it("ADR 0110: status --json lists the embargo detail and stays within STATUS_SCHEMA (the raw dict would not)", () => {
    const doc = load(three)
    const d = Decision.stateAndDecision(doc, on)
    const status = Metrics.status(doc, d, "/p", "2026-08-20")
    assert.deepStrictEqual(status.decision.detail, [["P-01", 3, key(doc), S3]])
    assert.notInstanceOf(Metrics.checkOutput(status, Metrics.STATUS_SCHEMA, "status"), Error)
    const raw = { ...status, decision: { kind: d.kind, detail: d.detail } }
    const refused = Metrics.checkOutput(raw, Metrics.STATUS_SCHEMA, "status")
    assert.instanceOf(refused, Error)
    assert.strictEqual((refused as any).code, "output-schema")
  })
})

describe("orchestrator.conf embargo keys", () => {
  it("defaults off / 3; parses on and embargo_after; refuses embargo_after 0 and a non-boolean", () => {
    const d = Project.parseConfig("")
    assert.deepInclude(d as object, { embargo: false, embargoAfter: 3 })
    assert.deepInclude(Project.parseConfig("embargo = on\nembargo_after = 1") as object, {
      embargo: true,
      embargoAfter: 1
    })
    assert.include(String(Project.parseConfig("embargo_after = 0")), "embargo_after must be an integer >= 1")
    assert.include(String(Project.parseConfig("embargo = maybe")), "embargo must be one of")
  })

  it("budgets = on is refused (the budget gates are unspecified: ADR 0108); off is xcheck's default", () => {
    assert.deepStrictEqual(Project.parseConfig("budgets = off"), Decision.defaultConfig)
    for (const on of ["on", "true", "1", "yes"]) {
      const refused = Project.parseConfig(`embargo = on\nbudgets = ${on}`)
      assert.isString(refused)
      assert.include(String(refused), `line 2: budgets = ${on} is not supported`)
      assert.include(String(refused), "ADR 0108")
    }
    assert.include(String(Project.parseConfig("budgets = maybe")), "budgets must be one of")
  })
})

describe("AuditStore records the dispatch key beside the stream (ADR 0109)", () => {
  for (const backend of ["memory", "sql"] as const) {
    it.effect(`${backend}: keys survive, stay out of events.jsonl, and feed the embargo`, () =>
      withState(backend, queued(), (store) =>
        Effect.gen(function*() {
          const before = yield* store.load
          for (const sid of [S1, S2, S3]) {
            yield* store.openDispatch({
              role: "Auditor",
              executable: "claude",
              charter: "P-01",
              prompt: "p",
              sessionId: sid
            })
            yield* store.finishDispatch({ outcome: "ok" })
          }
          const kinds = (yield* store.events).map((e) => e.event)
          assert.notInclude(kinds, "dispatch_key")
          const history = yield* store.embargoHistory
          const keys = history.filter((e) => e.event === "dispatch_key")
          assert.deepStrictEqual(keys.map((k) => k.session_id).sort(), [S1, S2, S3])
          for (const k of keys) {
            assert.deepInclude(k, {
              role: "Auditor",
              source_digest: Embargo.SOURCE_DIGEST,
              charter_slice: Embargo.charterSlice(before, "P-01")!
            })
          }
          const doc = yield* store.load
          const d = Decision.stateAndDecision(doc, on, history)
          assert.strictEqual(d.kind, "stop-embargo")
          assert.deepStrictEqual((d.detail as any)["P-01"][0], 3)
          // a change outside the pass's slice (a new catalog unit) does not lift the embargo
          const changed = yield* store.apply({
            verb: "update-catalog",
            kind: "unit",
            key: "U02",
            material: "src/b",
            size: "1k",
            responsibility: "b"
          }).pipe(Effect.map((a) => a.doc))
          assert.strictEqual(Decision.stateAndDecision(changed, on, yield* store.embargoHistory).kind, "stop-embargo")
        })))
  }
})
