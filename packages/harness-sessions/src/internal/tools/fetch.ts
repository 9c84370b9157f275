/**
 * `fetch`: one GET through the platform `HttpClient`. Governance decides the URL the model
 * named; a redirect is reported rather than chased, so the next URL passes governance too. The
 * fetch-based client follows redirects unless told otherwise, so the request asks for `manual`.
 *
 * @internal
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Tools from "../../Tools.js"
import { bound } from "./output.js"

/** @internal */
export const fields = {
  url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(8192)).annotations({
    description: "An http or https URL"
  }),
  maxChars: Schema.optional(
    Schema.Int.pipe(Schema.between(100, 200_000)).annotations({ description: "Longest body to return (characters)" })
  )
}

/** @internal */
export const timeout = Duration.seconds(30)

const textual = (contentType: string): boolean =>
  contentType === "" || /^text\/|json|xml|javascript|yaml|csv|x-www-form-urlencoded/i.test(contentType)

const parse = (raw: string): URL | string => {
  try {
    const url = new URL(raw)
    return url.protocol === "http:" || url.protocol === "https:"
      ? url
      : `${raw} is not an http or https URL`
  } catch {
    return `${raw} is not a valid URL`
  }
}

/** @internal */
export const tool: Tools.Tool<typeof fields, HttpClient.HttpClient> = {
  name: "fetch",
  description: "GET a web page or API URL and return its status and text body.",
  input: Schema.Struct(fields),
  governance: (input) => ({ tool: "fetch", url: input.url }),
  execute: (input) =>
    Effect.gen(function*() {
      const url = parse(input.url)
      if (typeof url === "string") return { ok: false, output: url }
      const client = yield* HttpClient.HttpClient
      const attempt = Effect.gen(function*() {
        const response = yield* client.get(url)
        const head = `HTTP ${response.status}`
        const location = response.headers["location"]
        if (response.status >= 300 && response.status < 400 && location !== undefined) {
          return { ok: false, output: `${head}: redirected to ${location}; fetch that URL if you need it` }
        }
        const contentType = response.headers["content-type"] ?? ""
        if (!textual(contentType)) {
          return { ok: false, output: `${head}: the body is ${contentType}, not text; it was not read` }
        }
        const body = bound(yield* response.text, input.maxChars ?? 30_000)
        const ok = response.status >= 200 && response.status < 300
        return {
          ok,
          output: `${head}${contentType === "" ? "" : ` (${contentType})`}\n\n${body.text}`,
          ...(body.truncated ? { truncated: true } : {})
        }
      }).pipe(Effect.scoped, Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }))
      return yield* attempt.pipe(
        Effect.timeoutTo({
          duration: timeout,
          onSuccess: (result): Tools.ToolResult => result,
          onTimeout: (): Tools.ToolResult => ({
            ok: false,
            timedOut: true,
            output: `no response from ${url.href} within ${Duration.format(timeout)}`
          })
        }),
        Effect.catchAll((error) =>
          Effect.succeed<Tools.ToolResult>({ ok: false, output: `could not fetch ${url.href}: ${error.message}` })
        )
      )
    })
}
