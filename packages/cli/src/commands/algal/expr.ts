/**
 * `steward algal expr PROGRAM [--env JSON] [--fuel N]`: evaluate an `algal.expr.v1` program and
 * print the exact boundary document (`{"ok":true,"value":3,"fuel":4}` /
 * `{"ok":false,"error":{…},"fuel":4}`) on one line: keys in that order, the value or error record in
 * canonical JSON.
 *
 * Exit 0 when the program evaluated, 1 when it failed (the document is printed first), 2 when the
 * arguments are not valid JSON or out of range (nothing on stdout). `PROGRAM` and `--env` take JSON
 * text, `@file` (read through the bounded reader) or `-` (standard input; one of them at most).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Canonical from "@steward/algal-runtime/Canonical"
import * as Expr from "@steward/algal-runtime/Expr"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as BoundedFile from "../../BoundedFile.js"
import { cannotRun, NegativeResult } from "../../CliError.js"
import * as GlobalOptions from "../../GlobalOptions.js"
import * as Stdin from "../../Stdin.js"
import * as StrictJson from "../../StrictJson.js"
import * as Signals from "./signals.js"

/** Largest `@file` argument read (a program is at most 16 KiB, an env at most 256 KiB canonical). */
const limits: BoundedFile.Limits = { maxBytes: 4 * 1024 * 1024, maxDepth: Canonical.maxDepth }

const decodeJson = Schema.decodeUnknownEither(Schema.parseJson())

const EnvRecord = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const decodeEnv = Schema.decodeUnknownEither(EnvRecord)

/** A refused `@file` or stdin: its kind or absence is `io`, a size over the limit `EXPR_BOUNDS`. */
const refusedFile = (label: string) => (error: BoundedFile.FileRefused) =>
  cannotRun(
    error.reason === "too-large" ? "EXPR_BOUNDS" : error.reason === "invalid-utf8" ? "EXPR_PARSE" : "io",
    `${label} ${error.message}`,
    { file: error.file, ...(error.limit === undefined ? {} : { limit: error.limit }) }
  )

/**
 * The text of an argument: itself, the contents of `@file` (read through the bounded reader), or
 * standard input for `-`.
 */
const argumentText = Effect.fn("algal.expr.argumentText")(function*(label: string, raw: string) {
  if (raw === "-") return yield* utf8(label, yield* Stdin.readBytes.pipe(Effect.mapError(refusedFile(label))))
  if (!raw.startsWith("@")) return raw
  return yield* BoundedFile.readText(raw.slice(1), limits).pipe(Effect.mapError(refusedFile(label)))
})

const utf8 = (label: string, bytes: Uint8Array) =>
  Effect.try({
    try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
    catch: () => cannotRun("EXPR_PARSE", `${label} from stdin is not valid UTF-8`)
  })

const parseArgument = (label: string, text: string) => {
  const decoded = decodeJson(text)
  if (Either.isLeft(decoded)) {
    // said with where it is (line and column), not the platform parser's character offset
    const strict = StrictJson.parse(text, { maxDepth: Canonical.maxDepth })
    if (!strict.ok && strict.error.issue === "syntax") {
      const { error } = strict
      const what = `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}`
      return Effect.fail(
        cannotRun("EXPR_PARSE", `${label} is not valid JSON: ${what} (line ${error.line}, column ${error.column})`, {
          line: error.line,
          column: error.column
        })
      )
    }
    return Effect.fail(cannotRun("EXPR_PARSE", `${label} is not valid JSON: ${firstLine(decoded.left.message)}`))
  }
  // JSON.parse keeps the last of two equal keys: a document that says two things is refused,
  // naming the key and its line (nesting and surrogates are the boundary's to report)
  const strict = StrictJson.parse(text, { maxDepth: Canonical.maxDepth })
  if (!strict.ok && strict.error.issue === "duplicate-key") {
    const { error } = strict
    return Effect.fail(
      cannotRun("EXPR_PARSE", `${label} is not valid JSON: ${error.message} (line ${error.line})`, {
        line: error.line
      })
    )
  }
  return Effect.succeed(decoded.right)
}

