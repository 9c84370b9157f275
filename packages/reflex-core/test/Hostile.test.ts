/**
 * Hostile import files against `Import.parse`, by class: sizes (a line past 1 MiB, more than 4,096
 * lines), depths (100,000 levels), encodings (lone surrogates in any string field), duplicates
 * (repeated keys, a repeated id with a different example), and arbitrary bytes. Each is a typed
 * `invalid-import` naming its line — never a defect, a stack overflow or a silent drop.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import * as fc from "fast-check"
import * as Import from "../src/Import.js"
import { route, settle } from "../src/internal/builtins.js"

const line = (fields: Record<string, unknown>) => JSON.stringify({ id: "a", text: "done", label: true, ...fields })
const ok = line({})

const refusal = (text: string, definition = settle) =>
  Effect.runSync(Effect.flip(Import.parse(definition, text, "h.jsonl")))

describe("hostile imports", () => {
  it("a line nested 100,000 deep is refused with its line number, without recursing", () => {
    const deep = `{"id":"d","text":"x","label":true,"judge":${"[".repeat(100_000)}${"]".repeat(100_000)}}`
    const error = refusal(`${ok}\n${deep}`)
    assert.strictEqual(error.code, "invalid-import")
    assert.include(error.message, "h.jsonl:2: nested deeper than 32 levels")
  })

  it("a line past 1 MiB is refused before it is parsed, naming the limit", () => {
    const big = line({ id: "b", text: "x".repeat(Import.MAX_LINE_BYTES) })
    const error = refusal(`${ok}\n\n${big}`)
    assert.include(error.message, "h.jsonl:3: line is")
    assert.include(error.message, `at most ${Import.MAX_LINE_BYTES}`)
    // a multi-byte text counts its UTF-8 bytes, not its UTF-16 units
    const wide = line({ id: "w", text: "é".repeat(Import.MAX_LINE_BYTES / 2) })
    assert.include(refusal(wide).message, "refused before parsing")
  })

  it("more than 4,096 non-blank lines are refused at the first one past the bound", () => {
    const lines = Array.from({ length: Import.MAX_LINES + 1 }, (_, i) => line({ id: `i${i}` }))
    const error = refusal(lines.join("\n\n"))
    assert.include(error.message, `more than ${Import.MAX_LINES} lines`)
  })

  it("a lone surrogate in any string field is refused naming the field", () => {
    for (const field of ["id", "text", "head"]) {
      for (const lone of ["\\ud800", "\\udfff", "x\\ud83d", "\\ude00y"]) {
        const raw = field === "head"
          ? `{"id":"a","text":"done","label":true,"head":"${lone}"}`
          : field === "id"
          ? `{"id":"${lone}","text":"done","label":true}`
          : `{"id":"a","text":"${lone}","label":true}`
        const error = refusal(raw)
        assert.include(error.message, "h.jsonl:1")
        assert.include(error.message, "lone surrogate", raw)
      }
    }
  })

  it("a repeated key is refused naming the key; the last one never silently wins", () => {
    const error = refusal(`{"id":"a","text":"done","label":true,"label":false}`)
    assert.include(error.message, `h.jsonl:1: duplicate key "label"`)
  })

  it("a repeated id is idempotent when identical and refused naming both lines when it differs", () => {
    const same = Effect.runSync(Import.parse(settle, `${ok}\n${ok}\n`, "h.jsonl"))
    assert.strictEqual(same.length, 1)
    const error = refusal(`${ok}\n${line({ label: false })}`)
    assert.include(error.message, `h.jsonl:2: id "a" repeats line 1 with a different example`)
    assert.deepStrictEqual(error.details, { line: 2, first: 1 })
  })

  it("arbitrary text is parsed or refused as a typed error naming a line, never a defect", () => {
    const hostileLine = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      fc.record({ id: fc.string({ maxLength: 8 }), text: fc.string({ maxLength: 20 }), label: fc.boolean() })
        .map((r) => JSON.stringify(r)),
      fc.constantFrom("{", "[]", "null", "\"\\ud800\"", `{"id":"a","text":"x","label":true,"x":1}`)
    )
    fc.assert(
      fc.property(fc.array(hostileLine, { maxLength: 6 }), fc.boolean(), (lines, isRoute) => {
        const exit = Effect.runSyncExit(Import.parse(isRoute ? route : settle, lines.join("\n"), "h.jsonl"))
        if (Exit.isFailure(exit)) {
          assert.isFalse(Cause.isDie(exit.cause), "a typed failure, not a defect")
          const error = Option.getOrThrow(Cause.failureOption(exit.cause))
          assert.strictEqual(error.code, "invalid-import")
          assert.match(error.message, /^h\.jsonl:\d+/)
        }
      }),
      { numRuns: 2_000 }
    )
  })
})
