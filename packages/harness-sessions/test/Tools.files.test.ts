import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, type Schema } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Tools } from "../src/index.js"

const workspace = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-tools-")))
const context = (dir: string): Tools.ToolContext => ({ workspace: dir, runId: "r1", callId: "c1" })
const run = <F extends Schema.Struct.Fields, R>(tool: Tools.Tool<F, R>, input: unknown, dir: string) =>
  Effect.flatMap(Tools.decodeInput(tool, input), (decoded) => tool.execute(decoded, context(dir)))

const env = Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici, Tools.layerAskUserUnavailable)

describe("read / write / edit", () => {
  it.effect("write creates parents and reports the touched file; read returns it and windows lines", () =>
    Effect.gen(function*() {
      const dir = workspace()
      const created = yield* run(Tools.write, { path: "src/deep/a.txt", content: "one\ntwo\nthree\n" }, dir)
      assert.isTrue(created.ok)
      assert.include(created.output, "created src/deep/a.txt")
      assert.deepStrictEqual(created.filesTouched, ["src/deep/a.txt"])
      assert.strictEqual(fs.readFileSync(path.join(dir, "src/deep/a.txt"), "utf8"), "one\ntwo\nthree\n")
      const replaced = yield* run(Tools.write, { path: `${dir}/src/deep/a.txt`, content: "one\ntwo\nthree" }, dir)
      assert.include(replaced.output, "replaced src/deep/a.txt")
      const whole = yield* run(Tools.read, { path: "src/deep/a.txt" }, dir)
      assert.deepStrictEqual(whole, { ok: true, output: "one\ntwo\nthree" })
      const window = yield* run(Tools.read, { path: "src/deep/a.txt", offset: 2, limit: 1 }, dir)
      assert.strictEqual(window.output, "two\n[lines 2–2 of 3]")
      const past = yield* run(Tools.read, { path: "src/deep/a.txt", offset: 9 }, dir)
      assert.isFalse(past.ok)
      assert.include(past.output, "past the end")
    }).pipe(Effect.provide(env)))

  it.effect("paths outside the workspace are refused, through .. and through a symlink", () =>
    Effect.gen(function*() {
      const dir = workspace()
      const outside = workspace()
      fs.writeFileSync(path.join(outside, "secret"), "s")
      fs.symlinkSync(outside, path.join(dir, "link"))
      for (const p of ["../x", path.join(outside, "secret"), "link/secret", "link/new-file"]) {
        const r = yield* run(Tools.read, { path: p }, dir)
        assert.isFalse(r.ok, p)
        assert.include(r.output, "outside the workspace", p)
        const w = yield* run(Tools.write, { path: p, content: "x" }, dir)
        assert.isFalse(w.ok, p)
      }
      assert.isFalse(fs.existsSync(path.join(outside, "new-file")))
      assert.strictEqual(fs.readFileSync(path.join(outside, "secret"), "utf8"), "s")
    }).pipe(Effect.provide(env)))

  it.effect("read explains a missing file, a directory and a binary file", () =>
    Effect.gen(function*() {
      const dir = workspace()
      fs.mkdirSync(path.join(dir, "d"))
      fs.writeFileSync(path.join(dir, "bin"), Buffer.from([0, 1, 2]))
      assert.include((yield* run(Tools.read, { path: "nope.ts" }, dir)).output, "nope.ts does not exist")
      assert.include((yield* run(Tools.read, { path: "d" }, dir)).output, "d is a directory")
      assert.include((yield* run(Tools.read, { path: "bin" }, dir)).output, "binary")
    }).pipe(Effect.provide(env)))

  it.effect("edit replaces exact text once, refuses ambiguous or absent text with clear errors", () =>
    Effect.gen(function*() {
      const dir = workspace()
      const file = path.join(dir, "a.ts")
      fs.writeFileSync(file, "const a = 1\nconst b = 1\n")
      const ambiguous = yield* run(Tools.edit, { path: "a.ts", oldString: "= 1", newString: "= 2" }, dir)
      assert.isFalse(ambiguous.ok)
      assert.include(ambiguous.output, "occurs 2 times in a.ts")
      const absent = yield* run(Tools.edit, { path: "a.ts", oldString: "const c", newString: "x" }, dir)
      assert.include(absent.output, "was not found in a.ts")
      const same = yield* run(Tools.edit, { path: "a.ts", oldString: "a", newString: "a" }, dir)
      assert.include(same.output, "identical")
      const empty = yield* run(Tools.edit, { path: "a.ts", oldString: "", newString: "a" }, dir)
      assert.include(empty.output, "use write")
      const missing = yield* run(Tools.edit, { path: "b.ts", oldString: "a", newString: "b" }, dir)
      assert.include(missing.output, "b.ts does not exist")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "const a = 1\nconst b = 1\n")
      // `$&` in the replacement is literal text, not a regex back-reference.
      const once = yield* run(
        Tools.edit,
        { path: "a.ts", oldString: "const a = 1", newString: "const a = \"$&\"" },
        dir
      )
      assert.deepStrictEqual(once, { ok: true, output: "replaced 1 occurrence in a.ts", filesTouched: ["a.ts"] })
      const all = yield* run(Tools.edit, { path: "a.ts", oldString: "const", newString: "let", replaceAll: true }, dir)
      assert.strictEqual(all.output, "replaced 2 occurrences in a.ts")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "let a = \"$&\"\nlet b = 1\n")
    }).pipe(Effect.provide(env)))
})

