import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeScene, removeScene, runIn, SandboxLive, type Scene, skipReason } from "./sandboxHelpers.js"

// Issue 31 Acceptance: the same routine commands succeed inside the boundary.
const suite = skipReason === null ? describe : describe.skip

const pytest = childProcess.spawnSync("python3", ["-m", "pytest", "--version"]).status === 0
if (!pytest) {
  console.warn("SKIPPED python3 -m pytest inside the sandbox: pytest is not installed (Debian: python3-pytest)")
}

const withScene = <A, E, R>(body: (scene: Scene) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.sync(makeScene), body, (scene) => Effect.sync(() => removeScene(scene)))

const write = (scene: Scene, files: Record<string, string>) => {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(scene.workspace, name)), { recursive: true })
    fs.writeFileSync(path.join(scene.workspace, name), content)
  }
}

suite("Sandbox (bubblewrap): routine work succeeds inside", () => {
  it.effect("node --test and npm test on a small package", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        write(scene, {
          "package.json": JSON.stringify({ name: "tiny", version: "1.0.0", scripts: { test: "node --test" } }),
          "test/add.test.js": "const test = require('node:test'); const assert = require('node:assert');\n" +
            "test('adds', () => assert.strictEqual(1 + 1, 2));\n"
        })
        const node = yield* runIn(scene, "node --test")
        assert.strictEqual(node.exitCode, 0, node.err)
        assert.match(node.out, /pass 1/)
        const npm = yield* runIn(scene, "npm test")
        assert.strictEqual(npm.exitCode, 0, npm.err)
        assert.match(npm.out, /pass 1/)
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect.skipIf(!pytest)("python3 -m pytest -q", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        write(scene, { "test_add.py": "def test_add():\n    assert 1 + 1 == 2\n" })
        const done = yield* runIn(scene, "python3 -m pytest -q")
        assert.strictEqual(done.exitCode, 0, done.out + done.err)
        assert.match(done.out, /1 passed/)
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("git status, diff and commit in the workspace; make", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        write(scene, { "Makefile": "out.txt: src/index.ts\n\tcp src/index.ts out.txt\n" })
        fs.appendFileSync(path.join(scene.workspace, "src/index.ts"), "export const y = 2\n")
        const done = yield* runIn(
          scene,
          "git status --short && git diff --stat && git add -A && git commit -q -m inside && git log --oneline -1 && make"
        )
        assert.strictEqual(done.exitCode, 0, done.err)
        assert.match(done.out, /M src\/index.ts/)
        assert.match(done.out, /inside/)
        const log = childProcess.execFileSync("git", ["log", "--format=%s", "-1"], { cwd: scene.workspace }).toString()
        assert.strictEqual(log.trim(), "inside")
        // the commit holds the work and none of the placeholders
        const files = childProcess.execFileSync("git", ["show", "--name-only", "--format=", "HEAD"], {
          cwd: scene.workspace
        }).toString().trim().split("\n").sort()
        assert.deepStrictEqual(files, ["Makefile", "src/index.ts"])
        assert.isTrue(fs.existsSync(path.join(scene.workspace, "out.txt")))
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("a local server on 127.0.0.1 reached by its own test", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        write(scene, {
          "server.test.js": "const test = require('node:test'); const assert = require('node:assert');\n" +
            "const http = require('node:http');\n" +
            "test('serves', async () => {\n" +
            "  const server = http.createServer((q, r) => r.end('pong')).listen(0, '127.0.0.1');\n" +
            "  await new Promise((r) => server.on('listening', r));\n" +
            "  const body = await (await fetch('http://127.0.0.1:' + server.address().port)).text();\n" +
            "  server.close(); assert.strictEqual(body, 'pong');\n" +
            "});\n"
        })
        const done = yield* runIn(scene, "node --test server.test.js")
        assert.strictEqual(done.exitCode, 0, done.out + done.err)
        assert.match(done.out, /pass 1/)
      })
    ).pipe(Effect.provide(SandboxLive)))
})
