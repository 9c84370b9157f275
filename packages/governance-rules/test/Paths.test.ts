import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { decide, Parser, shell, tempWorkspace } from "./helpers.js"

// Symlink tests run in temp dirs and never rely on permission denials (CI runs as root).
describe("paths", () => {
  layer(Parser)((it) => {
    it.effect("a final symlink out of the workspace is outside (shell and read tool)", () =>
      Effect.gen(function*() {
        const ws = tempWorkspace()
        fs.symlinkSync("/etc/hostname", path.join(ws, "link"))
        const viaShell = yield* shell("cat link", { workspace: ws })
        assert.strictEqual(viaShell.decision, "ask")
        assert.strictEqual(viaShell.citation.ruleId, "universal.outside-workspace.read")
        assert.strictEqual(viaShell.citation.resource, "/etc/hostname")
        const viaTool = yield* decide({ tool: "read", paths: ["link"] }, { workspace: ws })
        assert.strictEqual(viaTool.decision, "ask")
      }))

    it.effect("an intermediate symlink is resolved before the rest of the path", () =>
      Effect.gen(function*() {
        const ws = tempWorkspace()
        const outside = tempWorkspace()
        fs.mkdirSync(path.join(outside, "sub"))
        fs.symlinkSync(outside, path.join(ws, "dir"))
        const d = yield* decide({ tool: "write", paths: ["dir/sub/new-file.ts"] }, { workspace: ws })
        assert.strictEqual(d.decision, "ask")
        assert.strictEqual(d.citation.resource, path.join(outside, "sub/new-file.ts"))
      }))

    it.effect("`..` after a symlink follows the link target's parent, as the kernel does", () =>
      Effect.gen(function*() {
        const ws = tempWorkspace()
        const outside = tempWorkspace()
        fs.mkdirSync(path.join(outside, "a"))
        fs.symlinkSync(path.join(outside, "a"), path.join(ws, "deep"))
        const d = yield* decide({ tool: "read", paths: ["deep/../secret.txt"] }, { workspace: ws })
        assert.strictEqual(d.citation.resource, path.join(outside, "secret.txt"))
        assert.strictEqual(d.decision, "ask")
      }))

    it.effect("`..` traversal and prefix confusion (/w/app vs /w/app-evil)", () =>
      Effect.gen(function*() {
        const parent = tempWorkspace()
        const ws = path.join(parent, "app")
        fs.mkdirSync(ws)
        fs.mkdirSync(path.join(parent, "app-evil"))
        for (const p of ["../app-evil/x.ts", `${ws}-evil/x.ts`, "src/../../app-evil/x.ts", "../../../../etc/passwd"]) {
          const d = yield* decide({ tool: "write", paths: [p] }, { workspace: ws })
          assert.strictEqual(d.decision, "ask", p)
          assert.isTrue(d.citation.resource.startsWith("/"), d.citation.resource)
        }
        const inside = yield* decide({ tool: "write", paths: [`${ws}/src/a.ts`, "src/../b.ts"] }, { workspace: ws })
        assert.strictEqual(inside.decision, "allow")
        assert.deepStrictEqual(inside.segments.map((s) => s.canonical), ["src/a.ts", "b.ts"])
      }))

    it.effect("a dangling symlink pointing outside is outside", () =>
      Effect.gen(function*() {
        const ws = tempWorkspace()
        fs.symlinkSync("/nonexistent-dir-steward/file", path.join(ws, "out"))
        const d = yield* shell("echo x > out", { workspace: ws })
        assert.strictEqual(d.decision, "ask")
        assert.strictEqual(d.citation.resource, "/nonexistent-dir-steward/file")
      }))

    it.effect("rm through a symlink to home or root is the catastrophic delete", () =>
      Effect.gen(function*() {
        const ws = tempWorkspace()
        const home = tempWorkspace()
        fs.symlinkSync(home, path.join(ws, "h"))
        fs.symlinkSync("/", path.join(ws, "r"))
        assert.strictEqual((yield* shell("rm -rf h/", { workspace: ws, home })).decision, "deny")
        assert.strictEqual((yield* shell("rm -rf r", { workspace: ws, home })).decision, "deny")
        assert.strictEqual((yield* shell("rm -rf h/project", { workspace: ws, home })).decision, "ask")
      }))

    it.effect("a command reached through a symlink to a system binary is that binary", () =>
      Effect.gen(function*() {
        const ws = tempWorkspace()
        const rm = fs.realpathSync("/bin/rm")
        fs.symlinkSync(rm, path.join(ws, "x"))
        const d = yield* shell("./x -rf /", { workspace: ws })
        assert.strictEqual(d.decision, "deny")
        assert.strictEqual(d.citation.ruleId, "universal.rm-root")
        assert.strictEqual((yield* shell("./x -rf build", { workspace: ws })).segments[0]!.canonical, "rm -f -r build")
      }))

    it.effect("symlink loops do not hang and are decided", () =>
      Effect.gen(function*() {
        const ws = tempWorkspace()
        fs.symlinkSync(path.join(ws, "b"), path.join(ws, "a"))
        fs.symlinkSync(path.join(ws, "a"), path.join(ws, "b"))
        const d = yield* decide({ tool: "read", paths: ["a/x"] }, { workspace: ws })
        assert.include(["allow", "ask"], d.decision)
      }))

    it.effect("a symlinked workspace root is resolved (real paths on both sides)", () =>
      Effect.gen(function*() {
        const real = tempWorkspace()
        const alias = path.join(tempWorkspace(), "alias")
        fs.symlinkSync(real, alias)
        const d = yield* decide({ tool: "write", paths: [path.join(real, "x.ts")] }, { workspace: alias })
        assert.strictEqual(d.decision, "allow")
        assert.strictEqual(d.segments[0]!.canonical, "x.ts")
      }))

    it.effect("~ and home paths: home itself and outside-workspace files under it ask", () =>
      Effect.gen(function*() {
        const ws = tempWorkspace()
        const d = yield* decide({ tool: "read", paths: ["~/notes.txt"] }, { workspace: ws, home: os.homedir() })
        assert.strictEqual(d.decision, "ask")
      }))
  })
})
