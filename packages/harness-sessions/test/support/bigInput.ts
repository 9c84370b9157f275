/**
 * A child process for the bounded-input test: one session on a SQLite file whose model sends one
 * tool call with a 15 MB input; prints the store's size before and after and the peak RSS.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as EventStore from "../../src/EventStore.js"
import * as ScriptedModel from "../../src/ScriptedModel.js"
import * as Session from "../../src/Session.js"
import * as Tools from "../../src/Tools.js"

const [file, workspace] = process.argv.slice(2) as [string, string]

const size = () => ["", "-wal"].reduce((n, s) => n + (fs.existsSync(file + s) ? fs.statSync(file + s).size : 0), 0)

const turns: ReadonlyArray<ScriptedModel.Turn> = [
  {
    for: "agent",
    invalid: true,
    toolCalls: [{ name: "write", input: { path: "big.txt", content: "x".repeat(15 * 1024 * 1024) } }]
  },
  { for: "agent", text: "Done." }
]

const program = Effect.gen(function*() {
  const sessions = yield* Session.Sessions
  const { id } = yield* sessions.create({ workspace })
  const before = size()
  // the high-water mark before the run: Node, the TypeScript loader this test runs under and the
  // layers — what the run itself adds is the peak minus this
  const loadedRssKiB = process.resourceUsage().maxRSS
  const outcome = yield* sessions.run(id, "Write the big file")
  return { status: outcome.status, grew: size() - before, loadedRssKiB }
})

const deps = Layer.mergeAll(
  EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: file }))),
  ScriptedModel.layer(turns),
  NodeContext.layer,
  FetchHttpClient.layer,
  Tools.layerAskUserUnavailable
)

Effect.runPromise(program.pipe(Effect.provide(Session.layer().pipe(Layer.provideMerge(deps))))).then(
  (r) => {
    process.stdout.write(JSON.stringify({ ...r, maxRssKiB: process.resourceUsage().maxRSS }))
    process.exit(0)
  },
  (error) => {
    process.stderr.write(String(error))
    process.exit(1)
  }
)
