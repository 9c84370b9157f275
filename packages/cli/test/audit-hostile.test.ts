/**
 * Issue 16, audit faults, through the CLI where a user meets them: paths the store owns are never
 * user paths, symlinks never lead a verb out of audit/, duplicate keys and integers beyond 2^53 in
 * a state document are refused by name — and none of it changes anything.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const fixtures = path.resolve(import.meta.dirname, "../../audit-state/test/fixtures")
const harness = (patch: (d: any) => void = () => {}) => {
  const doc = JSON.parse(fs.readFileSync(path.join(fixtures, "state/harness-minimal.json"), "utf8"))
  doc.queue[0].done = true
  doc.queue[0].coverage = { report_path: "passes/P-01.md", findings: ["F-0001"], updated: "2026-08-14", status: "done" }
  patch(doc)
  return JSON.stringify(doc, null, 2)
}
const tempDir = (tag: string) => fs.mkdtempSync(path.join(os.tmpdir(), `steward-hostile-${tag}-`))

/** A project with the subject file and an imported harness state. */
const setup = (stateText = harness()) =>
  Effect.gen(function*() {
    const project = tempDir("p")
    fs.mkdirSync(path.join(project, "src"))
    fs.writeFileSync(path.join(project, "src/core.py"), "def core(x):\n    return x + 1\n")
    const file = path.join(tempDir("in"), "state.json")
    fs.writeFileSync(file, stateText)
    const run = yield* runCli(["audit", "--project", project, "import-state", file])
    assert.strictEqual(run.exitCode, 0, run.stderr)
    return project
  })

const audit = (project: string, ...args: ReadonlyArray<string>) =>
  runCli(["audit", "--project", project, ...args, "--json"])
const exported = (project: string) =>
  Effect.map(runCli(["audit", "--project", project, "export-state"]), (r) => r.stdout)
const sha = (s: string) => createHash("sha256").update(s).digest("hex")
const fileFinding = (project: string, id: string, body: string) =>
  audit(
    project,
    "file-finding",
    "--id",
    id,
    "--title",
    "t",
    "--severity",
    "minor",
    "--dimension",
    "invariants",
    "--unit",
    "U01",
    "--pass",
    "P-01",
    "--body",
    body,
    "--locator",
    "src/core.py:1",
    "--source-hash",
    sha(fs.readFileSync(path.join(project, "src/core.py"), "utf8"))
  )

