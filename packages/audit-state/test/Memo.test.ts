/**
 * ADR 0141: `next`'s decision, and the full drift check `status` and `metrics` read through, are
 * remembered per revision. A memo is believed only while the store
 * is as that revision's validated write left it, the configuration is the same and every view it
 * verified is unchanged; its decision is the one the full path takes, and a view edited after it
 * is still refused with xcheck's drift message (memory, SQLite and PostgreSQL; the real disk and
 * an in-memory tree).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as AuditError from "../src/AuditError.js"
import * as AuditStore from "../src/AuditStore.js"
import * as Checked from "../src/Checked.js"
import * as Decision from "../src/Decision.js"
import * as Remembered from "../src/internal/project/rememberedCheck.js"
import * as Next from "../src/Next.js"
import * as Project from "../src/Project.js"
import * as ProjectFiles from "../src/ProjectFiles.js"
import * as State from "../src/State.js"
import { A, backends, finding, harness, layers, session } from "./helpers.js"

/** The store with its `load` and `viewMarks` counted: a memo hit loads nothing, or reads no mark. */
const counted = (store: AuditStore.AuditStoreShape) => {
  const loads = { n: 0, marks: 0 }
  const wrapped: AuditStore.AuditStoreShape = {
    ...store,
    load: Effect.tap(store.load, () => void loads.n++),
    viewMarks: (paths) => Effect.tap(store.viewMarks(paths), () => void loads.marks++)
  }
  return { store: wrapped, loads }
}

const renderAll = (p: Project.ProjectPaths, store: AuditStore.AuditStoreShape) =>
  Effect.gen(function*() {
    const doc = yield* store.load
    const rendered = yield* Project.renderViews(p, doc)
    yield* store.markViews(doc.state_revision, rendered.marks)
    return doc
  })

/** States whose decisions differ: a triage stop, run-remediator, a verifier-independence stop, done — and one with an open dispatch. */
const states: ReadonlyArray<readonly [string, string]> = [
  ["a reported finding", harness()],
  ["accepted findings", harness((d) => d.findings = [finding("F-0001", { status: "accepted" }), finding("F-0002")])],
  ["a fixed finding", harness((d) => d.findings = [finding("F-0001", { status: "fixed" })])],
  ["an open dispatch", harness((d) => (d.sessions = [session(A)]))],
  ["nothing left", harness((d) => d.findings = [finding("F-0001", { status: "closed" })])]
]

/** A clock stopped at one instant, so two stores stamp the same times. */
const fixedClock: Clock.Clock = (() => {
  const ms = Date.UTC(2026, 7, 14, 12)
  const real = Clock.make()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => ms,
    currentTimeMillis: Effect.succeed(ms),
    unsafeCurrentTimeNanos: () => BigInt(ms) * 1_000_000n,
    currentTimeNanos: Effect.succeed(BigInt(ms) * 1_000_000n),
    sleep: (d) => real.sleep(d)
  }
})()

