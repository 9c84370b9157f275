/**
 * The in-memory backend: one staged copy per transaction, swapped in when it succeeds.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as State from "../../State.js"
import { type Backend, staleViews, type Tx } from "./backend.js"
import type { DispatchKeyRecord, Memo } from "./model.js"

interface MemoryData {
  doc: State.StateDoc | undefined
  lines: Array<string>
  keys: ReadonlyArray<DispatchKeyRecord>
  marks: ReadonlyMap<string, string>
  memos: ReadonlyMap<string, Memo>
}

export const memoryBackend = Effect.gen(function*() {
  const semaphore = yield* Effect.makeSemaphore(1)
  let data: MemoryData = { doc: undefined, lines: [], keys: [], marks: new Map(), memos: new Map() }
  const backend: Backend = {
    transact: (_write, f) =>
      semaphore.withPermits(1)(Effect.suspend(() => {
        const staged: MemoryData = {
          doc: data.doc,
          lines: data.lines,
          keys: data.keys,
          marks: data.marks,
          memos: data.memos
        }
        const unmark = (paths: ReadonlyArray<string>) => {
          const m = new Map(staged.marks)
          for (const p of paths) m.delete(p)
          staged.marks = m
        }
        let linesCopied = false
        const tx: Tx = {
          marker: Effect.sync(() =>
            staged.doc === undefined ? undefined : { revision: staged.doc.state_revision, events: staged.lines.length }
          ),
          loadDoc: () => Effect.sync(() => staged.doc),
          // nothing outside this process changes the memory store: a memo holds while its revision does
          memo: (name) =>
            Effect.sync(() => {
              const m = staged.memos.get(name)
              return m !== undefined && m.revision === staged.doc?.state_revision ? m : undefined
            }),
          putMemo: (name, memo) =>
            Effect.sync(() => {
              if (memo.revision === staged.doc?.state_revision) staged.memos = new Map(staged.memos).set(name, memo)
            }),
          // the memory store lives in one process: its engine always holds the snapshot
          sealed: Effect.succeed(undefined),
          seal: () => Effect.void,
          viewMarks: (paths) =>
            Effect.sync(() =>
              paths === undefined
                ? staged.marks
                : new Map(paths.flatMap((p) => staged.marks.has(p) ? [[p, staged.marks.get(p)!] as const] : []))
            ),
          putViewMarks: (marks) =>
            Effect.sync(() => {
              const m = new Map(staged.marks)
              for (const [p, mark] of marks) mark === undefined ? m.delete(p) : m.set(p, mark)
              staged.marks = m
            }),
          loadLines: (from) => Effect.sync(() => staged.lines.slice(from)),
          persist: (prev, next) =>
            Effect.sync(() => {
              unmark(staleViews(prev, next))
              staged.doc = next
            }),
          append: (start, lines, _countInHead) =>
            Effect.sync(() => {
              if (!linesCopied) {
                staged.lines = staged.lines.slice(0, start)
                linesCopied = true
              }
              for (const l of lines) staged.lines.push(l.line)
            }),
          reset: Effect.sync(() => {
            staged.doc = undefined
            staged.lines = []
            staged.keys = []
            staged.marks = new Map()
            staged.memos = new Map()
            linesCopied = true
          }),
          putKey: (key) => Effect.sync(() => void (staged.keys = [...staged.keys, key])),
          loadKeys: Effect.sync(() => staged.keys)
        }
        return Effect.tap(f(tx), () => Effect.sync(() => void (data = staged)))
      }))
  }
  return backend
})
