/**
 * A local model server that speaks the three agent CLIs' wire formats and answers from a script:
 * Anthropic Messages (`POST /v1/messages`, SSE, plus the `HEAD /` probe), OpenAI Responses
 * (`POST /v1/responses`, SSE) and Gemini (`:generateContent` JSON for the router's side call,
 * `:streamGenerateContent?alt=sse`). It listens on 127.0.0.1 only and records every request, so
 * a test can check what reached the model (a denial's citation, a continuation prompt).
 *
 * A script is a function of the request: `step` counts the model turns already in the request's
 * history (so the same request always gets the same reply, whatever side calls happen), and
 * `lastUser` is the text of the newest user content (tool results included).
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** A reply in neutral form: text, or shell tool calls (each becomes the client's shell tool). */
export type Reply =
  | { readonly text: string }
  | { readonly shell: ReadonlyArray<string> }

export type Wire = "anthropic" | "openai" | "gemini"

export interface Turn {
  readonly wire: Wire
  readonly step: number
  readonly lastUser: string
  readonly body: any
}

export interface Recorded {
  readonly wire: Wire | "other"
  readonly method: string
  readonly url: string
  readonly body: any
  /** The request as text (for `includes` checks). */
  readonly text: string
}

export interface ModelServer {
  readonly url: string
  readonly port: number
  readonly requests: Array<Recorded>
  readonly close: () => Promise<void>
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((c: any) =>
      typeof c === "string"
        ? c
        : c?.text ?? (c?.content === undefined ? "" : textOf(c.content)) ?? c?.output ?? ""
    ).join("\n")
    : JSON.stringify(content ?? "")

/** Anthropic: turns = assistant messages so far; the newest user message's text. */
const anthropicTurn = (body: any): Turn => {
  const messages: Array<any> = body.messages ?? []
  const users = messages.filter((m) => m.role === "user")
  return {
    wire: "anthropic",
    step: messages.filter((m) => m.role === "assistant").length,
    lastUser: textOf(users.at(-1)?.content),
    body
  }
}

/** OpenAI Responses: turns = assistant messages and function-call batches so far. */
const openaiTurn = (body: any): Turn => {
  const input: Array<any> = Array.isArray(body.input) ? body.input : []
  let step = 0
  let previous = ""
  for (const item of input) {
    const kind = item.type === "function_call" ? "call" : item.role === "assistant" ? "assistant" : "other"
    if (kind !== "other" && !(kind === "call" && previous === "call")) step++
    previous = kind
  }
  const lastUser = [...input].reverse().find((i) => i.role === "user" || i.type === "function_call_output")
  return {
    wire: "openai",
    step,
    lastUser: lastUser === undefined
      ? ""
      : lastUser.type === "function_call_output"
      ? String(lastUser.output)
      : textOf(lastUser.content),
    body
  }
}

/** Gemini: turns = model contents so far. */
const geminiTurn = (body: any): Turn => {
  const contents: Array<any> = body.contents ?? []
  const users = contents.filter((c) => c.role === "user")
  const parts = (users.at(-1)?.parts ?? []) as Array<any>
  return {
    wire: "gemini",
    step: contents.filter((c) => c.role === "model").length,
    lastUser: parts.map((p) => p.text ?? JSON.stringify(p.functionResponse ?? "")).join("\n"),
    body
  }
}

const sse = (res: http.ServerResponse, events: ReadonlyArray<readonly [string | null, unknown]>) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "close" })
  for (const [event, data] of events) {
    res.write(`${event === null ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`)
  }
  res.end()
}