const driftOf = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof AuditError.AuditError
    ? exit.cause.error
    : undefined

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`Next.decide (${backend.name}, an in-memory tree)`, () => {
    const p = Project.paths("/steward-next")
    const within = <A, E>(body: Effect.Effect<A, E, AuditStore.AuditStore>) =>
      body.pipe(Effect.provide(layers[backend.name]), Effect.provide(ProjectFiles.layerView(ProjectFiles.memory())))

    it.live("a memo hit is the full path's decision, for every kind of decision", () =>
      Effect.forEach(states, ([name, text]) =>
        within(Effect.gen(function*() {
          const { loads, store } = counted(yield* AuditStore.AuditStore)
          yield* store.importState(text)
          const doc = yield* renderAll(p, store)
          const fresh = Decision.stateAndDecision(doc, Decision.defaultConfig)
          const first = yield* Next.decide(p, store)
          const afterFirst = loads.n
          const second = yield* Next.decide(p, store)
          assert.deepStrictEqual(first.decision, fresh, name)
          assert.deepStrictEqual(second, first, name)
          assert.strictEqual(first.revision, doc.state_revision)
          assert.strictEqual(first.sessionId, State.openDispatch(doc)?.session_id ?? null, name)
          assert.strictEqual(loads.n, afterFirst, `${name}: the second decision loads nothing`)
          return fresh.kind
        }))).pipe(Effect.map((kinds) => assert.strictEqual(new Set(kinds).size, 4))))

    it.live("a view edited after the memo is refused with xcheck's drift message", () =>
      Effect.gen(function*() {
        const view = ProjectFiles.memory()
        yield* Effect.gen(function*() {
          const store = yield* AuditStore.AuditStore
          yield* store.importState(harness())
          yield* renderAll(p, store)
          yield* Next.decide(p, store)
          const body = `${p.audit}/findings/F-0001.md`
          const r = view.read(body, ProjectFiles.MAX_FILE_BYTES)
          const before = r._tag === "bytes" ? new TextDecoder().decode(r.bytes) : ""
          view.writeAtomic(body, before.replace("status: reported", "status: rejected"), 0)
          const error = driftOf(yield* Effect.exit(Next.decide(p, store)))
          assert.strictEqual(error?.code, "drift")
          assert.include(error?.message, "1 generated view(s) disagree with state.json:\n  - findings/F-0001.md:")
        }).pipe(Effect.provide(layers[backend.name]), Effect.provide(ProjectFiles.layerView(view)))
      }))

    it.live("a verb, or a changed configuration, sends next down the full path", () =>
      Effect.gen(function*() {
        const view = ProjectFiles.memory()
        yield* Effect.gen(function*() {
          const { loads, store } = counted(yield* AuditStore.AuditStore)
          yield* store.importState(harness())
          yield* renderAll(p, store)
          yield* Next.decide(p, store)
          const applied = yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" })
          yield* Project.renderViews(p, applied.doc)
          const before = loads.n
          const moved = yield* Next.decide(p, store)
          assert.strictEqual(loads.n, before + 1, "a new revision is decided afresh")
          assert.strictEqual(moved.revision, applied.doc.state_revision)
          assert.deepStrictEqual(moved.decision, Decision.stateAndDecision(applied.doc, Decision.defaultConfig))

          view.writeAtomic(p.conf, "triage_batch_cap = 0\n", 0)
          const again = yield* Next.decide(p, store)
          assert.strictEqual(loads.n, before + 2, "a changed orchestrator.conf is decided afresh")
          const config = yield* Project.readConfig(p)
          assert.deepStrictEqual(again.decision, Decision.stateAndDecision(applied.doc, config))
        }).pipe(Effect.provide(layers[backend.name]), Effect.provide(ProjectFiles.layerView(view)))
      }))
  })
}

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`Checked.load (${backend.name}, an in-memory tree)`, () => {
    const p = Project.paths("/steward-checked")

    it.live("the full check is remembered; a view edited after it is refused with xcheck's message", () =>
      Effect.gen(function*() {
        const view = ProjectFiles.memory()
        yield* Effect.gen(function*() {
          const { loads, store } = counted(yield* AuditStore.AuditStore)
          yield* store.importState(harness((d) => d.findings = [finding("F-0001"), finding("F-0002")]))
          const doc = yield* renderAll(p, store)
          assert.deepStrictEqual(yield* Checked.load(p, store), doc)
          const marksRead = loads.marks
          assert.deepStrictEqual(yield* Checked.load(p, store), doc)
          assert.strictEqual(loads.marks, marksRead, "the second load checks no view by its mark")

          const body = `${p.audit}/findings/F-0002.md`
          const r = view.read(body, ProjectFiles.MAX_FILE_BYTES)
          const before = r._tag === "bytes" ? new TextDecoder().decode(r.bytes) : ""
          view.writeAtomic(body, before.replace("status: reported", "status: rejected"), 0)
          const error = driftOf(yield* Effect.exit(Checked.load(p, store)))
          assert.strictEqual(error?.code, "drift")
          assert.include(error?.message, "1 generated view(s) disagree with state.json:\n  - findings/F-0002.md:")

          // re-rendered, the view agrees again and a verb moves the revision: checked afresh
          yield* renderAll(p, store)
          const applied = yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" })
          yield* Project.renderViews(p, applied.doc)
          const atMove = loads.marks
          assert.deepStrictEqual(yield* Checked.load(p, store), applied.doc)
          assert.strictEqual(loads.marks, atMove + 1)
        }).pipe(Effect.provide(layers[backend.name]), Effect.provide(ProjectFiles.layerView(view)))
      }))
  })
}

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`Checked.carry and Next.prime (${backend.name})`, () => {
    const p = Project.paths("/steward-carry")
    const edit = (view: ProjectFiles.FileView, file: string, from: string, to: string) => {
      const r = view.read(file, ProjectFiles.MAX_FILE_BYTES)
      view.writeAtomic(file, (r._tag === "bytes" ? new TextDecoder().decode(r.bytes) : "").replace(from, to), 0)
    }

    it.live("a verb carries the full check over: the next after it reads neither the state nor a view mark", () =>
      Effect.gen(function*() {
        const view = ProjectFiles.memory()
        yield* Effect.gen(function*() {
          const { loads, store } = counted(yield* AuditStore.AuditStore)
          yield* store.importState(
            harness((d) => d.findings = [finding("F-0001"), finding("F-0002"), finding("F-0003")])
          )
          yield* renderAll(p, store)
          const before = yield* Checked.load(p, store)
          const verified = yield* Checked.remembered(p, store, before)
          assert.isDefined(verified)
          const applied = yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" })
          const changed = Project.changedRecords(before, applied.doc)
          const rendered = yield* Project.renderViews(p, applied.doc, changed)
          yield* store.markViews(applied.doc.state_revision, rendered.marks)
          const carried = yield* Checked.carry(p, store, {
            before,
            verified: verified!,
            after: applied.doc,
            rendered: rendered.marks
          })
          assert.isTrue(carried)
          yield* Next.prime(p, store, applied.doc)

          const atVerb = { ...loads }
          const next = yield* Next.decide(p, store)
          assert.deepStrictEqual([loads.n, loads.marks], [atVerb.n, atVerb.marks], "nothing loaded, no mark read")
          assert.deepStrictEqual(next.decision, Decision.stateAndDecision(applied.doc, Decision.defaultConfig))
          assert.strictEqual(next.revision, applied.doc.state_revision)
          // what was carried is what a full check of the new revision verifies
          assert.deepStrictEqual(
            yield* Checked.remembered(p, store, applied.doc),
            yield* Remembered.checkRemembering(p, store, applied.doc, undefined)
          )

          // a view the verb did not touch, edited after it: still refused with xcheck's message
          edit(view, `${p.audit}/findings/F-0003.md`, "status: reported", "status: rejected")
          const error = driftOf(yield* Effect.exit(Next.decide(p, store)))
          assert.strictEqual(error?.code, "drift")
          assert.include(error?.message, "1 generated view(s) disagree with state.json:\n  - findings/F-0003.md:")
          assert.strictEqual(driftOf(yield* Effect.exit(Checked.load(p, store)))?.code, "drift")
        }).pipe(Effect.provide(layers[backend.name]), Effect.provide(ProjectFiles.layerView(view)))
      }))

    it.live("nothing is carried without a mark for every view, or across more than one revision", () =>
      Effect.gen(function*() {
        const view = ProjectFiles.memory()
        yield* Effect.gen(function*() {
          const store = yield* AuditStore.AuditStore
          yield* store.importState(harness((d) => d.findings = [finding("F-0001"), finding("F-0002")]))
          yield* renderAll(p, store)
          const before = yield* Checked.load(p, store)
          const verified = (yield* Checked.remembered(p, store, before))!
          const once = yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" })
          const twice = yield* store.apply({ verb: "set-status", id: "F-0002", status: "accepted" })
          const rendered = yield* Project.renderViews(p, twice.doc)
          assert.isFalse(
            yield* Checked.carry(p, store, { before, verified, after: twice.doc, rendered: rendered.marks })
          )
          // the render's marks left out: LEDGER.md has nothing to carry
          assert.isFalse(yield* Checked.carry(p, store, { before, verified, after: once.doc, rendered: [] }))
          assert.isUndefined(yield* Checked.remembered(p, store, once.doc))
        }).pipe(Effect.provide(layers[backend.name]), Effect.provide(ProjectFiles.layerView(view)))
      }))
  })
}

