/**
 * The sessions service does not know its host (issue 18 item 4): the home directory the engine
 * and the hooks resolve `~` against is an option, else the `HOME` value of the host's
 * `ConfigProvider` — never `os.homedir()`.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as Session from "../src/Session.js"
import { layer, script, workspace } from "./support/env.js"

const none = ConfigProvider.fromMap(new Map())
const build = (options: Session.Options) =>
  Effect.scoped(Layer.build(layer(script({ text: "done" }), options))).pipe(Effect.withConfigProvider(none))

describe("Session home", () => {
  it.effect("without a home option or a configured HOME, building the service is INVALID_INPUT", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(build({}))
      assert.isTrue(exit._tag === "Failure")
      assert.include(JSON.stringify(exit), "the session needs a home directory")
    }))

  it.effect("an explicit home needs nothing from the host, and a session runs under it", () =>
    Effect.gen(function*() {
      const sessions = yield* Session.Sessions
      const { id } = yield* sessions.create({ workspace: workspace() })
      const outcome = yield* sessions.run(id, "hi")
      assert.strictEqual(outcome.status, "completed")
    }).pipe(Effect.provide(layer(script({ text: "done" }), { home: "/home/given" })), Effect.withConfigProvider(none)))
})
