/**
 * Hostile files (issue 16 item 2): a FIFO, a symlink to `/dev/zero`, an oversized file, deep
 * nesting and duplicate keys are refused — naming the file, the line where there is one, and the
 * limit — and none hangs. The timeouts are only a safety net: a read that blocked would never end.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Files, Hooks, PolicyFile } from "../src/index.js"
import { tempWorkspace } from "./helpers.js"

const SAFETY = 20_000

const hostileDir = () => {
  const dir = tempWorkspace()
  const fifo = path.join(dir, "policy.fifo.json")
  execFileSync("mkfifo", [fifo])
  const zero = path.join(dir, "zero.json")
  fs.symlinkSync("/dev/zero", zero)
  const big = path.join(dir, "big.json")
  // sparse: the size is what the stat reports, no disk is spent
  fs.writeFileSync(big, "")
  fs.truncateSync(big, PolicyFile.MAX_FILE_BYTES + 1)
  return { dir, fifo, zero, big }
}

const loadError = (file: string) => Effect.flip(PolicyFile.load(file))

describe("hostile policy files", () => {
  it.effect("a FIFO is refused without blocking, naming the file", () =>
    Effect.gen(function*() {
      const { fifo } = hostileDir()
      const error = yield* loadError(fifo)
      assert.strictEqual(error.code, "policy-io")
      assert.strictEqual(error.file, fifo)
      assert.include(error.message, "FIFO")
    }), SAFETY)

  it.effect("a symlink to /dev/zero is refused as a device", () =>
    Effect.gen(function*() {
      const { zero } = hostileDir()
      const error = yield* loadError(zero)
      assert.strictEqual(error.code, "policy-io")
      assert.include(error.message, `${zero}: is a device, not a regular file`)
    }), SAFETY)

  it.effect("an oversized file is refused before it is read, naming the limit", () =>
    Effect.gen(function*() {
      const { big } = hostileDir()
      const error = yield* loadError(big)
      assert.strictEqual(error.code, "policy-invalid")
      assert.strictEqual(error.limit, PolicyFile.MAX_FILE_BYTES)
      assert.include(error.message, "larger than the limit of 4 MiB")
    }), SAFETY)

  it.effect("deep nesting is refused with the line and the limit (JSON and YAML)", () =>
    Effect.gen(function*() {
      const json = yield* Effect.flip(
        PolicyFile.parse(`{\n"rules":\n${"[".repeat(100_000)}${"]".repeat(100_000)}}`, "deep.json")
      )
      assert.strictEqual(json.code, "policy-invalid")
      assert.strictEqual(json.line, 3)
      assert.strictEqual(json.limit, PolicyFile.MAX_DEPTH)
      assert.include(json.message, `deep.json: nested deeper than ${PolicyFile.MAX_DEPTH} levels`)
      const yaml = yield* Effect.flip(PolicyFile.parse(`rules: ${"[".repeat(100_000)}`, "deep.yaml"))
      assert.strictEqual(yaml.code, "policy-invalid")
      assert.notInclude(yaml.message, "Maximum call stack")
      assert.strictEqual(yaml.limit, PolicyFile.MAX_DEPTH)
    }), SAFETY)

  it.effect("duplicate keys in a file on disk are refused naming the key and line", () =>
    Effect.gen(function*() {
      const { dir } = hostileDir()
      const file = path.join(dir, "dup.json")
      fs.writeFileSync(file, `{\n  "level": "assist",\n  "level": "execute"\n}`)
      const error = yield* loadError(file)
      assert.strictEqual(error.code, "policy-invalid")
      assert.strictEqual(error.key, "level")
      assert.strictEqual(error.line, 3)
    }), SAFETY)

  it.effect("invalid UTF-8 is refused naming the file", () =>
    Effect.gen(function*() {
      const { dir } = hostileDir()
      const file = path.join(dir, "latin1.json")
      fs.writeFileSync(file, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))
      const error = yield* loadError(file)
      assert.include(error.message, `${file}: not valid UTF-8`)
    }), SAFETY)

  it.effect("a policy file is read through a provided Files layer (no disk)", () =>
    Effect.gen(function*() {
      const doc = yield* PolicyFile.load("/etc/steward/policy.json")
      assert.strictEqual(doc.level, "assist")
      const dir = yield* Effect.flip(PolicyFile.load("/etc/steward"))
      assert.strictEqual(dir.code, "policy-io")
    }).pipe(
      Effect.provide(Files.layerMemory({ "/etc/steward/policy.json": { content: `{"level": "assist"}` } }))
    ), SAFETY)
})

describe("the file view's bounded read", () => {
  it("refuses a FIFO, a device and an oversized file without blocking; reads a regular file", () => {
    const { dir, fifo, zero, big } = hostileDir()
    const ok = path.join(dir, "ok.txt")
    fs.writeFileSync(ok, "hello")
    const tags = [fifo, zero, big, ok, path.join(dir, "absent")].map((p) => {
      const r = Files.node.read(p, PolicyFile.MAX_FILE_BYTES)
      return r._tag === "refused" ? r.reason : r._tag
    })
    assert.deepStrictEqual(tags, ["not-a-file", "not-a-file", "too-large", "bytes", "missing"])
    assert.strictEqual(Files.node.readFile(fifo), undefined)
    assert.strictEqual(Files.node.readFile(zero), undefined)
    const small = Files.node.read(ok, 4)
    assert.deepStrictEqual(small._tag === "refused" ? [small.reason, small.limit] : [], ["too-large", 4])
  }, SAFETY)

  it("the memory view refuses the same way", () => {
    const view = Files.memory({ "/w/a.txt": { content: "hello" }, "/w/d": "directory" })
    const a = view.read("/w/a.txt", 3)
    assert.deepStrictEqual(a._tag === "refused" ? [a.reason, a.limit] : [], ["too-large", 3])
    assert.strictEqual(view.read("/w/d", 10)._tag, "refused")
    assert.strictEqual(view.read("/w/none", 10)._tag, "missing")
  })

  it("the touched-files bundle digests a FIFO and /dev/zero as null and reports them", () => {
    const { dir, fifo, zero } = hostileDir()
    fs.writeFileSync(path.join(dir, "ok.txt"), "hello")
    const bundle = Hooks.touchedBundle(dir, "/nonexistent-home", [fifo, zero, "ok.txt"])
    // the symlink resolves to the device it names (outside the workspace, shown absolute)
    assert.deepStrictEqual(bundle.files.map((f) => [f.path, f.sha256 === null]), [
      ["/dev/zero", true],
      ["ok.txt", false],
      ["policy.fifo.json", true]
    ])
    assert.deepStrictEqual(bundle.refused?.map((r) => [r.path, r.reason]), [
      ["/dev/zero", "not-a-file"],
      ["policy.fifo.json", "not-a-file"]
    ])
  }, SAFETY)
})
