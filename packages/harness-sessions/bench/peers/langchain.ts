/**
 * The LangChain (`langchain` 1.5, `createAgent`) side of the peer bench: a scripted chat model
 * (no network, answers from the messages it is given) bound to the tools, run by the agent graph.
 * The graph counts a model call and a tool node as two steps, so the recursion limit is raised to
 * fit 20 turns.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models"
import { AIMessage, type BaseMessage } from "@langchain/core/messages"
import type { ChatResult } from "@langchain/core/outputs"
import { createAgent, tool } from "langchain"
import { builtInInputs, nextCalls, noopInput, noopOutput, type Shape } from "./shapes.js"

class ScriptedChatModel extends BaseChatModel {
  constructor(readonly shape: Shape) {
    super({})
  }
  _llmType(): string {
    return "scripted"
  }
  // The agent binds its tools to the model; the script does not need them.
  override bindTools(): this {
    return this
  }
  _generate(messages: Array<BaseMessage>): Promise<ChatResult> {
    const results = messages.filter((m) => m.getType() === "tool").length
    const n = nextCalls(this.shape, results)
    const message = n === 0
      ? new AIMessage({ content: "Done." })
      : new AIMessage({
        content: "",
        tool_calls: Array.from({ length: n }, (_, i) => ({
          id: `call_${results + i}`,
          name: "noop",
          args: { n: i },
          type: "tool_call" as const
        }))
      })
    return Promise.resolve({ generations: [{ text: "", message }] })
  }
}

const toolsOf = (shape: Shape) => {
  const noop = tool(() => noopOutput, { name: "noop", description: "Does nothing (benchmark).", schema: noopInput })
  if (!shape.eightTools) return [noop]
  const idle = Object.entries(builtInInputs).map(([name, schema]) =>
    tool(() => noopOutput, { name, description: `${name} (benchmark: never called).`, schema })
  )
  return [...idle, noop]
}

/** A function that runs the shape once through the agent's `invoke`. */
export const runner = (shape: Shape): () => Promise<void> => {
  const agent = createAgent({ model: new ScriptedChatModel(shape), tools: toolsOf(shape) })
  const config = { recursionLimit: 2 * shape.turns + 10 }
  return async () => {
    const state = await agent.invoke({ messages: [{ role: "user", content: "Run the benchmark." }] }, config)
    const last = state.messages.at(-1)
    if (last?.content !== "Done.") throw new Error("LangChain run ended without the final text")
  }
}