const sqlBackends = backends.filter((b) => b.name !== "memory")

for (const backend of sqlBackends) {
  describe.skipIf(backend.skip !== undefined)(`the next memo in SQL (${backend.name}, the real disk)`, () => {
    const project = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-next-"))
    /** A fresh engine (no snapshot cache, as in a new process) over the same database. */
    const opened = <A, E>(body: (store: AuditStore.AuditStoreShape) => Effect.Effect<A, E>) =>
      Effect.flatMap(AuditStore.AuditStore, body).pipe(Effect.provide(Layer.orDie(AuditStore.layerSql)))
    const database = backend.name === "sql"
      ? (dir: string) =>
        import("@effect/sql-sqlite-node/SqliteClient").then((m) => m.layer({ filename: path.join(dir, "s.sqlite") }))
      : () => import("@steward/testing").then((m) => m.SqlBackends.postgresLayer())
    const run = <A, E>(dir: string, body: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      Effect.flatMap(
        Effect.promise(() => database(dir)),
        (layer) => Effect.scoped(Effect.flatMap(Layer.build(layer), (ctx) => Effect.provide(body, ctx)))
      )

    it.live("a memo edited outside the store is not believed; a sealed one is, from a new process", () => {
      const dir = project()
      const p = Project.paths(dir)
      return run(
        dir,
        Effect.gen(function*() {
          yield* opened((s) => Effect.zipRight(s.importState(harness()), renderAll(p, s)))
          const first = yield* opened((s) => Next.decide(p, s))
          const hit = yield* opened((s) => {
            const { loads, store } = counted(s)
            return Effect.map(Next.decide(p, store), (d) => ({ d, loads: loads.n }))
          })
          assert.deepStrictEqual(hit.d, first)
          assert.strictEqual(hit.loads, 0, "a sealed memo at the current revision is believed")

          const sql = yield* SqlClient.SqlClient
          // a forged decision: the memo table is sealed, so the edit unseals the store
          yield* sql`UPDATE audit_state_memo SET body = REPLACE(body, ${first.decision.kind}, 'done')`
          const after = yield* opened((s) => {
            const { loads, store } = counted(s)
            return Effect.map(Next.decide(p, store), (d) => ({ d, loads: loads.n }))
          })
          assert.deepStrictEqual(after.d, first, "the forged memo is not believed")
          assert.strictEqual(after.loads, 1)
        })
      ).pipe(Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))))
    })

    it.live("the gate recorded from a known decision is byte for byte the one recorded from the records", () => {
      const gate = (dir: string, known: boolean, dryRun: boolean) =>
        run(
          dir,
          Effect.gen(function*() {
            const p = Project.paths(dir)
            yield* opened((s) => Effect.zipRight(s.importState(harness()), renderAll(p, s)))
            const next = yield* opened((s) => Next.decide(p, s))
            // one long-lived engine: its cached snapshot must see the appended lines
            return yield* opened((s) =>
              Effect.gen(function*() {
                yield* s.load
                const event = yield* s.recordGate(next.decision, {
                  dryRun,
                  known: known ? { revision: next.revision, sessionId: next.sessionId } : undefined
                }).pipe(Effect.withClock(fixedClock))
                const events = yield* s.events
                assert.deepStrictEqual(events[events.length - (dryRun ? 1 : 2)], event)
                return yield* s.exportEvents
              })
            )
          })
        )
      return Effect.forEach([false, true], (dryRun) =>
        Effect.gen(function*() {
          const light = yield* gate(project(), true, dryRun)
          const full = yield* gate(project(), false, dryRun)
          assert.strictEqual(light, full)
          assert.include(light, "gate_reached")
        }), { discard: true })
    })
  })
}
