/**
 * Libraries do not know their host (issue 18 item 4): the engine takes its workspace and home
 * from the caller — the home, when left out, from the host's `ConfigProvider` — and never from
 * `process.cwd()` or `os.homedir()`.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { Policy } from "../src/index.js"
import { Parser } from "./helpers.js"

describe("workspace and home are explicit", () => {
  it.effect("an engine without a workspace is input-invalid naming the option", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Policy.compile({ home: "/home/dev" }))
      assert.strictEqual(error.code, "input-invalid")
      assert.strictEqual(error.key, "workspace")
    }))

  it.effect("the home comes from the option, else from the host's configured HOME", () =>
    Effect.gen(function*() {
      const explicit = yield* Policy.compile({ workspace: "/srv/app", home: "/home/given" })
      assert.strictEqual(explicit.home, "/home/given")
      const configured = yield* Policy.compile({ workspace: "/srv/app" }).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["HOME", "/home/configured"]])))
      )
      assert.strictEqual(configured.home, "/home/configured")
      assert.strictEqual(configured.workspace, "/srv/app")
      const neither = yield* Effect.flip(
        Policy.compile({ workspace: "/srv/app" }).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
      )
      assert.strictEqual(neither.code, "input-invalid")
      assert.strictEqual(neither.key, "home")
    }))

  it.effect("`~` resolves against the given home, not the machine's", () =>
    Effect.gen(function*() {
      const engine = yield* Policy.make({ level: "execute", workspace: "/srv/app", home: "/home/given" })
      const decision = yield* engine.decide({ tool: "read", paths: ["~/.ssh/id_rsa"] })
      assert.include(decision.segments.map((s) => JSON.stringify(s)).join(" "), "/home/given/.ssh/id_rsa")
    }).pipe(Effect.provide(Parser)))
})
