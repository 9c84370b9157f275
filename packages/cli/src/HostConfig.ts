/**
 * `<state>/config.json`: host configuration, validated with Schema. Unknown keys are an error
 * naming the key; a missing file means every default.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { cannotRun } from "./CliError.js"
import type { ResolvedStateDir } from "./StateDir.js"

/**
 * Area-specific settings. Each area validates its own entry when it runs; the shell only checks
 * that the entry is a JSON object under a known area name.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Extensions = Schema.Struct({
  reflexes: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  policy: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  audit: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  sessions: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

/**
 * The whole `config.json` document.
 *
 * @since 0.1.0
 * @category schemas
 */
export class HostConfig extends Schema.Class<HostConfig>("HostConfig")({
  $schema: Schema.optional(Schema.String),
  extensions: Schema.optionalWith(Extensions, { default: () => ({}) })
}) {}

const decode = Schema.decodeUnknown(HostConfig, { onExcessProperty: "error", errors: "all" })

/**
 * Parse and validate the text of a config file. The error names the file and the offending path.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = (text: string, file: string) =>
  Effect.gen(function*() {
    const raw = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (cause) => cannotRun("config", `${file}: not valid JSON (${(cause as Error).message})`)
    })
    return yield* decode(raw).pipe(
      Effect.mapError((error) =>
        cannotRun("config", `${file}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`, {
          file,
          issues: ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
            path: issue.path.map(String).join("."),
            message: issue.message
          }))
        })
      )
    )
  })

/**
 * Load `config.json` from the state directory; defaults when it does not exist.
 *
 * @since 0.1.0
 * @category constructors
 */
export const load = Effect.fn("HostConfig.load")(function*(state: ResolvedStateDir) {
  const fs = yield* FileSystem.FileSystem
  const exists = yield* fs.exists(state.configFile).pipe(Effect.orElseSucceed(() => false))
  if (!exists) {
    return { present: false, config: HostConfig.make({ extensions: {} }) }
  }
  const text = yield* fs.readFileString(state.configFile).pipe(
    Effect.mapError((error) => cannotRun("io", `cannot read ${state.configFile}: ${error.message}`))
  )
  const config = yield* parse(text, state.configFile)
  return { present: true, config }
})