// The last line of a Schema parse error is the JSON parser's own message; drop the tree drawing.
const firstLine = (message: string): string => {
  const lines = message.split("\n").map((line) => line.replace(/^[\s└├│─]+/, "")).filter((line) => line.length > 0)
  return lines[lines.length - 1] ?? message
}

/**
 * Evaluate and print. Exposed for hosts that want the same behaviour without the CLI parser.
 *
 * @since 0.1.0
 * @category handlers
 */
export const evaluate = Effect.fn("algal.expr")(function*(input: {
  readonly program: string
  readonly env: Option.Option<string>
  readonly fuel: Option.Option<number>
}) {
  if (input.program === "-" && Option.getOrUndefined(input.env) === "-") {
    return yield* cannotRun("usage", "PROGRAM and --env cannot both be read from stdin (-)")
  }
  const program = yield* parseArgument("PROGRAM", yield* argumentText("PROGRAM", input.program))
  let env: Readonly<Record<string, unknown>> = {}
  if (Option.isSome(input.env)) {
    const value = yield* parseArgument("--env", yield* argumentText("--env", input.env.value))
    const record = decodeEnv(value)
    if (Either.isLeft(record) || value === null || Array.isArray(value)) {
      return yield* cannotRun("EXPR_PARSE", "--env must be a JSON object")
    }
    env = record.right
  }
  const fuel = Option.getOrElse(input.fuel, () => Expr.defaultFuel)
  if (!Number.isInteger(fuel) || fuel < 0 || fuel > Expr.maxFuel) {
    return yield* cannotRun("EXPR_BOUNDS", `--fuel must be an integer in [0, ${Expr.maxFuel}], got ${fuel}`)
  }
  // `evaluateJson` admits any value and reports what is not JSON; the cast only narrows the type.
  // the evaluation is synchronous and bounded (fuel and work meter); a signal that arrived during
  // it is handled at the checkpoint after it, before anything is printed (exit 130/143)
  const boundary = yield* Signals.stoppable(
    "algal expr",
    Effect.sync(() => Expr.evaluateJson(program, env as Readonly<Record<string, Canonical.Json>>, fuel)).pipe(
      Effect.zipLeft(Signals.checkpoint)
    )
  )
  const { document } = boundary
  // Input that is JSON text but outside ALGAL's JSON domain (a lone surrogate, 1e999) is an
  // argument error, not a program failure.
  if (!document.ok && document.error.code === "EXPR_PARSE" && typeof document.error.what === "string") {
    const what = document.error.what
    if (what.startsWith("program is not JSON")) return yield* cannotRun("EXPR_PARSE", `PROGRAM ${what.slice(8)}`)
    if (what.startsWith("env is not JSON")) return yield* cannotRun("EXPR_PARSE", `--env ${what.slice(4)}`)
  }
  yield* Console.log(boundary.text)
  if (!document.ok) {
    return yield* new NegativeResult({ reason: `${document.error.code}` })
  }
  return document
})

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "expr",
  {
    ...GlobalOptions.global,
    program: Args.text({ name: "PROGRAM" }).pipe(
      Args.withDescription("The program as JSON text, @file, or - (stdin)")
    ),
    env: Options.text("env").pipe(
      Options.withDescription("The env record as a JSON object (or @file, or - for stdin); default {}"),
      Options.optional
    ),
    fuel: Options.integer("fuel").pipe(
      Options.withDescription(`Fuel budget, an integer in [0, 1000000]; default ${10_000}`),
      Options.optional
    )
  },
  ({ env, fuel, program }) => Effect.asVoid(evaluate({ program, env, fuel }))
).pipe(
  Command.withDescription(
    "Evaluate an algal.expr.v1 program and print its boundary document {\"fuel\",\"ok\",\"value\"|\"error\"} (exit 1 if it failed)"
  )
)