let ids = 0
const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(ids++).toString(36)}`

const anthropicReply = (res: http.ServerResponse, body: any, reply: Reply) => {
  const usage = { input_tokens: 100, output_tokens: 20 }
  const message = {
    id: id("msg"),
    type: "message",
    role: "assistant",
    model: body.model,
    content: [],
    stop_reason: null,
    usage
  }
  const blocks: Array<readonly [string, unknown]> = []
  if ("text" in reply) {
    blocks.push(["content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" }
    }])
    blocks.push(["content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: reply.text }
    }])
    blocks.push(["content_block_stop", { type: "content_block_stop", index: 0 }])
  } else {
    reply.shell.forEach((command, index) => {
      blocks.push(["content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: id("toolu"), name: "Bash", input: {} }
      }])
      blocks.push(["content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify({ command, description: "scripted step" }) }
      }])
      blocks.push(["content_block_stop", { type: "content_block_stop", index }])
    })
  }
  sse(res, [
    ["message_start", { type: "message_start", message }],
    ["ping", { type: "ping" }],
    ...blocks,
    ["message_delta", {
      type: "message_delta",
      delta: { stop_reason: "text" in reply ? "end_turn" : "tool_use", stop_sequence: null },
      usage: { output_tokens: 20 }
    }],
    ["message_stop", { type: "message_stop" }]
  ])
}

const openaiReply = (res: http.ServerResponse, body: any, reply: Reply) => {
  const responseId = id("resp")
  const items: Array<any> = "text" in reply
    ? [{
      type: "message",
      id: id("msg"),
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }]
    }]
    : reply.shell.map((cmd) => ({
      type: "function_call",
      id: id("fc"),
      call_id: id("call"),
      name: "exec_command",
      arguments: JSON.stringify({ cmd }),
      status: "completed"
    }))
  const events: Array<readonly [string, unknown]> = [[
    "response.created",
    {
      type: "response.created",
      response: { id: responseId, object: "response", status: "in_progress", model: body.model, output: [] }
    }
  ]]
  items.forEach((item, index) => {
    events.push(["response.output_item.added", { type: "response.output_item.added", output_index: index, item }])
    if (item.type === "message") {
      const text = item.content[0].text
      events.push(["response.output_text.delta", {
        type: "response.output_text.delta",
        output_index: index,
        content_index: 0,
        item_id: item.id,
        delta: text
      }])
      events.push(["response.output_text.done", {
        type: "response.output_text.done",
        output_index: index,
        content_index: 0,
        item_id: item.id,
        text
      }])
    } else {
      events.push(["response.function_call_arguments.delta", {
        type: "response.function_call_arguments.delta",
        output_index: index,
        item_id: item.id,
        delta: item.arguments
      }])
      events.push(["response.function_call_arguments.done", {
        type: "response.function_call_arguments.done",
        output_index: index,
        item_id: item.id,
        arguments: item.arguments
      }])
    }
    events.push(["response.output_item.done", { type: "response.output_item.done", output_index: index, item }])
  })
  events.push(["response.completed", {
    type: "response.completed",
    response: {
      id: responseId,
      object: "response",
      status: "completed",
      model: body.model,
      output: items,
      usage: {
        input_tokens: 100,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 20,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 120
      }
    }
  }])
  sse(res, events)
}

const geminiCandidate = (reply: Reply) => ({
  content: {
    role: "model",
    parts: "text" in reply
      ? [{ text: reply.text }]
      : reply.shell.map((command) => ({
        functionCall: { name: "run_shell_command", args: { command, description: "scripted step" } }
      }))
  },
  finishReason: "STOP",
  index: 0
})
const geminiUsage = { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 }

/**
 * Start the server; `script` answers each model turn. Requests that are not a model turn get
 * what the client needs to go on (the Gemini router's choice, an empty 200 for `HEAD /`).
 */
export const start = (script: (turn: Turn) => Reply): Promise<ModelServer> =>
  new Promise((resolve) => {
    const requests: Array<Recorded> = []
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let body: any = null
        try {
          body = text === "" ? null : JSON.parse(text)
        } catch {
          body = text
        }
        const url = req.url ?? ""
        const wire: Wire | "other" = url.startsWith("/v1/messages")
          ? "anthropic"
          : url.startsWith("/v1/responses")
          ? "openai"
          : url.includes(":generateContent") || url.includes(":streamGenerateContent")
          ? "gemini"
          : "other"
        requests.push({ wire, method: req.method ?? "", url, body, text })
        if (req.method === "HEAD" || (req.method === "GET" && url === "/")) return void res.writeHead(200).end()
        if (wire === "anthropic" && url.includes("count_tokens")) {
          return void res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({ input_tokens: 100 })
          )
        }
        if (wire === "anthropic") return anthropicReply(res, body, script(anthropicTurn(body)))
        if (wire === "openai") return openaiReply(res, body, script(openaiTurn(body)))
        if (wire === "gemini" && url.includes(":generateContent")) {
          // The router's side call (JSON mode): pick the model the client asked for.
          const reply = { text: JSON.stringify({ reasoning: "scripted", model_choice: "flash" }) }
          return void res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({ candidates: [geminiCandidate(reply)], usageMetadata: geminiUsage })
          )
        }
        if (wire === "gemini") {
          const reply = script(geminiTurn(body))
          return sse(res, [[null, { candidates: [geminiCandidate(reply)], usageMetadata: geminiUsage }]])
        }
        res.writeHead(404, { "content-type": "application/json" }).end(
          JSON.stringify({ error: { message: `no ${url}` } })
        )
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        requests,
        close: () => new Promise((r) => server.close(() => r()))
      })
    })
  })
