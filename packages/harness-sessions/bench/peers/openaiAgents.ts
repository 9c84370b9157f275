/**
 * The OpenAI Agents SDK (`@openai/agents-core` 0.20) side of the peer bench: an `Agent` whose
 * model is a scripted `Model` (no network, answers from the input items it is given), run by a
 * `Runner` with tracing off: its default exporter (with no OpenAI key) writes every span to the
 * console, which is not what a user pays in production; Steward's own tracing is off unless the
 * host turns it on, so this is the like-for-like figure (and the stricter bar for Steward).
 */
import { Agent, type AgentInputItem, type Model, type ModelResponse, Runner, tool, Usage } from "@openai/agents-core"
import { builtInInputs, nextCalls, noopInput, noopOutput, type Shape } from "./shapes.js"

const resultsIn = (input: string | Array<AgentInputItem>): number =>
  typeof input === "string" ? 0 : input.filter((item) => item.type === "function_call_result").length

const scriptedModel = (shape: Shape): Model => ({
  getResponse: (request): Promise<ModelResponse> => {
    const results = resultsIn(request.input)
    const n = nextCalls(shape, results)
    const usage = new Usage({ requests: 1, inputTokens: 100, outputTokens: 10, totalTokens: 110 })
    return Promise.resolve({
      usage,
      output: n === 0
        ? [{
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Done." }]
        }]
        : Array.from({ length: n }, (_, i) => ({
          type: "function_call" as const,
          callId: `call_${results + i}`,
          name: "noop",
          arguments: JSON.stringify({ n: i }),
          status: "completed" as const
        }))
    })
  },
  getStreamedResponse: () => {
    throw new Error("the benchmark model does not stream")
  }
})

const toolsOf = (shape: Shape) => {
  const noop = tool({
    name: "noop",
    description: "Does nothing (benchmark).",
    parameters: noopInput,
    execute: () => noopOutput
  })
  if (!shape.eightTools) return [noop]
  const idle = Object.entries(builtInInputs).map(([name, parameters]) =>
    tool({ name, description: `${name} (benchmark: never called).`, parameters, execute: () => noopOutput })
  )
  return [...idle, noop]
}

/** A function that runs the shape once through `Runner.run`. */
export const runner = (shape: Shape): () => Promise<void> => {
  const agent = new Agent({
    name: "bench",
    instructions: "Run the benchmark.",
    model: scriptedModel(shape),
    tools: toolsOf(shape)
  })
  const run = new Runner({ tracingDisabled: true })
  const options = { maxTurns: shape.turns + 2 }
  return async () => {
    const result = await run.run(agent, "Run the benchmark.", options)
    if (result.finalOutput !== "Done.") throw new Error("openai-agents run ended without the final text")
  }
}
