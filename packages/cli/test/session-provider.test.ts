/**
 * `steward session run --model openai:…` over HTTP: the session's model client (Node's `http`,
 * ADR 0009) reaches the provider at OPENAI_BASE_URL with the key as a bearer token, and the
 * session settles on the provider's reply.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

interface Seen {
  readonly method: string
  readonly url: string
  readonly authorization: string | undefined
  readonly body: any
}

/** A Responses API reply with one assistant message (the fields the response schema requires). */
const reply = (body: any, text: string) => ({
  id: "resp_1",
  object: "response",
  created_at: 1_700_000_000,
  status: "completed",
  error: null,
  incomplete_details: null,
  instructions: null,
  model: body.model,
  output: [{
    type: "message",
    id: "msg_1",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }]
  }],
  parallel_tool_calls: true,
  tools: [],
  tool_choice: "auto",
  metadata: null,
  temperature: null,
  top_p: null,
  usage: {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 3,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 13
  }
})

const provider = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly url: string; readonly seen: Array<Seen>; readonly server: http.Server }>((resolve) => {
      const seen: Array<Seen> = []
      const server = http.createServer((request, response) => {
        let raw = ""
        request.on("data", (chunk) => void (raw += chunk))
        request.on("end", () => {
          const body = raw === "" ? {} : JSON.parse(raw)
          seen.push({
            method: request.method ?? "",
            url: request.url ?? "",
            authorization: request.headers.authorization,
            body
          })
          response.writeHead(200, { "content-type": "application/json" })
          response.end(JSON.stringify(reply(body, "Hello there.")))
        })
      })
      server.listen(
        0,
        "127.0.0.1",
        () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen, server })
      )
    })
  ),
  ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
)

/** Set environment variables for the scope, restoring what was there. */
const withEnv = (vars: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
      Object.assign(process.env, vars)
      return before
    }),
    (before) =>
      Effect.sync(() => {
        for (const [k, v] of Object.entries(before)) {
          if (v === undefined) delete process.env[k]
          else process.env[k] = v
        }
      })
  )

describe("steward session run against an OpenAI-compatible provider", () => {
  it.scoped("the model is called over HTTP at the configured base URL and the session settles", () =>
    Effect.gen(function*() {
      const server = yield* provider
      yield* withEnv({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test-key" })
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-provider-")))
      const ws = path.join(dir, "ws")
      fs.mkdirSync(ws)
      fs.mkdirSync(path.join(dir, "state"))
      const run = yield* runCli([
        "session",
        "run",
        "--state-dir",
        path.join(dir, "state"),
        "--model",
        "openai:gpt-x",
        "--workspace",
        ws,
        "--json",
        "Say hello"
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.strictEqual(run.outcome().status, "completed")
      const calls = server.seen.filter((s) => s.url === "/v1/responses")
      assert.isAtLeast(calls.length, 1)
      assert.strictEqual(calls[0]!.method, "POST")
      assert.strictEqual(calls[0]!.authorization, "Bearer test-key")
      assert.strictEqual(calls[0]!.body.model, "gpt-x")
      assert.include(JSON.stringify(calls[0]!.body.input), "Say hello")
    }))
})
