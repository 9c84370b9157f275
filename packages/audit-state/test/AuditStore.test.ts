import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as AuditStore from "../src/AuditStore.js"
import type * as State from "../src/State.js"
import * as Verbs from "../src/Verbs.js"
import { A, B, backends, finding, fixture, harness, layers, session, withState } from "./helpers.js"
import { applyMutation } from "./mutations.js"

const strict = { policy: Verbs.strictPolicy }

const transitions = (store: AuditStore.AuditStoreShape) =>
  Effect.map(store.events, (es) => es.filter((e) => e.event === "state_transition"))

const rec = (doc: State.StateDoc, id: string) =>
  [...(doc.findings ?? []), ...(doc.class_findings ?? [])].find((r) => r.id === id)!

for (const { name: backend, skip } of backends) {
  describe.skipIf(skip !== undefined)(`AuditStore (${backend}) ${skip ?? ""}`, () => {
    it.effect("valid-full.json imports and exports byte-identically", () =>
      withState(backend, fixture("state/valid-full.json"), (store) =>
        Effect.gen(function*() {
          assert.strictEqual(yield* store.exportState, fixture("state/valid-full.json"))
          assert.strictEqual((yield* store.load).state_revision, 3)
        })))

    it.effect("a second import is refused; no state is a not-found error", () =>
      Effect.gen(function*() {
        const store = yield* AuditStore.AuditStore
        const missing = yield* Effect.flip(store.load)
        assert.strictEqual(missing.code, "not-found")
        assert.include(missing.message, "steward audit init")
        yield* store.importState(harness())
        const again = yield* Effect.flip(store.importState(harness()))
        assert.strictEqual(again.code, "refused")
      }).pipe(Effect.provide(layers[backend])))

    it.effect("§8.2 7/10: set-status accepted, then a repeat is refused with one transition", () =>
      withState(backend, harness(), (store) =>
        Effect.gen(function*() {
          const applied = yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" })
          assert.strictEqual(applied.revision, 2)
          assert.strictEqual(rec(applied.doc, "F-0001").status, "accepted")
          const before = yield* store.exportState
          const again = yield* Effect.flip(store.apply({ verb: "set-status", id: "F-0001", status: "accepted" }))
          assert.include(again.message, "already 'accepted'")
          assert.strictEqual(yield* store.exportState, before)
          const ts = yield* transitions(store)
          assert.strictEqual(ts.length, 1)
          assert.deepInclude(ts[0], {
            verb: "set-status",
            target: "F-0001",
            from_status: "reported",
            to_status: "accepted",
            state_revision: 2,
            session_id: null
          })
          const status = yield* store.streamStatus
          assert.strictEqual(status.state, "intact")
          const doc = yield* store.load
          // the anchor counts the verb's own lease_acquired, which precedes its transition (xcheck)
          assert.deepStrictEqual(doc.ledger_anchor, { digest: doc.ledger_anchor!.digest, events: 1, state_revision: 2 })
        })))

    it.effect("§8.2 8/9/11: table, terminal and reserved refusals", () =>
      withState(
        backend,
        harness((d) => {
          d.findings.push(finding("F-0002", { status: "closed" }), finding("F-0003", { status: "planned" }))
        }),
        (store) =>
          Effect.gen(function*() {
            const before = yield* store.exportState
            const e1 = yield* Effect.flip(store.apply({ verb: "set-status", id: "F-0001", status: "closed" }))
            assert.include(e1.message, "§5 allows only")
            const e2 = yield* Effect.flip(store.apply({ verb: "set-status", id: "F-0002", status: "accepted" }))
            assert.include(e2.message, "terminal and immutable")
            assert.include(e2.message, "recurrence-of")
            const e3 = yield* Effect.flip(store.apply({ verb: "set-status", id: "F-0003", status: "fixed" }))
            assert.include(e3.message, "record-fix")
            const e4 = yield* Effect.flip(store.apply({ verb: "set-status", id: "F-0009", status: "accepted" }))
            assert.strictEqual(e4.code, "not-found")
            assert.include(e4.message, "no record 'F-0009'")
            const e5 = yield* Effect.flip(store.apply({ verb: "set-status", id: "F-0001", status: "almost" }))
            assert.strictEqual(e5.code, "invalid-input")
            assert.strictEqual(yield* store.exportState, before)
            assert.strictEqual((yield* transitions(store)).length, 0)
          })
      ))

    it.effect("§8.2 12/13/14: record-fix, UNBOUND provenance, record-verdict independence of fixer", () =>
      withState(backend, harness((d) => d.findings[0].status = "planned"), (store) =>
        Effect.gen(function*() {
          const bad = yield* Effect.flip(store.apply({ verb: "record-fix", id: "F-0001", session: "me" }))
          assert.include(bad.message, "not a canonical 16-hex session id")
          const fixed = yield* store.apply({ verb: "record-fix", id: "F-0001", session: A })
          assert.include(fixed.message, "UNBOUND")
          assert.strictEqual(rec(fixed.doc, "F-0001").fixed_by, A)
          const notPlanned = yield* Effect.flip(store.apply({ verb: "record-fix", id: "F-0001", session: A }))
          assert.include(notPlanned.message, "only on a 'planned' finding")
          const same = yield* Effect.flip(
            store.apply({ verb: "record-verdict", id: "F-0001", verdict: "closed", session: A })
          )
          assert.include(same.message, "cannot also return the verdict")
          assert.strictEqual(rec(yield* store.load, "F-0001").status, "fixed")
          const closed = yield* store.apply({ verb: "record-verdict", id: "F-0001", verdict: "closed", session: B })
          assert.strictEqual(rec(closed.doc, "F-0001").status, "closed")
          assert.strictEqual(rec(closed.doc, "F-0001").independence, "unrecorded")
          assert.deepInclude(closed.event, { verdict: "closed", reason: "unrecorded" })
        })))

    it.effect("§8.2 15/16: reopen limit flags needs-human; retake requires human:", () =>
      withState(
        backend,
        harness((d) => {
          d.findings[0] = finding("F-0001", { status: "fixed", attempts: 1, fixed_by: A })
          d.findings.push(finding("F-0002", { status: "fixed", attempts: 0, fixed_by: A }))
        }),
        (store) =>
          Effect.gen(function*() {
            const flagged = yield* store.apply({
              verb: "record-verdict",
              id: "F-0001",
              verdict: "reopened",
              session: B
            })
            const r = rec(flagged.doc, "F-0001")
            assert.strictEqual(r.attempts, 2)
            assert.strictEqual(r.next, "⚠ needs-human")
            assert.include(flagged.message, "a human decides")
            const control = yield* store.apply({
              verb: "record-verdict",
              id: "F-0002",
              verdict: "reopened",
              session: B
            })
            assert.strictEqual(rec(control.doc, "F-0002").attempts, 1)
            assert.isUndefined(rec(control.doc, "F-0002").next)
            const plain = yield* Effect.flip(store.apply({ verb: "set-status", id: "F-0001", status: "planned" }))
            assert.include(plain.message, "--retake human:")
            const auto = yield* Effect.flip(
              store.apply({ verb: "set-status", id: "F-0001", status: "planned", retake: "automatic" })
            )
            assert.include(auto.message, "--retake human:")
            const ok = yield* store.apply({
              verb: "set-status",
              id: "F-0001",
              status: "planned",
              retake: "human:operator"
            })
            assert.strictEqual(rec(ok.doc, "F-0001").attempts, 0)
            assert.isUndefined(rec(ok.doc, "F-0001").next)
            assert.include(ok.message, "human:operator")
            const unflagged = yield* store.apply({ verb: "set-status", id: "F-0002", status: "planned" })
            assert.strictEqual(rec(unflagged.doc, "F-0002").status, "planned")
          })
      ))

    it.effect("§8.2 17: construals — propose, self-admission refused, human admits", () =>
      withState(backend, harness(), (store) =>
        Effect.gen(function*() {
          const { construalKey } = yield* Effect.promise(() => import("../src/State.js"))
          const key = construalKey("Remediator", "finding F-0001")
          const wrong = yield* Effect.flip(store.apply({
            verb: "propose-construal",
            key: "0000000000000000",
            role: "Remediator",
            charter: "finding F-0001",
            session: A,
            body: "construals/x.md"
          }))
          assert.include(wrong.message, "construal_key")
          yield* store.apply({
            verb: "propose-construal",
            key,
            role: "Remediator",
            charter: "finding F-0001",
            session: A,
            body: `construals/${key}.md`
          })
          const self = yield* Effect.flip(store.apply({ verb: "admit-construal", key, admitter: A }))
          assert.include(self.message, "may not admit it")
          const ok = yield* store.apply({ verb: "admit-construal", key, admitter: "human:operator" })
          const c = ok.doc.construals![0]!
          assert.strictEqual(c.status, "admitted")
          assert.strictEqual(c.admitted_by, "human:operator")
          assert.strictEqual(c.admitted_at, "1970-01-01")
          const again = yield* Effect.flip(store.apply({ verb: "admit-construal", key, admitter: "human:operator" }))
          assert.include(again.message, "already 'admitted'")
        })))

    it.effect("§8.2 18: record-refusal needs prose and the closed vocabulary; status unchanged", () =>
      withState(backend, harness((d) => d.findings[0].status = "accepted"), (store) =>
        Effect.gen(function*() {
          const noProse = yield* Effect.flip(
            store.apply({
              verb: "record-refusal",
              id: "F-0001",
              reason: "material-missing",
              bodyText: "# F\n\n## Refusal\n<!-- why -->\n"
            })
          )
          assert.include(noProse.message, "write the prose half FIRST")
          const vocab = yield* Effect.flip(store.apply({ verb: "record-refusal", id: "F-0001", reason: "it-was-hard" }))
          assert.include(vocab.message, "closed §5 vocabulary")
          const ok = yield* store.apply({
            verb: "record-refusal",
            id: "F-0001",
            reason: "material-missing",
            bodyText: "# F\n\n## Refusal\nThe module is not in the repository.\n"
          })
          assert.strictEqual(rec(ok.doc, "F-0001").refusal, "material-missing")
          assert.strictEqual(rec(ok.doc, "F-0001").status, "accepted")
          const cleared = yield* store.apply({ verb: "record-refusal", id: "F-0001", clear: true })
          assert.isUndefined(rec(cleared.doc, "F-0001").refusal)
        })))

    it.effect("§8.2 19: the norm-ratification gate", () =>
      withState(
        backend,
        harness((d) => {
          d.findings[0] = finding("F-0001", { status: "superseded-by-class", class: "CF-0001" })
          d.class_findings = [{ ...finding("CF-0001", { status: "planned" }), members: ["F-0001"] }]
          d.catalogs.norms.push({ id: "N4", source: "x", scope: "y" })
        }),
        (store) =>
          Effect.gen(function*() {
            const notClass = yield* Effect.flip(store.apply({ verb: "block-on-norm", id: "F-0001" }))
            assert.include(notClass.message, "is a finding, not a class finding")
            yield* store.apply({ verb: "block-on-norm", id: "CF-0001" })
            const blocked = yield* Effect.flip(store.apply({ verb: "record-fix", id: "CF-0001", session: A }))
            assert.include(blocked.message, "norm-ratification")
            const agent = yield* Effect.flip(
              store.apply({ verb: "record-ruling", id: "CF-0001", norm: "N1", ruledBy: "the-agent-decided" })
            )
            assert.include(agent.message, "ruled by the norm's OWNER, who is a human")
            const ruled = yield* store.apply({
              verb: "record-ruling",
              id: "CF-0001",
              norm: "N1-over-N4",
              ruledBy: "human:norm-owner"
            })
            assert.strictEqual(rec(ruled.doc, "CF-0001").norm_ruling, "N1-over-N4")
            assert.isUndefined(rec(ruled.doc, "CF-0001").blocked)
            assert.include(String(ruled.event.summary), "human:norm-owner")
            const fixed = yield* store.apply({ verb: "record-fix", id: "CF-0001", session: A })
            assert.strictEqual(rec(fixed.doc, "CF-0001").status, "fixed")
          })
      ))

    it.effect("§8.2 20: record-coverage, exactly one canonical record", () =>
      withState(
        backend,
        harness((d) => d.queue.push({ ...d.queue[0], id: "P-02", done: false, coverage: undefined })),
        (store) =>
          Effect.gen(function*() {
            const unknownF = yield* Effect.flip(
              store.apply({ verb: "record-coverage", id: "P-02", report: "passes/P-02.md", findings: ["F-9999"] })
            )
            assert.include(unknownF.message, "F-9999")
            const ok = yield* store.apply({
              verb: "record-coverage",
              id: "P-02",
              report: "passes/P-02-x.md",
              findings: ["F-0001"]
            })
            const p = ok.doc.queue!.find((q) => q.id === "P-02")!
            assert.isTrue(p.done)
            assert.strictEqual(p.coverage!.report_path, "passes/P-02-x.md")
            const again = yield* Effect.flip(
              store.apply({ verb: "record-coverage", id: "P-01", report: "passes/P-01.md" })
            )
            assert.include(again.message, "exactly ONE canonical record")
          })
      ))

    it.effect("§8.2 21: file-finding grammar and class minting", () =>
      withState(backend, harness((d) => d.findings[0].status = "accepted"), (store) =>
        Effect.gen(function*() {
          const base = {
            verb: "file-finding" as const,
            title: "t",
            dimension: "invariants",
            unit: ["U01"],
            pass: "P-01",
            body: "findings/F-0002.md",
            locator: "src/core.py:3",
            sourceHash: "c".repeat(64)
          }
          const exists = yield* Effect.flip(store.apply({ ...base, id: "F-0001", severity: "major" }))
          assert.include(exists.message, "already exists")
          const sev = yield* Effect.flip(store.apply({ ...base, id: "F-0002", severity: "catastrophic" }))
          assert.include(sev.message, "not a canonical §2 severity")
          const outside = yield* Effect.flip(
            store.apply({ ...base, id: "F-0002", severity: "major", locator: "/etc/passwd" })
          )
          assert.include(outside.message, "not a path inside the subject")
          const ok = yield* store.apply({ ...base, id: "F-0002", severity: "major" })
          assert.strictEqual(rec(ok.doc, "F-0002").status, "reported")
          assert.strictEqual(rec(ok.doc, "F-0002").locator, "src/core.py:3")
          const cf = yield* store.apply({
            verb: "file-finding",
            id: "CF-0001",
            title: "class",
            severity: "major",
            dimension: "invariants",
            unit: ["U01"],
            pass: "P-01",
            body: "findings/CF-0001.md",
            members: ["F-0001"]
          })
          assert.strictEqual(rec(cf.doc, "F-0001").status, "superseded-by-class")
          assert.strictEqual(rec(cf.doc, "F-0001").class, "CF-0001")
          const absorbReported = yield* Effect.flip(store.apply({
            verb: "file-finding",
            id: "CF-0002",
            title: "class",
            severity: "major",
            dimension: "invariants",
            unit: ["U01"],
            pass: "P-01",
            body: "findings/CF-0002.md",
            members: ["F-0002"]
          }))
          assert.include(absorbReported.message, "does not allow it to become 'superseded-by-class'")
        })))

    it.effect("§8.2 23/24/25/26: authorization by the open dispatch's role", () =>
      withState(
        backend,
        harness((d) => {
          d.findings.push(finding("F-0002", { status: "disputed" }))
          d.sessions = [session(A, { role: "Auditor" })]
        }),
        (store) =>
          Effect.gen(function*() {
            const before = yield* store.exportState
            const denied = yield* Effect.flip(store.apply({ verb: "set-status", id: "F-0001", status: "accepted" }))
            assert.strictEqual(denied.code, "unauthorized")
            assert.include(denied.message, "Auditor")
            assert.include(denied.message, "set-status")
            assert.include(denied.message, "Triage")
            assert.strictEqual(yield* store.exportState, before)
            const events = yield* store.events
            assert.strictEqual(events.length, 1)
            assert.deepInclude(events[0], {
              event: "write_refused",
              verb: "set-status",
              role: "Auditor",
              target: "F-0001"
            })
            assert.include(String(events[0]!.reason), "Triage")
            const pen = yield* store.apply({ verb: "set-status", id: "F-0002", status: "accepted" })
            assert.strictEqual(pen.event.session_id, A)
            const admin = yield* Effect.flip(store.apply({ verb: "set-limit", key: "reopen_limit", value: "9" }))
            assert.include(admin.message, "administrative")
            yield* store.finishDispatch({ outcome: "ok" })
            const op = yield* store.apply({ verb: "set-limit", key: "reopen_limit", value: "3" })
            assert.strictEqual(op.doc.limits!.reopen_limit, 3)
          })
      ))

    it.effect("§8.2 28: set-limit refuses every malformed value and changes nothing", () =>
      withState(backend, harness(), (store) =>
        Effect.gen(function*() {
          const before = yield* store.exportState
          const typo = yield* Effect.flip(store.apply({ verb: "set-limit", key: "reopen_limitt", value: "3" }))
          assert.include(typo.message, "reopen_limit")
          for (const value of ["2.5", "2_0", "0x2", "two", "", "+-1"]) {
            const e = yield* Effect.flip(store.apply({ verb: "set-limit", key: "reopen_limit", value }))
            assert.include(e.message, "must be a whole number")
          }
          const zero = yield* Effect.flip(store.apply({ verb: "set-limit", key: "reopen_limit", value: "0" }))
          assert.include(zero.message, "outside the legal range 1..99")
          assert.include(zero.message, "never fires")
          assert.strictEqual(yield* store.exportState, before)
          // each refusal leaves only its lease pair, as xcheck's do (conformance corpus)
          const events = yield* store.events
          assert.strictEqual(events.length, 16)
          assert.isTrue(events.every((e) => e.event === "lease_acquired" || e.event === "lease_released"))
        })))

    it.effect("§8.2 29/30/31: amend-pass, cancel-pass, update-catalog and four admin verbs in a row", () =>
      withState(
        backend,
        harness((d) => d.queue.push({ ...d.queue[0], id: "P-02", done: false, coverage: undefined })),
        (store) =>
          Effect.gen(function*() {
            const done = yield* Effect.flip(store.apply({ verb: "amend-pass", id: "P-01", charter: "x" }))
            assert.include(done.message, "passes/P-01.md")
            assert.include(done.message, "queue-pass")
            const nothing = yield* Effect.flip(store.apply({ verb: "amend-pass", id: "P-02" }))
            assert.include(nothing.message, "nothing to change")
            const unknown = yield* Effect.flip(store.apply({ verb: "amend-pass", id: "P-09", charter: "x" }))
            assert.include(unknown.message, "queue-pass")
            const dim = yield* Effect.flip(store.apply({ verb: "amend-pass", id: "P-02", dimension: "vibes" }))
            assert.include(dim.message, "update-catalog")
            // P-01 is done and referenced: xcheck names the pass as done first (issue 21)
            const referenced = yield* Effect.flip(store.apply({ verb: "cancel-pass", id: "P-01" }))
            assert.include(referenced.message, "is done")
            const unitRemove = yield* Effect.flip(
              store.apply({ verb: "update-catalog", kind: "unit", key: "U01", remove: true })
            )
            assert.include(unitRemove.message, "F-0001")
            assert.include(unitRemove.message, "pass P-01")
            const partial = yield* Effect.flip(
              store.apply({ verb: "update-catalog", kind: "unit", key: "U02", material: "m" })
            )
            assert.include(partial.message, "--size")
            assert.include(partial.message, "--responsibility")
            const gizmo = yield* Effect.flip(store.apply({ verb: "update-catalog", kind: "gizmo", key: "x" }))
            assert.include(gizmo.message, "dimension, norm, unit")
            const revs: Array<number> = []
            revs.push((yield* store.apply({ verb: "set-limit", key: "reopen_limit", value: "3" })).revision)
            revs.push((yield* store.apply({ verb: "amend-pass", id: "P-02", charter: "new charter" })).revision)
            revs.push((yield* store.apply({ verb: "cancel-pass", id: "P-02" })).revision)
            revs.push(
              (yield* store.apply({
                verb: "update-catalog",
                kind: "unit",
                key: "U02",
                material: "m",
                size: "1",
                responsibility: "r"
              }))
                .revision
            )
            assert.deepStrictEqual(revs, [2, 3, 4, 5])
            yield* store.load
          })
      ))

    it.effect("expectRevision: a stale caller gets a typed stale-revision error", () =>
      withState(backend, harness(), (store) =>
        Effect.gen(function*() {
          const ok = yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" }, { expectRevision: 1 })
          assert.strictEqual(ok.revision, 2)
          const stale = yield* Effect.flip(
            store.apply({ verb: "set-status", id: "F-0001", status: "validated" }, { expectRevision: 1 })
          )
          assert.strictEqual(stale.code, "stale-revision")
          assert.deepStrictEqual(stale.details, { expected: 1, actual: 2 })
        })))

    it.effect("§8.2 48/49: dispatch envelopes — one open at a time, crash on reopen, provenance bound", () =>
      withState(backend, harness((d) => d.findings[0].status = "planned"), (store) =>
        Effect.gen(function*() {
          const a = yield* store.openDispatch({
            role: "Remediator",
            executable: "/usr/bin/claude",
            charter: "finding F-0001",
            prompt: "p",
            sessionId: A,
            agentModel: "opus"
          })
          assert.strictEqual(a.doc.sessions![0]!.provider, "anthropic")
          assert.deepInclude(a.event, { event: "session_dispatched", session_id: A, role: "Remediator" })
          const wrong = yield* Effect.flip(store.apply({ verb: "record-fix", id: "F-0001", session: B }))
          for (const s of [A, B, "Remediator", "dispatch record", "--session"]) assert.include(wrong.message, s)
          const b = yield* store.openDispatch({
            role: "Verifier",
            executable: "codex",
            charter: "v",
            prompt: "p",
            sessionId: B
          })
          const old = b.doc.sessions!.find((s) => s.session_id === A)!
          assert.strictEqual(old.outcome, "crash")
          assert.isUndefined(old.exit_status)
          assert.include(String(old.note), "never able to finalise")
          // refused verbs in between leave their lease pairs (xcheck); the dispatch events are these
          const kinds = (yield* store.events).map((e) => e.event).filter((k) => !k.startsWith("lease_"))
          assert.deepStrictEqual(kinds, ["session_dispatched", "session_abandoned", "session_dispatched"])
          yield* store.finishDispatch({ outcome: "ok", exitStatus: 0, durationS: 12.5 })
          const none = yield* Effect.flip(store.apply({ verb: "record-fix", id: "F-0001", session: A }))
          assert.include(none.message, "no dispatch is open")
        })))

    // §8.2 52 (ADR 0026: the fixer's own provider and model, in another session, is `same`)
    for (
      const [title, provider, agentModel, executable, level, note] of [
        [
          "§8.2 52: independence is measured from the fixer's and the verifier's envelopes",
          "openai",
          "o3",
          "codex",
          "cross-provider",
          "independence: cross-provider"
        ],
        [
          "ADR 0026: a verdict by the fixer's own provider and model, in another session, stores `same`",
          "anthropic",
          "opus",
          "/usr/bin/claude",
          "same",
          "independence: same — NO INDEPENDENCE"
        ]
      ] as const
    ) {
      it.effect(title, () =>
        withState(
          backend,
          harness((d) => {
            d.findings[0] = finding("F-0001", { status: "fixed", fixed_by: A })
            d.sessions = [session(A, { outcome: "ok" })]
          }),
          (store) =>
            Effect.gen(function*() {
              yield* store.openDispatch({
                role: "Verifier",
                executable,
                provider,
                agentModel,
                charter: "v",
                prompt: "p",
                sessionId: B
              })
              const v = yield* store.apply({ verb: "record-verdict", id: "F-0001", verdict: "closed", session: B })
              assert.strictEqual(rec(v.doc, "F-0001").independence, level)
              assert.include(v.message, note)
            })
        ))
    }

    it.effect("a tampered or truncated event stream refuses writes", () =>
      withState(backend, harness(), (store) =>
        Effect.gen(function*() {
          yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" })
          yield* store.apply({ verb: "set-status", id: "F-0001", status: "validated" })
          const state = yield* store.exportState
          const events = (yield* store.exportEvents).split("\n").filter((l) => l.length > 0)
          const fresh = AuditStore.AuditStore
          // short: the state anchors more events than the stream holds
          const short = yield* Effect.flip(
            Effect.flatMap(fresh, (s) => s.importState(state, ""))
              .pipe(Effect.provide(layers[backend]))
          )
          assert.strictEqual(short.code, "ledger")
          assert.include(short.message, "short")
          const broken = yield* Effect.flip(
            Effect.flatMap(fresh, (s) =>
              // line 1 is the first verb's transition (line 0 its lease_acquired)
              s.importState(state, [events[0], events[1]!.replace("accepted", "rejected"), events[2]].join("\n")))
              .pipe(Effect.provide(layers[backend]))
          )
          assert.strictEqual(broken.code, "ledger")
          assert.include(broken.message, "the chain breaks HERE")
        })))
  })
}

