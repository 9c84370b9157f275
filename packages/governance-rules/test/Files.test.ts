import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Files, Policy, ShellParser } from "../src/index.js"

// Issue 18: a decision is testable without a real disk — paths resolve through the `Files` service.
const tree = Files.layerMemory({
  "/ws/src/index.ts": "file",
  "/ws/.env": "file",
  "/ws/link": { symlink: "/etc" },
  "/ws/dist": { symlink: "/" },
  "/etc/passwd": "file"
})

const Engine = Policy.layer({ level: "execute", workspace: "/ws", home: "/home/me" }).pipe(
  Layer.provide(Layer.merge(ShellParser.layer, tree)),
  Layer.orDie
)

describe("Files", () => {
  it.effect("the engine resolves symlinks and globs through the provided in-memory tree", () =>
    Effect.gen(function*() {
      const engine = yield* Policy.PolicyEngine
      const decide = (command: string) => engine.decide({ tool: "shell", command }).pipe(Effect.map((d) => d.decision))
      assert.strictEqual(yield* decide("cat src/index.ts"), "allow")
      // `link` points outside the workspace in the tree (not on this machine's disk).
      assert.strictEqual(yield* decide("cat link/passwd"), "ask")
      assert.strictEqual(yield* decide("rm -rf dist"), "deny")
      assert.strictEqual(yield* decide("cat .e?v"), "ask")
      const read = yield* engine.decide({ tool: "read", paths: ["link/passwd"] })
      assert.strictEqual(read.citation.resource, "/etc/passwd")
    }).pipe(Effect.provide(Engine)))

  it("memory trees list their directories and read their links", () => {
    const view = Files.memory({ "/a/b/c": "file", "/a/l": { symlink: "b" } })
    assert.deepStrictEqual([...view.readdir("/a")!].sort(), ["b", "l"])
    assert.deepStrictEqual(view.lstat("/a/b"), { kind: "directory" })
    assert.strictEqual(view.readlink("/a/l"), "b")
    assert.isUndefined(view.lstat("/nope"))
  })
})
