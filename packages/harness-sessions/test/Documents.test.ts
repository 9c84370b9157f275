/**
 * Sessions' documents against their Schemas: the hand-written check `commit` runs on event
 * inputs accepts exactly what the event-input Schema (with `EventType`) accepts; stored step rows
 * decode to their JSON results or to a typed store error, never a defect; a session's meta, the
 * Schema's own arbitrary values, survives being stored as JSON and decoded again.
 */
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Cause, Effect, Either, Exit, Schema } from "effect"
import * as fc from "fast-check"
import * as Event from "../src/Event.js"
import * as Meta from "../src/internal/meta.js"
import * as Rows from "../src/internal/rows.js"

const json = fc.jsonValue({ maxDepth: 3 })
const type = fc.oneof(
  fc.constantFrom(...Event.types, "host.note", "", "Run.start", "run..start", "a-b", "a".repeat(65), "x.y_1"),
  fc.string({ maxLength: 10 })
)
const input = fc.record({
  run: fc.oneof(fc.constant(null), fc.string({ maxLength: 6 }), fc.constant(7 as unknown as string)),
  type,
  data: json
})
const isChecked = Schema.is(Rows.CheckedInput)

describe("session documents", () => {
  it("checkInputs accepts exactly the inputs the event-input Schema accepts, naming the first refused", () => {
    fc.assert(
      fc.property(fc.array(input, { maxLength: 6 }), (inputs) => {
        const checked = Rows.checkInputs(inputs)
        const firstBad = inputs.findIndex((i) => !isChecked(i))
        assert.strictEqual(Either.isRight(checked), firstBad === -1, JSON.stringify(inputs))
        if (Either.isLeft(checked)) {
          assert.strictEqual(checked.left.code, "INVALID_INPUT")
          assert.isTrue(checked.left.message.startsWith(`event ${firstBad}:`))
        }
      }),
      { numRuns: 3_000 }
    )
  })

  it("stored step rows decode to their results; a damaged row is a typed STORE_FAILED", () => {
    const written = fc.record({
      idx: fc.oneof(fc.nat(), fc.nat().map(String)),
      result: json.map((v) => JSON.stringify(v))
    })
    const damaged = fc.oneof(
      fc.record({ idx: fc.constantFrom(1.5, "x", null, -0.5), result: fc.constant("1") }),
      fc.record({ idx: fc.nat(), result: fc.constantFrom("{", "", "[1,]", 3 as unknown as string) }),
      fc.constantFrom(null, "row", 4)
    )
    fc.assert(
      fc.property(fc.uniqueArray(written, { selector: (r) => Number(r.idx), maxLength: 8 }), (rows) => {
        const steps = Either.getOrThrow(Rows.decodeSteps(rows))
        assert.deepStrictEqual(
          [...steps.entries()],
          rows.map((r) => [Number(r.idx), JSON.parse(r.result)])
        )
      }),
      { numRuns: 1_000 }
    )
    fc.assert(
      fc.property(fc.array(written, { maxLength: 3 }), damaged, (good, bad) => {
        const out = Rows.decodeSteps([...good, bad])
        assert.isTrue(Either.isLeft(out))
        if (Either.isLeft(out)) {
          assert.strictEqual(out.left.code, "STORE_FAILED")
          assert.include(out.left.message, "reading steps failed")
        }
      }),
      { numRuns: 1_000 }
    )
  })

  it("a session's meta survives being stored as JSON and decoded again", () => {
    const meta = Arbitrary.make(Meta.MetaSchema)
    fc.assert(
      fc.property(meta, (m) => {
        const stored: unknown = JSON.parse(JSON.stringify(m))
        const back = Effect.runSyncExit(Meta.decode(stored))
        assert.isTrue(Exit.isSuccess(back), JSON.stringify(m))
        if (Exit.isSuccess(back)) assert.deepStrictEqual(back.value, stored)
      }),
      { numRuns: 300 }
    )
  })

  it("a host key that cannot be stored as data ('__proto__') is refused naming it", () => {
    const stored: unknown = JSON.parse(
      "{\"workspace\":\"/w\",\"level\":\"read_only\",\"rules\":[],\"remembered\":[],\"goal\":null," +
        "\"lastSubject\":null,\"host\":{\"__proto__\":0}}"
    )
    const back = Effect.runSyncExit(Meta.decode(stored))
    assert.isTrue(Exit.isFailure(back))
    if (Exit.isFailure(back)) {
      const error = Cause.squash(back.cause) as { code: string; message: string }
      assert.strictEqual(error.code, "INVALID_INPUT")
      assert.include(error.message, "__proto__")
    }
  })
})
