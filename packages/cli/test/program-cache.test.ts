import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

// The built CLI runs its program from `dist/program.cjs` through a V8 code cache in the user's
// cache directory, one per verb, and its ES modules when no cache can be used (ADR 0010). These run
// the built bundle (`.ci/run` builds before the tests): with the cache cold, warm, and off (the ES
// modules), every byte of every answer the same.

const dist = path.resolve(import.meta.dirname, "..", "dist")
const bin = path.join(dist, "bin.js")
const built = fs.existsSync(path.join(dist, "program.cjs"))
const skip = built ? false : `the CLI is not built (${dist}/program.cjs); build first`

// Preloaded into each run: records in STEWARD_TEST_COMPILED whether the process compiled
// `program.cjs` (the bundle through the cache) or not (the ES modules), without touching its output.
const probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "steward-program-probe-")), "probe.cjs")
fs.writeFileSync(
  probe,
  `const vm = require("node:vm")
const Script = vm.Script
vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options)
    if (String(options && options.filename).endsWith("program.cjs")) {
      require("node:fs").appendFileSync(process.env.STEWARD_TEST_COMPILED, "program.cjs\\n")
    }
  }
}
require("node:module").syncBuiltinESMExports()
`
)
fs.chmodSync(path.dirname(probe), 0o755)

const steward = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
  cwd: string,
  as: { readonly uid?: number; readonly gid?: number } = {}
) => {
  const compiled = path.join(cwd, `compiled-${Math.random().toString(16).slice(2)}`)
  fs.writeFileSync(compiled, "", { mode: 0o666 })
  fs.chmodSync(compiled, 0o666)
  const result = spawnSync(process.execPath, ["-r", probe, bin, ...args], {
    cwd,
    env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: undefined, STEWARD_TEST_COMPILED: compiled, ...env },
    encoding: "utf8",
    ...as
  })
  const bundle = fs.readFileSync(compiled, "utf8") !== ""
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, bundle }
}
const answer = (run: ReturnType<typeof steward>) => [run.status, run.stdout, run.stderr]

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
const cacheName = (verb: string) =>
  `${prefix()}${verb}-${digest().slice(0, 32)}-${process.version}-${process.arch}.v8cache`

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
  it("a verb's first run writes its cache, later runs read it, and every run answers as without it", () => {
    const s = scratch()
    const env = { XDG_CACHE_HOME: s.cache }
    const verbs = ["session", "session-lst", "policy-check", "session-run"]
    const written = new Map<string, number>()
    for (const [i, args] of commands(s).entries()) {
      const without = steward(args, { ...env, NODE_DISABLE_COMPILE_CACHE: "1" }, s.root)
      const first = steward(args, env, s.root)
      const file = path.join(s.steward, cacheName(verbs[i]!))
      written.set(file, fs.statSync(file).ino)
      const second = steward(args, env, s.root)
      assert.isFalse(without.bundle)
      for (const run of [first, second]) {
        assert.isTrue(run.bundle)
        assert.strictEqual(run.status, without.status, args.join(" "))
        assert.strictEqual(stable(run.stdout), stable(without.stdout), args.join(" "))
        assert.strictEqual(stable(run.stderr), stable(without.stderr), args.join(" "))
      }
    }
    assert.deepStrictEqual(fs.readdirSync(s.steward).sort(), verbs.map(cacheName).sort())
    // each written once (a new file replaces a rejected cache): V8 accepted it on the later run
    for (const [file, ino] of written) {
      assert.strictEqual(fs.statSync(file).ino, ino, file)
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
      assert.isAbove(fs.statSync(file).size, 0)
    }
    assert.strictEqual(fs.statSync(s.steward).mode & 0o777, 0o700)
  })

  it("NODE_DISABLE_COMPILE_CACHE writes nothing (the ES modules run)", () => {
    const s = scratch()
    const run = steward(["--help"], { XDG_CACHE_HOME: s.cache, NODE_DISABLE_COMPILE_CACHE: "1" }, s.root)
    assert.strictEqual(run.status, 0)
    assert.isFalse(run.bundle)
    assert.isFalse(fs.existsSync(s.steward))
  })

  it("a directory others can write is not used (the ES modules run): V8 checks a cache's length, not its content", () => {
    const s = scratch()
    fs.mkdirSync(s.steward, { recursive: true })
    fs.chmodSync(s.steward, 0o777)
    const run = steward(["--help"], { XDG_CACHE_HOME: s.cache }, s.root)
    assert.strictEqual(run.status, 0)
    assert.isFalse(run.bundle)
    assert.deepStrictEqual(fs.readdirSync(s.steward), [])
  })

  // As root the run is made as `nobody`, which must be able to reach the built CLI and Node.
  const othersReach = (file: string): boolean => {
    for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      if ((fs.statSync(dir).mode & 0o001) === 0) return false
    }
    return (fs.statSync(file).mode & 0o004) !== 0
  }
  const unreachable = process.getuid?.() === 0 && ![bin, process.execPath].every(othersReach)

  it.skipIf(unreachable)(
    "a cache directory that cannot be written, with no cache in it, is not used (the ES modules run)",
    () => {
      const s = scratch()
      fs.mkdirSync(s.steward, { recursive: true, mode: 0o700 })
      // root writes through any mode: as root, the run is made as `nobody`, who owns the directory
      const as = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
      if (as.uid !== undefined) {
        fs.chmodSync(s.root, 0o755)
        fs.chownSync(s.steward, as.uid, as.gid)
      }
      fs.chmodSync(s.steward, 0o500)
      const expected = steward(["session", "lst"], { NODE_DISABLE_COMPILE_CACHE: "1" }, s.root, as)
      const run = steward(["session", "lst"], { XDG_CACHE_HOME: s.cache }, s.root, as)
      assert.strictEqual(run.status, 2)
      assert.isFalse(run.bundle)
      assert.deepStrictEqual(answer(run), answer(expected))
      assert.deepStrictEqual(fs.readdirSync(s.steward), [])
    }
  )

  it("a damaged cache is rejected and replaced; an earlier build's cache is removed, another install's kept", () => {
    const s = scratch()
    fs.mkdirSync(s.steward, { recursive: true, mode: 0o700 })
    const tail = `${digest().slice(0, 32)}-${process.version}-${process.arch}.v8cache`
    const stale = `${prefix()}policy-check-${"0".repeat(32)}-${process.version}-${process.arch}.v8cache`
    const elsewhere = `program-${place("/elsewhere/dist/program.cjs")}-session-lst-${tail}`
    const otherVerb = cacheName("doctor")
    fs.writeFileSync(path.join(s.steward, stale), "old", { mode: 0o600 })
    fs.writeFileSync(path.join(s.steward, elsewhere), "other install", { mode: 0o600 })
    fs.writeFileSync(path.join(s.steward, otherVerb), "another verb's", { mode: 0o600 })
    fs.writeFileSync(path.join(s.steward, cacheName("session-lst")), Buffer.alloc(4096, 7), { mode: 0o600 })
    const expected = steward(["session", "lst"], { NODE_DISABLE_COMPILE_CACHE: "1" }, s.root)
    const run = steward(["session", "lst"], { XDG_CACHE_HOME: s.cache }, s.root)
    assert.isTrue(run.bundle)
    assert.deepStrictEqual(answer(run), answer(expected))
    assert.deepStrictEqual(
      fs.readdirSync(s.steward).sort(),
      [cacheName("session-lst"), elsewhere, otherVerb].sort()
    )
    assert.notDeepEqual(fs.readFileSync(path.join(s.steward, cacheName("session-lst"))), Buffer.alloc(4096, 7))
  })
})
