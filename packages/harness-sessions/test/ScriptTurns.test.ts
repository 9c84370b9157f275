/**
 * The scripted model as a testing tool (issue 35 item 4, ADR 0574): a failed call does not use up
 * its turn unless the script says so, `position` serves a later drive from where a stored session
 * left the script, and every tool's input schema is published (`Tools.describe`).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as EventStore from "../src/EventStore.js"
import * as ScriptedModel from "../src/ScriptedModel.js"
import * as Session from "../src/Session.js"
import * as Tools from "../src/Tools.js"
import { script, workspace } from "./support/env.js"

// A session's store on a file, and the sessions service over it with `text` served from where
// the stored session left the script (what the CLI's `continue --script` does).
const drive = <A>(file: string, text: string, body: (sessions: Session.Sessions["Type"]) => Effect.Effect<A, any>) =>
  Effect.gen(function*() {
    const store = EventStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: file })))
    const stored = yield* Effect.flatMap(
      EventStore.EventStore,
      (s) =>
        Effect.flatMap(
          s.list,
          (rows) => rows.length === 0 ? Effect.succeed([]) : s.read(rows[0]!.id, { types: ["model.call"] })
        )
    ).pipe(
      Effect.provide(store)
    )
    return yield* Effect.flatMap(Session.Sessions, body).pipe(
      Effect.provide(
        Session.layer().pipe(
          Layer.provideMerge(Layer.mergeAll(
            store,
            ScriptedModel.layerFromText(text, ScriptedModel.position(stored)),
            NodeContext.layer,
            FetchHttpClient.layer,
            Tools.layerAskUserUnavailable
          )),
          Layer.orDie
        )
      )
    )
  }).pipe(Effect.orDie)

const tmpFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "harness-script-")), "steward.sqlite")

describe("ScriptedModel: a failed call does not use up its turn", () => {
  it.effect("an edit with wrong field names fails the run naming the turn; the fixed line is served on continue", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      const ws = workspace()
      fs.writeFileSync(path.join(ws, "a.txt"), "one\n")
      const bad = script(
        { toolCalls: [{ name: "edit", input: { path: "a.txt", old: "one", new: "two" } }] },
        { text: "Edited." }
      )
      const first = yield* drive(file, bad, (sessions) =>
        Effect.gen(function*() {
          const { id } = yield* sessions.create({ workspace: ws })
          return yield* sessions.run(id, "Edit a.txt")
        }))
      assert.deepStrictEqual([first.status, first.code], ["failed", "MODEL_FAILED"])
      assert.include(first.reason!, "script turn 1: the harness refused its call(s) as invalid (invalid call to edit")
      assert.include(first.reason!, ScriptedModel.NOT_USED_UP)
      // The person fixes line 1 in place; the session continues from it.
      const fixed = script(
        { toolCalls: [{ name: "edit", input: { path: "a.txt", oldString: "one", newString: "two" } }] },
        { text: "Edited." }
      )
      const next = yield* drive(file, fixed, (sessions) => sessions.run(first.session, "Try again"))
      assert.strictEqual(next.status, "completed")
      assert.strictEqual(fs.readFileSync(path.join(ws, "a.txt"), "utf8"), "two\n")
    }))

  it.effect("a script that ran out uses no turn: a line appended later is the next served", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      const ws = workspace()
      const one = script({ toolCalls: [{ name: "todo_write", input: { todos: [] } }] })
      const first = yield* drive(file, one, (sessions) =>
        Effect.gen(function*() {
          const { id } = yield* sessions.create({ workspace: ws })
          return yield* sessions.run(id, "Plan")
        }))
      assert.strictEqual(first.status, "failed")
      const stillOut = yield* drive(file, one, (sessions) => sessions.run(first.session, "Again"))
      assert.strictEqual(stillOut.status, "failed")
      const two = `${one}\n${JSON.stringify({ text: "Planned." })}`
      const done = yield* drive(file, two, (sessions) => sessions.run(first.session, "Again"))
      assert.strictEqual(done.status, "completed")
    }))

  it("position counts served turns only", () => {
    const call = (data: unknown) => ({ type: "model.call", data })
    assert.deepStrictEqual(
      ScriptedModel.position([
        call({ for: "agent" }),
        call({ for: "agent", error: `script turn 1: … ${ScriptedModel.NOT_USED_UP} — fix it` }),
        call({ for: "agent" }),
        call({ for: "agent", error: "the script has 2 turns; call 3 has none" }),
        call({ for: "checker" })
      ]),
      { agent: 1, checker: 1 }
    )
  })
})

describe("Tools.describe: every tool's input schema", () => {
  it.effect("lists the default toolkit with JSON Schemas; a call written from the schema runs", () =>
    Effect.gen(function*() {
      const described = Tools.describe()
      assert.deepStrictEqual(described.map((t) => t.name), Tools.defaults.map((t) => t.name))
      const edit = described.find((t) => t.name === "edit")!.input as any
      assert.deepStrictEqual(Object.keys(edit.properties), ["path", "oldString", "newString", "replaceAll"])
      assert.deepStrictEqual(edit.required, ["path", "oldString", "newString"])
      // Every required field of every tool, from the schema alone, makes a call the harness takes.
      const ws = workspace()
      fs.writeFileSync(path.join(ws, "a.txt"), "one\n")
      const input = Object.fromEntries(
        (edit.required as Array<string>).map((k) => [k, k === "path" ? "a.txt" : k === "oldString" ? "one" : "two"])
      )
      const done = yield* drive(
        tmpFile(),
        script({ toolCalls: [{ name: "edit", input }] }, { text: "ok" }),
        (s) => Effect.flatMap(s.create({ workspace: ws }), ({ id }) => s.run(id, "Edit"))
      )
      assert.strictEqual(done.status, "completed")
      assert.strictEqual(fs.readFileSync(path.join(ws, "a.txt"), "utf8"), "two\n")
    }))
})
