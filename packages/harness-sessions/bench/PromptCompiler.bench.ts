/**
 * Prompt compile (issue 13 target: ≤ 1 ms). `compile` renders the request-time sections after a
 * prefix built once per compiler; `makeCompiler` also builds and digests the prefix (the cost a
 * host pays when a session's configuration changes).
 */
import { Either } from "effect"
import { bench, describe } from "vitest"
import * as PromptCompiler from "../src/PromptCompiler.js"

const references = Array.from({ length: 300 }, (_, i) => `- docs/${i}.md: notes on module ${i}`).join("\n")
const config = { sections: { references } }
const compiler = Either.getOrThrow(PromptCompiler.makeCompiler(config))
const request: ReadonlyArray<PromptCompiler.RequestSection> = [
  { name: "date", text: "2026-12-01" },
  { name: "goal", text: `<objective>${"make the parser total ".repeat(40)}</objective>`, neverCut: true },
  { name: "workspace_state", text: "M src/a.ts\n".repeat(800) }
]

describe("prompt compile", () => {
  bench("compile (prefix built, three request sections, one cut)", () => {
    Either.getOrThrow(compiler.compile(request))
  })
  bench("makeCompiler + compile (prefix rendered and digested too)", () => {
    Either.getOrThrow(Either.getOrThrow(PromptCompiler.makeCompiler(config)).compile(request))
  })
})