describe("todo_write / ask_user", () => {
  it.effect("todo_write returns the whole list as progress; more than one in progress is refused", () =>
    Effect.gen(function*() {
      const todos: Array<Tools.TodoItem> = [
        { content: "write the parser", status: "completed" },
        { content: "test it", status: "in_progress" },
        { content: "document it", status: "pending" }
      ]
      const result = yield* run(Tools.todoWrite, { todos }, "/ws")
      assert.isTrue(result.ok)
      assert.deepStrictEqual(result.todos, todos)
      assert.strictEqual(result.output, "1/3 done\n[x] write the parser\n[~] test it\n[ ] document it")
      const two = yield* run(Tools.todoWrite, {
        todos: [{ content: "a", status: "in_progress" }, { content: "b", status: "in_progress" }]
      }, "/ws")
      assert.isFalse(two.ok)
      assert.isUndefined(two.todos)
    }))

  it.effect("ask_user relays the person's answer, or says nobody is there and marks needsPerson", () =>
    Effect.gen(function*() {
      const nobody = yield* run(Tools.askUser, { question: "Which database?" }, "/ws").pipe(
        Effect.provide(Tools.layerAskUserUnavailable)
      )
      assert.isFalse(nobody.ok)
      assert.isTrue(nobody.needsPerson)
      assert.include(nobody.output, "No person is available")
      const answered = yield* run(Tools.askUser, { question: "Which database?", options: ["sqlite", "pg"] }, "/ws")
        .pipe(Effect.provide(Tools.layerAskUser((q, options) => q.startsWith("Which") ? options[1] : undefined)))
      assert.deepStrictEqual(answered, { ok: true, output: "pg" })
    }))
})

describe("fetch", () => {
  const serve = Effect.acquireRelease(
    Effect.async<{ readonly server: http.Server; readonly base: string }>((resume) => {
      const server = http.createServer((req, res) => {
        if (req.url === "/json") {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ hello: "world" }))
        } else if (req.url === "/moved") res.writeHead(302, { location: "/json" }).end()
        else if (req.url === "/image") res.writeHead(200, { "content-type": "image/png" }).end("xx")
        else if (req.url === "/big") res.writeHead(200, { "content-type": "text/plain" }).end("y".repeat(5000))
        else res.writeHead(404, { "content-type": "text/plain" }).end("no such page")
      })
      server.listen(
        0,
        "127.0.0.1",
        () => resume(Effect.succeed({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
      )
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  )

  it.scoped("GETs a URL through HttpClient: status and body, redirects reported, non-text refused, bounded", () =>
    Effect.gen(function*() {
      const { base } = yield* serve
      const ok = yield* run(Tools.fetch, { url: `${base}/json` }, "/ws")
      assert.isTrue(ok.ok)
      assert.strictEqual(ok.output, "HTTP 200 (application/json)\n\n{\"hello\":\"world\"}")
      const missing = yield* run(Tools.fetch, { url: `${base}/missing` }, "/ws")
      assert.isFalse(missing.ok)
      assert.include(missing.output, "HTTP 404")
      assert.include(missing.output, "no such page")
      const moved = yield* run(Tools.fetch, { url: `${base}/moved` }, "/ws")
      assert.isFalse(moved.ok)
      assert.include(moved.output, "redirected to /json")
      const image = yield* run(Tools.fetch, { url: `${base}/image` }, "/ws")
      assert.include(image.output, "image/png, not text")
      const big = yield* run(Tools.fetch, { url: `${base}/big`, maxChars: 1000 }, "/ws")
      assert.isTrue(big.truncated)
      assert.isBelow(big.output.length, 1100)
      const scheme = yield* run(Tools.fetch, { url: "file:///etc/passwd" }, "/ws")
      assert.deepStrictEqual(scheme, { ok: false, output: "file:///etc/passwd is not an http or https URL" })
      // The fetch-based client does not chase the redirect either.
      const viaFetch = yield* run(Tools.fetch, { url: `${base}/moved` }, "/ws").pipe(
        Effect.provide(FetchHttpClient.layer)
      )
      assert.include(viaFetch.output, "HTTP 302: redirected to /json")
      const refused = yield* run(Tools.fetch, { url: "http://127.0.0.1:1/" }, "/ws")
      assert.isFalse(refused.ok)
      assert.include(refused.output, "could not fetch")
    }).pipe(Effect.provide(env)))
})
