/**
 * Reading a policy or case file bounded (issue 16).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Files from "../../Files.js"
import * as GovernanceError from "../../GovernanceError.js"

// Read through the `Files` service when one is provided (the real disk otherwise), bounded: a
// FIFO, device or socket is refused without blocking, a file over the limit is never read whole,
// and the text must be valid UTF-8 (issue 16).
/** @internal */
export const readText = (file: string, maxBytes: number) =>
  Effect.gen(function*() {
    const provided = yield* Effect.serviceOption(Files.Files)
    const view = provided._tag === "Some" ? provided.value : Files.node
    const result = view.read(file, maxBytes)
    switch (result._tag) {
      case "missing":
        return yield* GovernanceError.make(
          "policy-io",
          `${file}: cannot read policy file (no such file or directory)`,
          { file }
        )
      case "refused":
        return yield* result.reason === "too-large"
          ? GovernanceError.make("policy-invalid", result.message, { file, limit: maxBytes })
          : GovernanceError.make("policy-io", result.message, { file })
      case "bytes":
        return yield* Effect.try({
          try: () => new TextDecoder("utf-8", { fatal: true }).decode(result.bytes),
          catch: () => GovernanceError.make("policy-invalid", `${file}: not valid UTF-8`, { file })
        })
    }
  })
