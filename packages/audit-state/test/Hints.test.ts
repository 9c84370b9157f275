import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as AuditError from "../src/AuditError.js"
import * as Project from "../src/Project.js"
import * as State from "../src/State.js"
import * as Views from "../src/Views.js"
import { harness, withState } from "./helpers.js"

// ADR 0135: a refusal names the verbs it points to as data; the library does not name the host
describe("refusal hints (issue 18 item 4)", () => {
  it.effect("a refusal carries the verb it points to, and its message names it without a program", () =>
    withState(
      "memory",
      harness((d) => d.queue.push({ ...d.queue[0], id: "P-02", done: false, coverage: undefined })),
      (store) =>
        Effect.gen(function*() {
          const unknown = yield* Effect.flip(store.apply({ verb: "amend-pass", id: "P-09", charter: "x" }))
          assert.deepStrictEqual(unknown.hints, [{ verb: "queue-pass", args: [] }])
          assert.include(unknown.message, "add it with `queue-pass`")
          assert.notInclude(unknown.message, "steward")
          const dim = yield* Effect.flip(store.apply({ verb: "amend-pass", id: "P-02", dimension: "vibes" }))
          assert.deepStrictEqual(dim.hints, [{ verb: "update-catalog", args: ["dimension", "vibes", "…"] }])
          assert.include(dim.message, "add it first: `update-catalog dimension vibes …`")
          const terminal = yield* Effect.flip(
            store.apply({ verb: "set-status", id: "F-0001", status: "rejected" }).pipe(
              Effect.zipRight(store.apply({ verb: "set-status", id: "F-0001", status: "accepted" }))
            )
          )
          assert.deepStrictEqual(terminal.hints, [{ verb: "file-finding", args: ["…", "--recurrence-of", "F-0001"] }])
          assert.include(terminal.message, "terminal and immutable")
        })
    ))

  it("a host renders each hinted verb with its own program; a message without hints is unchanged", () => {
    const e = AuditError.make("refused", "x: use `record-fix` (xcheck record-fix)", undefined, [
      { verb: "record-fix", args: [] }
    ])
    assert.strictEqual(
      AuditError.renderHints(e, "steward audit"),
      "x: use `steward audit record-fix` (xcheck record-fix)"
    )
    assert.strictEqual(AuditError.renderHints(e, "mytool"), "x: use `mytool record-fix` (xcheck record-fix)")
    const plain = AuditError.make("refused", "no hint here")
    assert.isUndefined(plain.hints)
    assert.strictEqual(AuditError.renderHints(plain, "steward audit"), "no hint here")
  })

  it.effect("a drift refusal hints at render-views and keeps xcheck's key phrase", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hints-"))
      const doc = yield* State.decodeText(harness())
      const error = yield* Effect.flip(Project.refuseOnDrift(Project.paths(dir), doc))
      assert.strictEqual(error.code, "drift")
      assert.deepStrictEqual(error.hints, [Views.RENDER_VIEWS])
      assert.include(error.message, "disagree with state.json")
      assert.include(error.message, "re-render them with `render-views` (xcheck render-views)")
    }))
})
