/**
 * The run loop's messages, built directly, against what `Prompt.make` decodes from their encoded
 * form (what the loop used to send and a provider would decode).
 */
import * as Prompt from "@effect/ai/Prompt"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Messages from "../src/internal/messages.js"

const text = fc.string({ maxLength: 40 })
const call = fc.record({ id: fc.string({ maxLength: 8 }), name: fc.string({ maxLength: 8 }), params: fc.jsonValue() })

const decoded = (message: Prompt.MessageEncoded) => Prompt.make([message]).content[0]

describe("conversation messages", () => {
  it("user, assistant and tool-result messages equal their schema-decoded forms", () => {
    fc.assert(
      fc.property(text, fc.array(call, { maxLength: 4 }), fc.boolean(), (t, calls, failure) => {
        assert.deepStrictEqual(Messages.user(t), decoded({ role: "user", content: t }))
        assert.deepStrictEqual(
          Messages.assistant(t, calls),
          decoded({
            role: "assistant",
            content: [
              ...(t === "" ? [] : [{ type: "text" as const, text: t }]),
              ...calls.map((c) => ({ type: "tool-call" as const, id: c.id, name: c.name, params: c.params }))
            ]
          })
        )
        for (const c of calls) {
          assert.deepStrictEqual(
            Messages.toolResult(c, t, failure),
            decoded({
              role: "tool",
              content: [{
                type: "tool-result",
                id: c.id,
                name: c.name,
                isFailure: failure,
                result: t,
                providerExecuted: false
              }]
            })
          )
        }
      }),
      { numRuns: 500 }
    )
  })

  it("the compiled system messages go through the schema (their provider options kept)", () => {
    const [prefix] = Messages.decode([{
      role: "system",
      content: "prefix",
      options: { anthropic: { cacheControl: { type: "ephemeral" } } }
    }])
    assert.deepStrictEqual([prefix!.role, prefix!.options], ["system", {
      anthropic: { cacheControl: { type: "ephemeral" } }
    }])
  })
})
