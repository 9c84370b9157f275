/**
 * A run as a `Stream` of its committed events (issue 35 item 1, ADR 0572): events arrive while a
 * slow tool still runs, a late consumer gets the stored ones then the live ones without a gap or a
 * duplicate, a second store handle on the same SQLite file follows by polling, errors are typed
 * and interrupting the stream interrupts the run.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Fiber, Layer, Queue, Schema, Stream, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as Event from "../src/Event.js"
import * as EventStore from "../src/EventStore.js"
import * as RunStream from "../src/RunStream.js"
import * as ScriptedModel from "../src/ScriptedModel.js"
import * as Session from "../src/Session.js"
import * as Tools from "../src/Tools.js"
import { layer, script, workspace } from "./support/env.js"

/** A tool that says when it started and finishes only when released (a slow tool, no wall clock). */
const gated = (entered: Deferred.Deferred<void>, release: Deferred.Deferred<void>, interrupted: Array<true>) =>
  Tools.make({
    name: "gate",
    description: "Waits until the test releases it (test).",
    input: Schema.Struct({}),
    governance: () => ({ tool: "mcp", name: "gate" }),
    execute: () =>
      Deferred.succeed(entered, undefined).pipe(
        Effect.zipRight(Deferred.await(release)),
        Effect.as({ ok: true, output: "released" }),
        Effect.onInterrupt(() => Effect.sync(() => interrupted.push(true)))
      )
  })

const turns = script({ toolCalls: [{ name: "gate", input: {} }] }, { text: "Done." })
const rules = [{ id: "gate", action: "mcp", resource: "gate", effect: "allow" }] as const

const gates = Effect.all({
  entered: Deferred.make<void>(),
  release: Deferred.make<void>(),
  interrupted: Effect.succeed<Array<true>>([])
})

/** Take from the queue until an event of `type` arrives; everything taken, in order. */
const until = (queue: Queue.Queue<Event.SessionEvent>, type: string) =>
  Effect.iterate({ seen: [] as Array<Event.SessionEvent>, done: false }, {
    while: (s) => !s.done,
    body: (s) => Effect.map(Queue.take(queue), (e) => ({ seen: [...s.seen, e], done: e.type === type }))
  }).pipe(Effect.map((s) => s.seen))

const stored = (id: string, run: string) =>
  Effect.flatMap(EventStore.EventStore, (store) => store.read(id)).pipe(
    Effect.map((es) => es.filter((e) => e.run === run).map((e) => e.seq))
  )

