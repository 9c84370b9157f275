/**
 * The conversation's messages, built directly. The run loop makes a handful of message shapes
 * (the person's text, the model's reply with its tool calls, a tool's result); building them with
 * `@effect/ai`'s part and message constructors gives exactly what `Prompt.make` decodes from
 * their encoded form (`test/Messages.test.ts` holds the two equal) without running the prompt
 * schema over every message. Anything else (the compiled system messages) goes through
 * `decode`, the schema path.
 */
import * as Prompt from "@effect/ai/Prompt"

/** Encoded messages through the prompt schema. */
export const decode = (messages: ReadonlyArray<Prompt.MessageEncoded>): ReadonlyArray<Prompt.Message> =>
  Prompt.make(messages).content

/** A user message with one text part. */
export const user = (text: string): Prompt.Message =>
  Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text })] })

/** A tool call as the model made it. */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly params: unknown
}

/** The model's reply: its text (when there is any), then its tool calls. */
export const assistant = (text: string, calls: ReadonlyArray<ToolCall>): Prompt.Message =>
  Prompt.makeMessage("assistant", {
    content: [
      ...(text === "" ? [] : [Prompt.makePart("text", { text })]),
      ...calls.map((c) =>
        Prompt.makePart("tool-call", { id: c.id, name: c.name, params: c.params, providerExecuted: false })
      )
    ]
  })

/** A tool's result for the call it answers. */
export const toolResult = (call: ToolCall, output: string, failure: boolean): Prompt.Message =>
  Prompt.makeMessage("tool", {
    content: [
      Prompt.makePart("tool-result", {
        id: call.id,
        name: call.name,
        isFailure: failure,
        result: output,
        providerExecuted: false
      })
    ]
  })