describe("steward audit: hostile paths and documents (issue 16)", () => {
  it.live("file-finding --body state.sqlite is refused naming the path and the rule; the store still opens", () =>
    Effect.gen(function*() {
      const project = yield* setup()
      const before = yield* exported(project)
      for (const body of ["state.sqlite", "./state.sqlite-wal", "findings/../state.sqlite-journal", ".lock"]) {
        const run = yield* fileFinding(project, "F-0002", body)
        assert.strictEqual(run.exitCode, 2, body)
        const message = run.errorJson().error.message
        assert.include(message, body)
        assert.match(message, /store owns|not a relative path inside/)
      }
      assert.strictEqual(yield* exported(project), before)
      const status = yield* audit(project, "status")
      assert.strictEqual(status.exitCode, 0, status.stderr)
      // control: an ordinary body is filed
      const ok = yield* fileFinding(project, "F-0002", "findings/F-0002.md")
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
    }))

  it.live("import-state of a finding whose body path is state.sqlite is refused; no database is overwritten", () =>
    Effect.gen(function*() {
      const project = tempDir("imp")
      const file = path.join(tempDir("in"), "state.json")
      fs.writeFileSync(file, harness((d) => (d.findings[0].body_path = "state.sqlite")))
      const run = yield* runCli(["audit", "--project", project, "import-state", file, "--json"])
      assert.strictEqual(run.exitCode, 2)
      assert.include(run.errorJson().error.message, "state.sqlite")
      assert.include(run.errorJson().error.message, "store owns")
      assert.isFalse(fs.existsSync(path.join(project, "audit", "state.sqlite")))
    }))

  it.live("a symlinked directory inside audit/ never makes a verb write outside the project", () =>
    Effect.gen(function*() {
      const project = yield* setup()
      const outside = tempDir("out")
      fs.writeFileSync(path.join(outside, "F-0001.md"), "outside text\n")
      fs.rmSync(path.join(project, "audit", "findings"), { recursive: true, force: true })
      fs.symlinkSync(outside, path.join(project, "audit", "findings"))
      const before = yield* exported(project)
      const run = yield* audit(project, "set-status", "F-0001", "accepted")
      assert.strictEqual(run.exitCode, 2)
      assert.include(run.errorJson().error.message, "findings/F-0001.md")
      assert.include(run.errorJson().error.message, "symlink")
      assert.strictEqual(fs.readFileSync(path.join(outside, "F-0001.md"), "utf8"), "outside text\n")
      assert.strictEqual(yield* exported(project), before)
      const render = yield* audit(project, "render-views")
      assert.strictEqual(render.exitCode, 2)
      assert.strictEqual(fs.readFileSync(path.join(outside, "F-0001.md"), "utf8"), "outside text\n")
    }))

  it.live("a symlinked body file is refused: no outside file is copied into the project", () =>
    Effect.gen(function*() {
      const project = yield* setup()
      const secret = path.join(tempDir("secret"), "secret.txt")
      fs.writeFileSync(secret, "the outside secret\n")
      fs.symlinkSync(secret, path.join(project, "audit", "findings", "F-0002.md"))
      const run = yield* fileFinding(project, "F-0002", "findings/F-0002.md")
      assert.strictEqual(run.exitCode, 2)
      assert.include(run.errorJson().error.message, "symlink")
      assert.isTrue(fs.lstatSync(path.join(project, "audit", "findings", "F-0002.md")).isSymbolicLink())
      for (const name of fs.readdirSync(path.join(project, "audit"), { recursive: true })) {
        const f = path.join(project, "audit", String(name))
        if (fs.lstatSync(f).isFile()) assert.notInclude(fs.readFileSync(f, "utf8"), "the outside secret")
      }
    }))

  it.live("duplicate keys in state.json are an error naming the key and where it is", () =>
    Effect.gen(function*() {
      const project = tempDir("dup")
      const file = path.join(tempDir("in"), "state.json")
      const text = harness().replace("\"state_revision\": 1", "\"state_revision\": 1,\n  \"state_revision\": 7")
      assert.notStrictEqual(text, harness())
      fs.writeFileSync(file, text)
      const run = yield* runCli(["audit", "--project", project, "import-state", file, "--json"])
      assert.strictEqual(run.exitCode, 2)
      const message = run.errorJson().error.message
      assert.include(message, "duplicate key 'state_revision'")
      assert.match(message, /line \d+ column \d+/)
      const nested = harness().replace("\"title\": ", "\"title\": \"first\", \"title\": ")
      fs.writeFileSync(file, nested)
      const again = yield* runCli(["audit", "--project", project, "import-state", file, "--json"])
      assert.strictEqual(again.exitCode, 2)
      assert.include(again.errorJson().error.message, "findings[0].title")
      assert.isFalse(fs.existsSync(path.join(project, "audit", "state.sqlite")))
    }))

  it.live("an integer beyond 2^53 in a state document is refused with the field named", () =>
    Effect.gen(function*() {
      const project = tempDir("big")
      const file = path.join(tempDir("in"), "state.json")
      fs.writeFileSync(file, harness().replace("\"state_revision\": 1", "\"state_revision\": 9007199254740993"))
      const run = yield* runCli(["audit", "--project", project, "import-state", file, "--json"])
      assert.strictEqual(run.exitCode, 2)
      const message = run.errorJson().error.message
      assert.include(message, "state_revision")
      assert.include(message, "2^53")
      // control: the largest exact integer still loads
      fs.writeFileSync(file, harness().replace("\"state_revision\": 1", "\"state_revision\": 9007199254740991"))
      const ok = yield* runCli(["audit", "--project", project, "import-state", file, "--json"])
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
    }))
})
