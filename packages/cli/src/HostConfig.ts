/**
 * `<state>/config.json`: host configuration, validated with Schema. Unknown keys are an error
 * naming the key; a missing file means every default.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as BoundedFile from "./BoundedFile.js"
import { cannotRun } from "./CliError.js"
import * as Issues from "./Issues.js"
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
 * `database`: a shared PostgreSQL database for every store, instead of the state directory's
 * SQLite file (`--database-url` and `$STEWARD_DATABASE_URL` take precedence; ADR 0600).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Database = Schema.Struct({
  url: Schema.String.pipe(Schema.pattern(/^postgres(ql)?:\/\//, {
    message: () => "expected a PostgreSQL URL (postgres://user@host:port/db)"
  }))
})

/**
 * The whole `config.json` document.
 *
 * @since 0.1.0
 * @category schemas
 */
export class HostConfig extends Schema.Class<HostConfig>("HostConfig")({
  $schema: Schema.optional(Schema.String),
  database: Schema.optional(Database),
  extensions: Schema.optionalWith(Extensions, { default: () => ({}) })
}) {}

const decode = Schema.decodeUnknown(HostConfig, { onExcessProperty: "error", errors: "all" })

/**
 * Limits for reading `config.json`: it is a small document.
 *
 * @since 0.1.0
 * @category constants
 */
export const limits: BoundedFile.Limits = { maxBytes: 1024 * 1024, maxDepth: 32 }

/**
 * Validate a parsed config document. The error lists every issue, one line each, with its path.
 *
 * @since 0.1.0
 * @category constructors
 */
export const validate = (raw: unknown, file: string) =>
  decode(raw).pipe(
    Effect.mapError((error) => {
      const issues = Issues.fromParseError(error)
      return cannotRun("config", `${file}: ${issues.length === 1 ? "" : "\n"}${Issues.lines(issues)}`, {
        file,
        issues
      })
    })
  )

/**
 * Parse and validate the text of a config file (strict JSON: no duplicate keys, bounded depth).
 * The error names the file and the offending path.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = (text: string, file: string) =>
  BoundedFile.parseJson(text, file, limits.maxDepth).pipe(
    Effect.mapError((error) => BoundedFile.toFailure(error, "config")),
    Effect.flatMap((raw) => validate(raw, file))
  )

/**
 * Read the raw `config.json` document: `undefined` when the file does not exist. The file is
 * checked before it is opened (a FIFO or device is refused, never read), bounded in size, and
 * parsed strictly.
 *
 * @since 0.1.0
 * @category constructors
 */
export const readRaw = Effect.fn("HostConfig.readRaw")(function*(state: ResolvedStateDir) {
  const checked = yield* BoundedFile.check(state.configFile, limits).pipe(
    Effect.map(() => true),
    Effect.catchIf((error) => error.reason === "not-found", () => Effect.succeed(false)),
    Effect.mapError((error) => BoundedFile.toFailure(error, "config"))
  )
  if (!checked) return undefined
  return yield* BoundedFile.readJson(state.configFile, limits).pipe(
    Effect.mapError((error) => BoundedFile.toFailure(error, "config"))
  )
})

/**
 * Load `config.json` from the state directory; defaults when it does not exist.
 *
 * @since 0.1.0
 * @category constructors
 */
export const load = Effect.fn("HostConfig.load")(function*(state: ResolvedStateDir) {
  const raw = yield* readRaw(state)
  if (raw === undefined) {
    return { present: false, config: HostConfig.make({ extensions: {} }) }
  }
  const config = yield* validate(raw, state.configFile)
  return { present: true, config }
})
