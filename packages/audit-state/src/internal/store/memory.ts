/**
 * The in-memory backend: one staged copy per transaction, swapped in when it succeeds.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as State from "../../State.js"
import type { Backend, Tx } from "./backend.js"
import type { DispatchKeyRecord } from "./model.js"

interface MemoryData {
  doc: State.StateDoc | undefined
  lines: Array<string>
  keys: ReadonlyArray<DispatchKeyRecord>
}

export const memoryBackend = Effect.gen(function*() {
  const semaphore = yield* Effect.makeSemaphore(1)
  let data: MemoryData = { doc: undefined, lines: [], keys: [] }
  const backend: Backend = {
    transact: (_write, f) =>
      semaphore.withPermits(1)(Effect.suspend(() => {
        const staged: MemoryData = { doc: data.doc, lines: data.lines, keys: data.keys }
        let linesCopied = false
        const tx: Tx = {
          marker: Effect.sync(() =>
            staged.doc === undefined ? undefined : { revision: staged.doc.state_revision, events: staged.lines.length }
          ),
          loadDoc: Effect.sync(() => staged.doc),
          loadLines: (from) => Effect.sync(() => staged.lines.slice(from)),
          persist: (_prev, next) => Effect.sync(() => void (staged.doc = next)),
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
