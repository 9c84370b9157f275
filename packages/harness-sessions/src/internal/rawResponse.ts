/**
 * A model response `@effect/ai` refused to decode, read back leniently. `LanguageModel` decodes a
 * response against the toolkit's schemas, so one tool call with an unknown name or a wrong field
 * fails the whole model call (`MalformedOutput`) and the reply's other calls and text with it. The
 * parse error keeps the provider's encoded parts; the harness reads text, tool calls (any name,
 * any input) and the finish part from them, and checks each call itself (`callCheck.ts`), so the
 * model is told what to fix instead of the run failing.
 */
import * as ParseResult from "effect/ParseResult"

/** What the loop needs of a response. */
export interface Lenient {
  readonly text: string
  readonly calls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly params: unknown }>
  readonly finish: string
  readonly usage: {
    readonly inputTokens?: number | undefined
    readonly outputTokens?: number | undefined
    readonly cachedInputTokens?: number | undefined
  }
}

const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : undefined

const count = (v: unknown): number | undefined => typeof v === "number" && Number.isFinite(v) ? v : undefined

/** The encoded parts a decoding failure kept, read leniently; `undefined` when there are none. */
export const recover = (error: unknown): Lenient | undefined => {
  const cause = record(error)?.["cause"]
  if (!ParseResult.isParseError(cause)) return undefined
  const parts = cause.issue.actual
  if (!Array.isArray(parts)) return undefined
  let text = ""
  let finish = "unknown"
  let usage: Lenient["usage"] = {}
  const calls: Array<Lenient["calls"][number]> = []
  for (const raw of parts) {
    const part = record(raw)
    if (part === undefined) continue
    if (part["type"] === "text" && typeof part["text"] === "string") text += part["text"]
    if (part["type"] === "tool-call") {
      calls.push({
        id: typeof part["id"] === "string" ? part["id"] : `call_${calls.length + 1}`,
        // The name is checked as data (`callCheck.check`), never used as a key.
        name: typeof part["name"] === "string" ? part["name"] : String(part["name"]),
        params: part["params"]
      })
    }
    if (part["type"] === "finish") {
      finish = typeof part["reason"] === "string" ? part["reason"] : finish
      const u = record(part["usage"]) ?? {}
      usage = {
        inputTokens: count(u["inputTokens"]),
        outputTokens: count(u["outputTokens"]),
        cachedInputTokens: count(u["cachedInputTokens"])
      }
    }
  }
  return { text, calls, finish, usage }
}
