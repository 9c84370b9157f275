/**
 * A local HTTP server on 127.0.0.1 that speaks a model provider's wire format from a script:
 * each POST gets the next scripted body, and every request (path, headers, JSON body) is kept
 * for the test to inspect. No network is involved.
 */
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: any
}

export interface WireServer {
  readonly baseUrl: string
  readonly received: ReadonlyArray<Received>
}

export interface ScriptedTurn {
  readonly text?: string
  readonly toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly input: unknown }>
  readonly usage: { readonly input: number; readonly cachedInput: number; readonly output: number }
}

/** Start the server; it answers turn `i` of `script` with `render(turn, i)` and closes with the scope. */
export const start = (script: ReadonlyArray<ScriptedTurn>, render: (turn: ScriptedTurn, index: number) => unknown) =>
  Effect.acquireRelease(
    Effect.async<WireServer & { readonly server: http.Server }>((resume) => {
      const received: Array<Received> = []
      const server = http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          received.push({
            method: req.method ?? "",
            path: req.url ?? "",
            headers: req.headers,
            body: text === "" ? null : JSON.parse(text)
          })
          const turn = script[received.length - 1]
          if (turn === undefined) {
            res.writeHead(500, { "content-type": "application/json" }).end(
              JSON.stringify({ error: "script exhausted" })
            )
            return
          }
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify(render(turn, received.length - 1))
          )
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        resume(Effect.succeed({ server, baseUrl: `http://127.0.0.1:${port}`, received }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  )

/** A scripted turn as an OpenAI Responses API `response` object. */
export const openAiResponse = (turn: ScriptedTurn, index: number): unknown => ({
  id: `resp_${index}`,
  object: "response",
  created_at: 1_764_547_200 + index,
  status: "completed",
  error: null,
  incomplete_details: null,
  instructions: null,
  model: "gpt-4.1-2025-04-14",
  output: [
    ...(turn.text === undefined ? [] : [{
      type: "message",
      id: `msg_${index}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: turn.text, annotations: [], logprobs: [] }]
    }]),
    ...(turn.toolCalls ?? []).map((call, n) => ({
      type: "function_call",
      id: `fc_${index}_${n}`,
      call_id: call.id,
      name: call.name,
      arguments: JSON.stringify(call.input),
      status: "completed"
    }))
  ],
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  metadata: {},
  temperature: 1,
  top_p: 1,
  usage: {
    input_tokens: turn.usage.input,
    input_tokens_details: { cached_tokens: turn.usage.cachedInput },
    output_tokens: turn.usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: turn.usage.input + turn.usage.output
  }
})

/** A scripted turn as an Anthropic Messages API `message` object. */
export const anthropicMessage = (turn: ScriptedTurn, index: number): unknown => ({
  id: `msg_${index}`,
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [
    ...(turn.text === undefined ? [] : [{ type: "text", text: turn.text }]),
    ...(turn.toolCalls ?? []).map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.input }))
  ],
  stop_reason: (turn.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn",
  stop_sequence: null,
  usage: {
    input_tokens: turn.usage.input,
    cache_read_input_tokens: turn.usage.cachedInput,
    cache_creation_input_tokens: 0,
    output_tokens: turn.usage.output
  }
})