describe("ADR decisions (memory store)", () => {
  it.effect("ADR 0102: record-fix --plan keeps fixed_by canonical and records the plan on the event", () =>
    withState(
      "memory",
      harness((d) => {
        d.findings[0].status = "planned"
        d.plans = [{
          id: "RP-0001",
          findings: ["F-0001"],
          status: "open",
          updated: "2026-08-14",
          body_path: "plans/RP-0001.md"
        }]
      }),
      (store) =>
        Effect.gen(function*() {
          const unknown = yield* Effect.flip(
            store.apply({ verb: "record-fix", id: "F-0001", session: A, plan: "RP-0009" })
          )
          assert.include(unknown.message, "RP-0009")
          const fixed = yield* store.apply({ verb: "record-fix", id: "F-0001", session: A, plan: "RP-0001" })
          assert.strictEqual(rec(fixed.doc, "F-0001").fixed_by, A)
          assert.strictEqual(fixed.event.plan, "RP-0001")
        })
    ))

  it.effect("ADR 0103 (strict policy): record-ruling checks the token grammar and the norms catalog", () =>
    withState(
      "memory",
      harness((d) => {
        d.findings[0] = finding("F-0001", { status: "superseded-by-class", class: "CF-0001" })
        d.class_findings = [{
          ...finding("CF-0001", { status: "planned", blocked: "norm-ratification", norm_ruling: "pending" }),
          members: ["F-0001"]
        }]
      }),
      (store) =>
        Effect.gen(function*() {
          const prose = yield* Effect.flip(
            store.apply({ verb: "record-ruling", id: "CF-0001", norm: "norm one wins", ruledBy: "human:o" }, strict)
          )
          assert.include(prose.message, "not a ruling token")
          const pending = yield* Effect.flip(
            store.apply({ verb: "record-ruling", id: "CF-0001", norm: "pending", ruledBy: "human:o" }, strict)
          )
          assert.include(pending.message, "pending")
          const unknownNorm = yield* Effect.flip(
            store.apply({ verb: "record-ruling", id: "CF-0001", norm: "N1-over-N9", ruledBy: "human:o" }, strict)
          )
          assert.include(unknownNorm.message, "N9")
          const ok = yield* store.apply(
            { verb: "record-ruling", id: "CF-0001", norm: "N1", ruledBy: "human:o" },
            strict
          )
          assert.strictEqual(rec(ok.doc, "CF-0001").norm_ruling, "N1")
        })
    ))

  it.effect("ADR 0104 (strict policy): members return to accepted only after their class is rejected; a class never reaches disputed", () =>
    withState(
      "memory",
      harness((d) => {
        d.findings[0] = finding("F-0001", { status: "superseded-by-class", class: "CF-0001" })
        d.class_findings = [{ ...finding("CF-0001", { status: "reported" }), members: ["F-0001"] }]
      }),
      (store) =>
        Effect.gen(function*() {
          const early = yield* Effect.flip(
            store.apply({ verb: "set-status", id: "F-0001", status: "accepted" }, strict)
          )
          assert.include(early.message, "only after its class finding is rejected")
          yield* store.apply({ verb: "set-status", id: "CF-0001", status: "accepted" }, strict)
          const disputed = yield* Effect.flip(
            store.apply({ verb: "set-status", id: "CF-0001", status: "disputed" }, strict)
          )
          assert.include(disputed.message, "never reaches 'disputed'")
          const other = yield* withState(
            "memory",
            harness((d) => {
              d.findings[0] = finding("F-0001", { status: "superseded-by-class", class: "CF-0001" })
              d.class_findings = [{ ...finding("CF-0001", { status: "rejected" }), members: ["F-0001"] }]
            }),
            (s2) => s2.apply({ verb: "set-status", id: "F-0001", status: "accepted" }, strict)
          )
          assert.strictEqual(rec(other.doc, "F-0001").status, "accepted")
        })
    ))

  it.effect("ADR 0112: by default the verbs decide as xcheck does (no-op admin verbs, class moves, ruling tokens, clearing on terminal)", () =>
    withState(
      "memory",
      harness((d) => {
        d.findings[0] = finding("F-0001", { status: "superseded-by-class", class: "CF-0001" })
        d.findings.push(finding("F-0002", { status: "closed", refusal: "material-missing" }))
        d.class_findings = [{
          ...finding("CF-0001", { status: "planned", blocked: "norm-ratification", norm_ruling: "pending" }),
          members: ["F-0001"]
        }]
      }),
      (store) =>
        Effect.gen(function*() {
          const same = yield* store.apply({ verb: "set-limit", key: "reopen_limit", value: "2" })
          const again = yield* store.apply({ verb: "set-limit", key: "reopen_limit", value: "2" })
          assert.strictEqual(again.revision, same.revision + 1)
          const ruled = yield* store.apply({
            verb: "record-ruling",
            id: "CF-0001",
            norm: "norm one wins",
            ruledBy: "human:o"
          })
          assert.strictEqual(rec(ruled.doc, "CF-0001").norm_ruling, "norm one wins")
          const back = yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" })
          assert.strictEqual(rec(back.doc, "F-0001").status, "accepted")
          const cleared = yield* store.apply({ verb: "record-refusal", id: "F-0002", clear: true })
          assert.isUndefined(rec(cleared.doc, "F-0002").refusal)
          const noop = yield* Effect.flip(store.apply({ verb: "set-limit", key: "reopen_limit", value: "2" }, strict))
          assert.include(noop.message, "already 2")
        })
    ))

  it.effect("ADR 0105: the progress digest ignores dispatch bookkeeping and sees status changes", () =>
    withState("memory", harness(), (store) =>
      Effect.gen(function*() {
        const { progressDigest } = yield* Effect.promise(() => import("../src/State.js"))
        const d0 = progressDigest(yield* store.load)
        yield* store.openDispatch({ role: "Auditor", executable: "claude", charter: "P-01", prompt: "p", sessionId: A })
        yield* store.finishDispatch({ outcome: "ok" })
        const d1 = yield* store.load
        assert.strictEqual(d1.state_revision, 3)
        assert.strictEqual(progressDigest(d1), d0)
        const moved = yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" })
        assert.notStrictEqual(progressDigest(moved.doc), d0)
      })))

  it.effect("§8.2 45: dispatches never change an earlier byte of the stream", () =>
    withState("memory", harness(), (store) =>
      Effect.gen(function*() {
        yield* store.openDispatch({ role: "Auditor", executable: "claude", charter: "P-01", prompt: "p", sessionId: A })
        const first = yield* store.exportEvents
        yield* store.finishDispatch({ outcome: "ok" })
        yield* store.openDispatch({ role: "Auditor", executable: "claude", charter: "P-01", prompt: "p", sessionId: B })
        yield* store.openDispatch({
          role: "Auditor",
          executable: "claude",
          charter: "P-01",
          prompt: "p",
          sessionId: "3333333333333333"
        })
        const later = yield* store.exportEvents
        assert.isTrue(later.startsWith(first))
        const kinds = new Set((yield* store.events).map((e) => e.event))
        for (const k of ["session_dispatched", "session_finished", "session_abandoned"]) assert.isTrue(kinds.has(k), k)
      })))
})

describe("AuditStore.importState refuses every negative case and stores nothing", () => {
  const negative = JSON.parse(fixture("state/schema-negative-cases.json"))
  for (const { name: backend, skip } of backends) {
    it.effect.skipIf(skip !== undefined)(`${backend}: 59 cases ${skip ?? ""}`, () =>
      Effect.gen(function*() {
        const store = yield* AuditStore.AuditStore
        const base = JSON.parse(fixture("state/valid-full.json"))
        for (const c of negative.cases) {
          const e = yield* Effect.flip(store.importState(JSON.stringify(applyMutation(base, c.mutation))))
          assert.strictEqual(e.code, "invalid-state", c.name)
          assert.include(e.message, c.expect, c.name)
          assert.strictEqual((yield* Effect.flip(store.load)).code, "not-found", `${c.name}: nothing stored`)
        }
      }).pipe(Effect.provide(layers[backend])))
  }
})
