/**
 * A child process for the kill -9 tests: runs one request in a session stored in a SQLite file
 * and waits inside a long shell call until the parent kills it.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Sandbox } from "@steward/governance-rules"
import { Effect, Layer } from "effect"
import * as EventStore from "../../src/EventStore.js"
import * as ScriptedModel from "../../src/ScriptedModel.js"
import * as Session from "../../src/Session.js"
import * as Tools from "../../src/Tools.js"

const [file, workspace, id, scriptText] = process.argv.slice(2) as [string, string, string, string]

const program = Effect.gen(function*() {
  const sessions = yield* Session.Sessions
  yield* sessions.create({ id, workspace })
  yield* sessions.run(id, "Do the long thing")
})

const deps = Layer.mergeAll(
  EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: file }))),
  ScriptedModel.layerFromText(scriptText),
  NodeContext.layer,
  FetchHttpClient.layer,
  Tools.layerAskUserUnavailable,
  // STEWARD_TEST_SANDBOX=1: the shell tool runs inside the OS sandbox (ADR 0563)
  process.env.STEWARD_TEST_SANDBOX === "1" ? Sandbox.layerLinux() : Layer.empty
)

Effect.runPromise(program.pipe(Effect.provide(Session.layer().pipe(Layer.provideMerge(deps))))).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(String(error))
    process.exit(1)
  }
)
