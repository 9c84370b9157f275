/**
 * A model's tool call checked before governance sees it: a well-formed name of a tool the run
 * has, an input within the size bound, an input its schema accepts. What fails is the model's to
 * fix: one line naming the tool, the field and what was expected (with the tool list for a name
 * the run does not have), never a schema dump and never the run's end.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Limits from "../Limits.js"
import type { ToolLike } from "./toolShape.js"

/** Why a call is invalid: the field (`name`, `input`, or a path in the input) and the message. */
export interface Invalid {
  readonly field: string
  readonly expected: string
  readonly message: string
}

// What a tool name may be: provider APIs accept this shape; anything else (`__proto__` passes
// it, but is refused as a name no tool may have) is refused before any lookup.
const NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/
const RESERVED = new Set(["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf"])

const show = (value: unknown): string => {
  const text = typeof value === "string" ? JSON.stringify(value) : String(
    Limits.jsonSize(value) === undefined
      ? typeof value
      : JSON.stringify(value)
  )
  return Limits.cut(text, 80)
}

/** The first schema issue as one line: the field path and what it expected. */
const firstIssue = (tool: string, error: ParseResult.ParseError): Invalid => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const field = issue === undefined || issue.path.length === 0 ? "input" : issue.path.map(String).join(".")
  const expected = Limits.cut((issue?.message ?? "a valid input").replace(/\s+/g, " "), 200)
  return { field, expected, message: `invalid call to ${tool}: ${field}: ${expected}` }
}

/** Check a call; the decoded input when it is valid. */
export const check = (
  tools: ReadonlyArray<ToolLike>,
  extra: ReadonlyArray<string>,
  call: { readonly name: unknown; readonly params: unknown; readonly oversize?: number | undefined },
  limits: Limits.Resolved
): Either.Either<{ readonly tool: ToolLike; readonly input: unknown }, Invalid> => {
  const names = [...tools.map((t) => t.name), ...extra].join(", ")
  const name = call.name
  if (typeof name !== "string" || !NAME.test(name) || RESERVED.has(name)) {
    return Either.left({
      field: "name",
      expected: `one of ${names}`,
      message: `invalid tool name ${
        show(name)
      }: a tool name is a letter then letters, digits, _ . - (at most 64); the tools are ${names}`
    })
  }
  const tool = tools.find((t) => t.name === name)
  if (tool === undefined) {
    return Either.left({
      field: "name",
      expected: `one of ${names}`,
      message: `unknown tool ${show(name)}; the tools are ${names}`
    })
  }
  const size = call.oversize ?? Limits.jsonSize(call.params)
  if (size === undefined || size > limits.maxToolInput) {
    return Either.left({
      field: "input",
      expected: `at most ${limits.maxToolInput} bytes of JSON`,
      message: size === undefined
        ? `invalid call to ${name}: input: not JSON`
        : `invalid call to ${name}: input: ${size} bytes of JSON, over the limit of ${limits.maxToolInput}; send it in smaller parts`
    })
  }
  const decoded = Schema.decodeUnknownEither(tool.input as unknown as Schema.Schema<unknown, unknown>, {
    errors: "first"
  })(call.params)
  return Either.isLeft(decoded)
    ? Either.left(firstIssue(name, decoded.left))
    : Either.right({ tool, input: decoded.right })
}

/**
 * A call as it may be kept (in the conversation and the stored model step): its input when it is
 * within the bound, else a marker and the input's size (`oversize`), which `check` refuses.
 */
export const keepable = <C extends { readonly params: unknown }>(
  call: C,
  limits: Limits.Resolved
): C & { readonly oversize?: number } => {
  const size = Limits.jsonSize(call.params)
  return size !== undefined && size <= limits.maxToolInput
    ? call
    : {
      ...call,
      params: { cut: `an input of ${size ?? "?"} bytes, not kept` },
      oversize: size ?? Number.MAX_SAFE_INTEGER
    }
}
