/**
 * Steward's side of the peer bench: a governed session (`Sessions.create` + `run`, a user rule
 * allowing `noop`) with a scripted `LanguageModel` that answers from the prompt it is given, on
 * the memory store or on a SQLite file in WAL with `synchronous=NORMAL` (the host's default,
 * ADR 0565). Creating the session is part of each run: it is what a Steward user does per run.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, ManagedRuntime, Schema, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as EventStore from "../../src/EventStore.js"
import * as Session from "../../src/Session.js"
import * as Tools from "../../src/Tools.js"
import { nextCalls, type Shape } from "./shapes.js"

const noop = Tools.make({
  name: "noop",
  description: "Does nothing (benchmark).",
  input: Schema.Struct({ n: Schema.Number }),
  governance: () => ({ tool: "mcp", name: "noop" }),
  execute: () => Effect.succeed({ ok: true, output: "ok" })
})

const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110, reasoningTokens: undefined, cachedInputTokens: 0 }

const scriptedModel = (shape: Shape) =>
  Layer.succeed(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync((): Array<Response.PartEncoded> => {
          let results = 0
          for (const message of options.prompt.content) if (message.role === "tool") results += message.content.length
          const n = nextCalls(shape, results)
          if (n === 0) return [{ type: "text", text: "Done." }, { type: "finish", reason: "stop", usage }]
          return [
            ...Array.from({ length: n }, (_, i): Response.PartEncoded => ({
              type: "tool-call",
              id: `call_${results + i}`,
              name: "noop",
              params: { n: i }
            })),
            { type: "finish", reason: "tool-calls", usage }
          ]
        }),
      streamText: () => Stream.die("the benchmark model does not stream")
    }).pipe(Effect.runSync)
  )

/** The SQLite store's file in a runner's `dir`. */
export const sqliteFile = "bench.sqlite"

/** The store a bench row runs on. */
export type Store = "memory" | "sqlite"

const storeLayer = (store: Store, dir: string, pragmas: ReadonlyArray<string>): Layer.Layer<EventStore.EventStore> => {
  if (store === "memory") return EventStore.layerMemory
  const normal = Layer.effectDiscard(Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => Effect.forEach(["synchronous = NORMAL", ...pragmas], (pragma) => sql.unsafe(`PRAGMA ${pragma}`))
  ))
  return EventStore.layerSql.pipe(
    Layer.provide(Layer.provideMerge(normal, SqliteClient.layer({ filename: path.join(dir, sqliteFile) }))),
    Layer.orDie
  )
}

/**
 * A Steward runner: `run` runs the shape once; `dispose` closes the runtime; `dir` holds its files.
 * `pragmas` (SQLite only) are set after `synchronous = NORMAL`, e.g. `wal_autocheckpoint = 0`.
 */
export const runner = (shape: Shape, store: Store, pragmas: ReadonlyArray<string> = []) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `harness-bench-peers-${store}-`)))
  const tools = shape.eightTools ? [...Tools.defaults, noop] : [noop]
  const runtime = ManagedRuntime.make(
    Session.layer<Tools.DefaultRequirements>({ tools }).pipe(
      Layer.provideMerge(Layer.mergeAll(
        storeLayer(store, dir, pragmas),
        scriptedModel(shape),
        NodeContext.layer,
        NodeHttpClient.layerUndici,
        Tools.layerAskUserUnavailable
      )),
      Layer.orDie
    )
  )
  let made = 0
  const run = () =>
    runtime.runPromise(Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const view = yield* sessions.create({
        // In creation order, as `Sessions.create`'s default ids are (by the second): the running
        // session's rows append at the end of the SQLite keys (ADR 0577).
        id: `bench-${shape.key}-${String(made++).padStart(8, "0")}`,
        workspace: dir,
        level: "execute",
        rules: [{ id: "bench-noop", action: "mcp", resource: "noop", effect: "allow" }]
      })
      const outcome = yield* sessions.run(view.id, "Run the benchmark.")
      if (outcome.status !== "completed") throw new Error(`run settled ${outcome.status} ${outcome.code}`)
    }))
  const dispose = async () => {
    await runtime.dispose()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return { run, dispose, dir }
}