describe("RunStream.run", () => {
  it.scoped("streams each event as it is committed: the call is seen while the tool still runs", () =>
    Effect.gen(function*() {
      const g = yield* gates
      return yield* Effect.gen(function*() {
        const sessions = yield* Session.Sessions
        const { id } = yield* sessions.create({ workspace: workspace(), rules })
        const queue = yield* Queue.unbounded<Event.SessionEvent>()
        const fiber = yield* RunStream.run(id, "Wait for the gate").pipe(
          Stream.runForEach((e) => Queue.offer(queue, e)),
          Effect.fork
        )
        yield* Deferred.await(g.entered)
        const early = yield* until(queue, "tool.call")
        // The tool is still blocked: no result and no settle can have been committed yet.
        assert.strictEqual(early[0]?.type, "run.start")
        assert.isFalse(early.some((e) => e.type === "tool.result" || e.type === "run.settle"))
        assert.isFalse(yield* Deferred.isDone(g.release))
        yield* Deferred.succeed(g.release, undefined)
        yield* Fiber.join(fiber)
        const late = Chunk.toReadonlyArray(yield* Queue.takeAll(queue))
        const all = [...early, ...late]
        assert.strictEqual(all.at(-1)?.type, "run.settle")
        assert.strictEqual((all.at(-1)?.data as any).status, "completed")
        assert.isTrue(late.some((e) => e.type === "tool.result"))
        // Exactly the run's stored events, once each, in order.
        const run = all[0]!.run!
        assert.deepStrictEqual(all.map((e) => e.seq), yield* stored(id, run))
        assert.isTrue(all.every((e) => e.run === run))
      }).pipe(Effect.provide(layer(turns, { tools: [gated(g.entered, g.release, g.interrupted)] })))
    }))

  it.scoped("a run that fails to start fails the stream with its typed error", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace() })
      const error = yield* RunStream.run(id, "   ").pipe(Stream.runDrain, Effect.flip)
      assert.strictEqual(error.code, "INVALID_INPUT")
      const missing = yield* RunStream.run("nope", "Hello").pipe(Stream.runDrain, Effect.flip)
      assert.strictEqual(missing.code, "SESSION_NOT_FOUND")
    }).pipe(Effect.provide(layer(script({ text: "Done." })))))

  it.scoped("interrupting the stream interrupts the run; it stays open, and RunStream.resume streams its re-drive", () =>
    Effect.gen(function*() {
      const g = yield* gates
      return yield* Effect.gen(function*() {
        const sessions = yield* Session.Sessions
        const { id } = yield* sessions.create({ workspace: workspace(), rules })
        const fiber = yield* RunStream.run(id, "Wait for the gate").pipe(Stream.runDrain, Effect.fork)
        yield* Deferred.await(g.entered)
        yield* Fiber.interrupt(fiber)
        assert.deepStrictEqual(g.interrupted, [true])
        const view = yield* sessions.show(id)
        assert.strictEqual(view.runs.length, 1)
        assert.isNull(view.runs[0]!.status)
        // Re-driven as a stream: only what the resume commits, ending with the settle.
        const { lastSeq } = yield* Effect.flatMap(EventStore.EventStore, (store) => store.get(id))
        const resumed = Chunk.toReadonlyArray(yield* Stream.runCollect(RunStream.resume(id)))
        assert.isTrue(resumed.every((e) => e.seq > lastSeq && e.run === `${id}.r1`))
        assert.strictEqual(resumed.at(-1)?.type, "run.settle")
        assert.deepStrictEqual(
          resumed.map((e) => e.seq),
          (yield* stored(id, `${id}.r1`)).filter((seq) => seq > lastSeq)
        )
        const none = yield* RunStream.resume(id).pipe(Stream.runDrain, Effect.flip)
        assert.strictEqual(none.code, "RUN_NOT_FOUND")
      }).pipe(Effect.provide(layer(turns, { tools: [gated(g.entered, g.release, g.interrupted)] })))
    }))
})

describe("RunStream at a pause (ADR 0573)", () => {
  it.scoped("a run's stream ends with its pause; approving streams the same run from the call to its settle", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace(), level: "assist" })
      const first = Chunk.toReadonlyArray(yield* Stream.runCollect(RunStream.run(id, "Say hi in the shell")))
      assert.strictEqual(first.at(-1)?.type, "run.pause")
      const { pending } = yield* sessions.show(id)
      // A follower through pauses is still waiting when the answer comes, and sees it to the settle.
      const through = yield* RunStream.follow(id, `${id}.r1`, { throughPauses: true }).pipe(
        Stream.runCollect,
        Effect.fork
      )
      const events = Chunk.toReadonlyArray(
        yield* Stream.runCollect(RunStream.approve(id, pending[0]!.callId, { by: "alice" }))
      )
      assert.isTrue(events.every((e) => e.run === `${id}.r1`))
      assert.isFalse(events.some((e) => e.type === "run.start"))
      assert.include((events.find((e) => e.type === "tool.result")?.data as any).output, "11")
      assert.strictEqual(events.at(-1)?.type, "run.settle")
      const all = yield* stored(id, `${id}.r1`)
      assert.deepStrictEqual(events.map((e) => e.seq), all.filter((seq) => seq > first.at(-1)!.seq))
      assert.deepStrictEqual(Chunk.toReadonlyArray(yield* Fiber.join(through)).map((e) => e.seq), all)
      const gone = yield* RunStream.approve(id, pending[0]!.callId).pipe(Stream.runDrain, Effect.flip)
      assert.strictEqual(gone.code, "INVALID_INPUT")
      assert.include(gone.message, pending[0]!.callId)
    }).pipe(Effect.provide(layer(script(
      { toolCalls: [{ name: "shell", input: { command: "node -e \"console.log(11)\"" } }] },
      { text: "It printed 11." }
    )))))
})

