import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as State from "../src/State.js"
import { applyMutation } from "./mutations.js"

const fixture = (p: string) => path.join(import.meta.dirname, "fixtures", p)
const validFull = fs.readFileSync(fixture("state/valid-full.json"), "utf8")
const negative = JSON.parse(fs.readFileSync(fixture("state/schema-negative-cases.json"), "utf8"))

describe("State", () => {
  it.effect("valid-full.json decodes and re-encodes byte-identically", () =>
    Effect.gen(function*() {
      const doc = yield* State.decodeText(validFull)
      assert.strictEqual(State.encode(doc), validFull)
      assert.strictEqual(State.nextOwner(doc.findings![0]!), "Triage")
      assert.strictEqual(State.nextOwner(doc.findings![1]!), "Verifier")
    }))

  it.effect("harness-minimal.json round-trips", () =>
    Effect.gen(function*() {
      const text = fs.readFileSync(fixture("state/harness-minimal.json"), "utf8")
      assert.strictEqual(State.encode(yield* State.decodeText(text)), text)
    }))

  it("the negative table has 59 rows", () => assert.strictEqual(negative.cases.length, 59))

  for (const c of negative.cases) {
    it.effect(`refuses: ${c.name}`, () =>
      Effect.gen(function*() {
        const doc = applyMutation(JSON.parse(validFull), c.mutation)
        const error = yield* Effect.flip(State.decode(doc))
        assert.strictEqual(error.code, "invalid-state")
        assert.include(error.message, c.expect)
      }))
  }

  it.effect("load errors are addressed", () =>
    Effect.gen(function*() {
      const bad = yield* Effect.flip(State.decodeText("{\"schema_version\": 1,,}"))
      assert.include(bad.message, "not valid JSON at line 1")
      const top = yield* Effect.flip(State.decodeText("[]"))
      assert.include(top.message, "expected a JSON object at the top level")
      const utf = yield* Effect.flip(State.decodeBytes(new Uint8Array([0x7b, 0xff, 0x7d])))
      assert.include(utf.message, "not valid UTF-8")
    }))

  it.effect("hostile input: deep nesting and huge strings never crash", () =>
    Effect.gen(function*() {
      const deep = "[".repeat(100_000) + "]".repeat(100_000)
      const e = yield* Effect.flip(State.decodeText(deep))
      assert.include(e.message, "not valid JSON")
      const huge = yield* Effect.flip(State.decodeText(JSON.stringify({ notes: "x".repeat(5_000_000) })))
      assert.include(huge.message, "unknown top-level key")
    }))
})
