import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

// The built CLI runs its program from `dist/program.cjs` through a V8 code cache in the user's
// cache directory (ADR 0010). These run the built bundle (`.ci/run` builds before the tests).

const dist = path.resolve(import.meta.dirname, "..", "dist")
const bin = path.join(dist, "bin.js")
const built = fs.existsSync(path.join(dist, "program.cjs"))
const skip = built ? false : `the CLI is not built (${dist}/program.cjs); build first`

const steward = (args: ReadonlyArray<string>, env: Record<string, string | undefined>, cwd: string) => {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: undefined, ...env },
    encoding: "utf8"
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

const scratch = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-program-cache-")))
  fs.mkdirSync(path.join(root, "state"))
  fs.mkdirSync(path.join(root, "ws"))
  return { root, cache: path.join(root, "cache"), steward: path.join(root, "cache", "steward") }
}

const digest = () => fs.readFileSync(path.join(dist, "program.cjs.sha256"), "utf8").trim()
const place = (file: string) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < file.length; i++) hash = Math.imul(hash ^ file.charCodeAt(i), 0x01000193) >>> 0
  return hash.toString(16).padStart(8, "0")
}
const prefix = () => `program-${place(path.join(dist, "program.cjs"))}-`
const cacheName = () => `${prefix()}${digest().slice(0, 32)}-${process.version}-${process.arch}.v8cache`

// a help page, a refused verb (exit 2), the shell grammar (web-tree-sitter, required from the
// bundle), a settled scripted session
const commands = (s: ReturnType<typeof scratch>): ReadonlyArray<ReadonlyArray<string>> => {
  const script = path.join(s.root, "script.jsonl")
  fs.writeFileSync(script, `${JSON.stringify({ text: "Hello there." })}\n`)
  return [
    ["session", "--help"],
    ["session", "lst"],
    ["policy", "check", "--state-dir", path.join(s.root, "state"), "--json", "--", "git status && rm -rf /"],
    [
      "session",
      "run",
      "--state-dir",
      path.join(s.root, "state"),
      "--script",
      script,
      "--workspace",
      path.join(s.root, "ws"),
      "Say hello"
    ]
  ]
}

// a session's id and time differ from run to run; everything else must not
const stable = (text: string) =>
  text.replace(/s\d{8}-\d{6}-[0-9a-f]{4}/g, "SESSION").replace(/\d+(\.\d+)? ?m?s\b/g, "T")

describe.skipIf(skip)("the program through the V8 code cache", () => {
  it("the first run writes the cache, later runs read it, and every run answers as without it", () => {
    const s = scratch()
    const env = { XDG_CACHE_HOME: s.cache }
    let written: number | undefined
    for (const args of commands(s)) {
      const without = steward(args, { ...env, NODE_DISABLE_COMPILE_CACHE: "1" }, s.root)
      const first = steward(args, env, s.root)
      written ??= fs.statSync(path.join(s.steward, cacheName())).ino
      const second = steward(args, env, s.root)
      for (const run of [first, second]) {
        assert.strictEqual(run.status, without.status, args.join(" "))
        assert.strictEqual(stable(run.stdout), stable(without.stdout), args.join(" "))
        assert.strictEqual(stable(run.stderr), stable(without.stderr), args.join(" "))
      }
    }
    assert.deepStrictEqual(fs.readdirSync(s.steward), [cacheName()])
    // written once (a new file replaces a rejected cache): V8 accepted it on every later run
    assert.strictEqual(fs.statSync(path.join(s.steward, cacheName())).ino, written)
    assert.strictEqual(fs.statSync(s.steward).mode & 0o777, 0o700)
    assert.strictEqual(fs.statSync(path.join(s.steward, cacheName())).mode & 0o777, 0o600)
    assert.isAbove(fs.statSync(path.join(s.steward, cacheName())).size, 0)
  })

  it("NODE_DISABLE_COMPILE_CACHE writes nothing", () => {
    const s = scratch()
    const run = steward(["--help"], { XDG_CACHE_HOME: s.cache, NODE_DISABLE_COMPILE_CACHE: "1" }, s.root)
    assert.strictEqual(run.status, 0)
    assert.isFalse(fs.existsSync(s.steward))
  })

  it("a directory others can write is not used: V8 checks a cache's length, not its content", () => {
    const s = scratch()
    fs.mkdirSync(s.steward, { recursive: true })
    fs.chmodSync(s.steward, 0o777)
    const run = steward(["--help"], { XDG_CACHE_HOME: s.cache }, s.root)
    assert.strictEqual(run.status, 0)
    assert.deepStrictEqual(fs.readdirSync(s.steward), [])
  })

  it("a damaged cache is rejected and replaced; an earlier build's cache is removed, another install's kept", () => {
    const s = scratch()
    fs.mkdirSync(s.steward, { recursive: true, mode: 0o700 })
    const stale = `${prefix()}${"0".repeat(32)}-${process.version}-${process.arch}.v8cache`
    const elsewhere = `program-${place("/elsewhere/dist/program.cjs")}-${
      digest().slice(0, 32)
    }-${process.version}-${process.arch}.v8cache`
    fs.writeFileSync(path.join(s.steward, stale), "old", { mode: 0o600 })
    fs.writeFileSync(path.join(s.steward, elsewhere), "other install", { mode: 0o600 })
    fs.writeFileSync(path.join(s.steward, cacheName()), Buffer.alloc(4096, 7), { mode: 0o600 })
    const expected = steward(["session", "lst"], { NODE_DISABLE_COMPILE_CACHE: "1" }, s.root)
    const run = steward(["session", "lst"], { XDG_CACHE_HOME: s.cache }, s.root)
    assert.deepStrictEqual(run, expected)
    assert.deepStrictEqual(fs.readdirSync(s.steward).sort(), [cacheName(), elsewhere].sort())
    assert.notDeepEqual(fs.readFileSync(path.join(s.steward, cacheName())), Buffer.alloc(4096, 7))
  })
})