describe("RunStream.follow", () => {
  it.scoped("a consumer that starts mid-run gets the stored events, then the live ones, no gap or duplicate", () =>
    Effect.gen(function*() {
      const g = yield* gates
      return yield* Effect.gen(function*() {
        const sessions = yield* Session.Sessions
        const { id } = yield* sessions.create({ workspace: workspace(), rules })
        const started = yield* Deferred.make<string>()
        const driver = yield* Effect.fork(sessions.run(id, "Wait for the gate", { started }))
        const run = yield* Deferred.await(started)
        yield* Deferred.await(g.entered)
        const follower = yield* RunStream.follow(id, run).pipe(Stream.runCollect, Effect.fork)
        yield* Deferred.succeed(g.release, undefined)
        const outcome = yield* Fiber.join(driver)
        const seen = Chunk.toReadonlyArray(yield* Fiber.join(follower))
        assert.strictEqual(outcome.run, run)
        assert.deepStrictEqual(seen.map((e) => e.seq), yield* stored(id, run))
        assert.strictEqual(seen.at(-1)?.type, "run.settle")
        // A settled run: its stored events, then the end.
        const again = Chunk.toReadonlyArray(yield* Stream.runCollect(RunStream.follow(id, run)))
        assert.deepStrictEqual(again.map((e) => e.seq), seen.map((e) => e.seq))
        const unknown = yield* RunStream.follow("nope", run).pipe(Stream.runDrain, Effect.flip)
        assert.strictEqual(unknown.code, "SESSION_NOT_FOUND")
      }).pipe(Effect.provide(layer(turns, { tools: [gated(g.entered, g.release, g.interrupted)] })))
    }))

  it.scoped("a second store handle on the same SQLite file follows a run another handle drives", () =>
    Effect.gen(function*() {
      const g = yield* gates
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "runstream-")), "db.sqlite")
      const handle = () => EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: file })), Layer.orDie)
      const driving = Session.layer({ tools: [gated(g.entered, g.release, g.interrupted)] }).pipe(
        Layer.provideMerge(Layer.mergeAll(
          handle(),
          ScriptedModel.layerFromText(turns),
          NodeContext.layer,
          FetchHttpClient.layer,
          Tools.layerAskUserUnavailable
        )),
        Layer.orDie
      )
      const other = yield* Layer.build(handle())
      yield* Effect.gen(function*() {
        const sessions = yield* Session.Sessions
        const { id } = yield* sessions.create({ workspace: workspace(), rules })
        const run = `${id}.r1`
        // The other handle's commits never wake this one: it sees them by polling (TestClock).
        const queue = yield* Queue.unbounded<Event.SessionEvent>()
        const follower = yield* RunStream.follow(id, run, { poll: 50 }).pipe(
          Stream.runForEach((e) => Queue.offer(queue, e)),
          Effect.provide(other),
          Effect.fork
        )
        const driver = yield* Effect.fork(sessions.run(id, "Wait for the gate"))
        yield* Deferred.await(g.entered)
        const tick = TestClock.adjust("50 millis")
        const early = yield* Effect.iterate([] as Array<Event.SessionEvent>, {
          while: (seen) => !seen.some((e) => e.type === "tool.call"),
          body: (seen) =>
            Effect.zipRight(
              tick,
              Effect.map(Queue.takeAll(queue), (more) => [...seen, ...Chunk.toReadonlyArray(more)])
            )
        })
        assert.isFalse(early.some((e) => e.type === "tool.result"))
        yield* Deferred.succeed(g.release, undefined)
        yield* Fiber.join(driver)
        const rest = yield* Effect.iterate([] as Array<Event.SessionEvent>, {
          while: (seen) => !seen.some((e) => e.type === "run.settle"),
          body: (seen) =>
            Effect.zipRight(
              tick,
              Effect.map(Queue.takeAll(queue), (more) => [...seen, ...Chunk.toReadonlyArray(more)])
            )
        })
        yield* Fiber.join(follower)
        const all = [...early, ...rest]
        assert.deepStrictEqual(all.map((e) => e.seq), yield* stored(id, run))
        assert.strictEqual(all.at(-1)?.type, "run.settle")
      }).pipe(Effect.provide(driving))
    }))
})
