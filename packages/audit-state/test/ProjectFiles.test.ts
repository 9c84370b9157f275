/**
 * Issue 18 item 4: a project's views, verbs and drift checks run against an in-memory tree
 * (`ProjectFiles.layerView(ProjectFiles.memory())`), with nothing on the real disk.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as AuditError from "../src/AuditError.js"
import * as AuditStore from "../src/AuditStore.js"
import * as Project from "../src/Project.js"
import * as ProjectFiles from "../src/ProjectFiles.js"
import { harness } from "./helpers.js"

const root = "/steward-memory-project"
const p = Project.paths(root)
const text = (view: ProjectFiles.FileView, file: string): string | undefined => {
  const r = view.read(file, ProjectFiles.MAX_FILE_BYTES)
  return r._tag === "bytes" ? new TextDecoder().decode(r.bytes) : undefined
}

describe("ProjectFiles: a project on an in-memory tree (issue 18)", () => {
  it.effect("render views, a verb with its drift guard, and a drift refusal touch only the memory tree", () => {
    const view = ProjectFiles.memory()
    return Effect.gen(function*() {
      const store = yield* AuditStore.AuditStore
      yield* store.importState(harness())
      const doc = yield* store.load
      const rendered = yield* Project.renderViews(p, doc)
      assert.strictEqual(rendered.written, 2)
      assert.include(text(view, p.ledger), "| F-0001 |")
      const body = `${p.audit}/findings/F-0001.md`
      assert.include(text(view, body), "status: reported")
      assert.isFalse(fs.existsSync(root), "nothing reached the real disk")
      yield* store.markViews(doc.state_revision, rendered.marks)

      // a verb, guarded by the drift check of what it names, then its views re-rendered
      const applied = yield* store.apply({ verb: "set-status", id: "F-0001", status: "accepted" }, {
        guard: (d, marks) =>
          Effect.flatMap(
            marks(["LEDGER.md", "findings/F-0001.md"]),
            (m) => Effect.asVoid(Project.refuseOnDrift(p, d, new Set(["F-0001"]), m))
          )
      })
      yield* Project.renderViews(p, applied.doc, Project.changedRecords(doc, applied.doc))
      assert.include(text(view, body), "status: accepted")
      assert.deepStrictEqual(yield* Project.verifyViews(p, applied.doc), [])

      // a hand edit that keeps the size: the mark changes, the block is read and refused
      const before = text(view, body)!
      const edited = before.replace("status: accepted", "status: rejected")
      assert.strictEqual(edited.length, before.length)
      view.writeAtomic(body, edited, 0)
      const marks = yield* store.viewMarks()
      const refused = yield* Effect.exit(Project.refuseOnDrift(p, applied.doc, undefined, marks))
      assert.isTrue(Exit.isFailure(refused))
      const error = Exit.isFailure(refused) && refused.cause._tag === "Fail" ? refused.cause.error : undefined
      assert.instanceOf(error, AuditError.AuditError)
      assert.strictEqual(error?.code, "drift")
      assert.include(error?.message, "1 generated view(s) disagree with state.json:\n  - findings/F-0001.md:")
      // and a verb naming the record is refused by its guard, changing nothing
      const verb = yield* Effect.exit(store.apply({ verb: "set-status", id: "F-0001", status: "rejected" }, {
        guard: (d) => Effect.asVoid(Project.refuseOnDrift(p, d, new Set(["F-0001"])))
      }))
      assert.isTrue(Exit.isFailure(verb))
      assert.strictEqual((yield* store.load).state_revision, applied.doc.state_revision)
      assert.isFalse(fs.existsSync(root))
    }).pipe(Effect.provide(AuditStore.layerMemory), Effect.provide(ProjectFiles.layerView(view)))
  })

  it.effect("orchestrator.conf, the subject's HEAD and its working tree are read from the tree", () => {
    const head = "0123456789abcdef0123456789abcdef01234567"
    const source = "line one\nline two\n"
    const hash = createHash("sha256").update(source).digest("hex")
    const view = ProjectFiles.memory({
      [`${p.audit}/orchestrator.conf`]: "batch_size = 4\nnext_drift_scope = decision\n",
      [`${root}/.git/HEAD`]: "ref: refs/heads/main\n",
      [`${root}/.git/refs/heads/main`]: `${head}\n`,
      [`${root}/src/core.py`]: source,
      [`${p.audit}/escape`]: { symlink: "/elsewhere" },
      "/elsewhere": "directory"
    })
    return Effect.gen(function*() {
      const config = yield* Project.readConfig(p)
      assert.strictEqual(config.batchSize, 4)
      assert.strictEqual(config.nextDriftScope, "decision")
      assert.strictEqual(Project.subjectHead(root, view), head)
      assert.isUndefined(Project.subjectHead("/no-such-project", view))
      const subject = Project.workingTreeSubject(root, view)
      assert.isUndefined(subject.check("src/core.py", [1, 2], hash))
      assert.include(subject.check("src/core.py", [1, 3], hash), "has 2 line(s)")
      assert.include(subject.check("src/none.py", undefined, hash), "does not exist")
      assert.include(
        Project.userPathIssue(p, "escape/report.md", "report", view),
        "resolves through a symlink to /elsewhere/report.md"
      )
      assert.isUndefined(Project.userPathIssue(p, "passes/P-01.md", "report", view))
    }).pipe(Effect.provide(ProjectFiles.layerView(view)))
  })

  it("the memory tree refuses what the disk refuses, and marks change on every write", () => {
    const view = ProjectFiles.memory({ "/d/a.md": "abc", "/d/sub": "directory" })
    assert.deepStrictEqual(view.read("/d/missing", 10), { _tag: "missing" })
    assert.strictEqual(view.read("/d/sub", 10)._tag, "refused")
    assert.include(
      (view.read("/d/a.md", 2) as { message: string }).message,
      "3 bytes is larger than the limit of 2 bytes"
    )
    assert.strictEqual(view.stat("/d"), "directory")
    const first = view.mark("/d/a.md")
    const second = view.writeAtomic("/d/a.md", "abd", 5_000)
    assert.notStrictEqual(first, second)
    assert.strictEqual(view.mark("/d/a.md"), second)
    assert.strictEqual(Number(second!.split(":")[1]), 5_000, "the second field is the modification time")
    assert.isUndefined(view.mark("/d/sub"))
  })
})
