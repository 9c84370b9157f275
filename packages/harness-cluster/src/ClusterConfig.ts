/**
 * `ClusterConfig`: where a runner keeps its state, which database it shares, the addresses it
 * listens on and advertises, the shard lock mode and the failover timings. Decoded from the host
 * config's cluster section and the `runner` flags; every bad value is a typed `INVALID_CONFIG`
 * naming the field. The cluster's own `ShardingConfig` is built from it explicitly: nothing is read
 * from the environment (upstream's runner layers read `HOST`, `PORT`, `SHARD_LOCK_EXPIRATION`…).
 *
 * @since 0.1.0
 */
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { ClusterError } from "./ClusterError.js"

/**
 * The longest shard lock expiry accepted: a dead or hung runner's runs move within about this bound
 * (issue 36: lock expiry at most 15 s).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxShardLockExpiration: Duration.Duration = Duration.seconds(15)

/**
 * A `host:port` address (`[::1]:34431` for IPv6).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Address = Schema.String.pipe(
  Schema.pattern(/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/, { message: () => "expected host:port" }),
  Schema.filter((text) => {
    const port = Number(text.slice(text.lastIndexOf(":") + 1))
    return (port >= 1 && port <= 65535) || "the port must be between 1 and 65535"
  })
)

const unspecified = new Set(["0.0.0.0", "[::]", "::"])

/**
 * An address other runners can dial: a wildcard host (`0.0.0.0`, `[::]`) is refused.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Advertised = Address.pipe(
  Schema.filter((text) =>
    !unspecified.has(text.slice(0, text.lastIndexOf(":"))) ||
    "a wildcard host cannot be dialled by other runners: advertise a reachable host"
  )
)

/**
 * A duration setting: milliseconds as a positive integer, or text like `6s` / `500ms`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DurationSetting = Schema.Union(
  Schema.Number.pipe(Schema.int(), Schema.positive()),
  Schema.String.pipe(
    Schema.pattern(/^[1-9]\d*(ms|s)$/, { message: () => "expected milliseconds, or text like 6s or 500ms" })
  )
)

/**
 * The shard lock mode: `table` (rows with an expiry, the default: a hung runner is replaced within
 * the lock expiry) or `advisory` (PostgreSQL advisory locks, held as long as the runner's session
 * lives; ADR 0580).
 *
 * @since 0.1.0
 * @category schemas
 */
export const LockMode = Schema.Literal("table", "advisory")

/**
 * @since 0.1.0
 * @category models
 */
export type LockMode = typeof LockMode.Type

/**
 * The cluster section of the host config, as written (every key optional).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Settings = Schema.Struct({
  databaseUrl: Schema.optional(Schema.String.pipe(Schema.pattern(/^postgres(ql)?:\/\//, {
    message: () => "expected a PostgreSQL URL (postgres://user@host:port/db)"
  }))),
  listen: Schema.optional(Address),
  advertise: Schema.optional(Advertised),
  lockMode: Schema.optional(LockMode),
  shardLockExpiration: Schema.optional(DurationSetting),
  shardLockRefreshInterval: Schema.optional(DurationSetting),
  refreshAssignmentsInterval: Schema.optional(DurationSetting),
  runnerHealthCheckInterval: Schema.optional(DurationSetting),
  entityMessagePollInterval: Schema.optional(DurationSetting),
  entityReplyPollInterval: Schema.optional(DurationSetting),
  entityTerminationTimeout: Schema.optional(DurationSetting)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Settings = typeof Settings.Type

/**
 * The `steward runner` flags that override the host config.
 *
 * @since 0.1.0
 * @category models
 */
export interface Flags {
  readonly databaseUrl?: string | undefined
  readonly listen?: string | undefined
  readonly advertise?: string | undefined
  readonly lockMode?: string | undefined
}

const flagNames: Record<keyof Flags, string> = {
  databaseUrl: "--database-url",
  listen: "--listen",
  advertise: "--advertise",
  lockMode: "--lock-mode"
}

/**
 * A decoded cluster configuration.
 *
 * @since 0.1.0
 * @category models
 */
export class ClusterConfig extends Schema.Class<ClusterConfig>("@steward/harness-cluster/ClusterConfig")({
  /** The shared PostgreSQL database (team runners); none: a single runner on SQLite. */
  databaseUrl: Schema.OptionFromSelf(Schema.Redacted(Schema.String)),
  /** Where the runner's socket server listens. */
  listen: RunnerAddress.RunnerAddress,
  /** The address other runners and clients dial; also the runner's identity in runner storage. */
  advertise: RunnerAddress.RunnerAddress,
  lockMode: LockMode,
  /** The state directory: `cluster.sqlite` and `runner.lock` live here. */
  stateDirectory: Schema.String,
  shardLockExpiration: Schema.DurationFromSelf,
  shardLockRefreshInterval: Schema.DurationFromSelf,
  refreshAssignmentsInterval: Schema.DurationFromSelf,
  runnerHealthCheckInterval: Schema.DurationFromSelf,
  entityMessagePollInterval: Schema.DurationFromSelf,
  entityReplyPollInterval: Schema.DurationFromSelf,
  entityTerminationTimeout: Schema.DurationFromSelf
}) {}

/**
 * The defaults: table locks and timings tuned for failover in about 6 s after a kill or a hang
 * (issue 36's measurements; ADR 0580).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  listen: "127.0.0.1:34431",
  lockMode: "table",
  shardLockExpiration: Duration.seconds(6),
  shardLockRefreshInterval: Duration.seconds(2),
  refreshAssignmentsInterval: Duration.seconds(1),
  runnerHealthCheckInterval: Duration.seconds(3),
  entityMessagePollInterval: Duration.seconds(1),
  entityReplyPollInterval: Duration.seconds(1),
  entityTerminationTimeout: Duration.seconds(15)
} as const

const invalid = (field: string, message: string) =>
  new ClusterError({ code: "INVALID_CONFIG", field, message: `${field}: ${message}` })

/** The first issue of a decode, as an error naming its field (`name(key)`, or `whole` for the document). */
const firstIssue = (error: ParseResult.ParseError, whole: string, name: (key: string) => string) => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  const key = issue?.path[0]
  const message = issue?._tag === "Unexpected" ? "unknown setting" : issue?.message ?? "invalid"
  return invalid(key === undefined ? whole : name(String(key)), message)
}

const decodeSettings = Schema.decodeUnknownEither(Settings, { onExcessProperty: "error" })

const toDuration = (setting: typeof DurationSetting.Type): Duration.Duration =>
  typeof setting === "number"
    ? Duration.millis(setting)
    : setting.endsWith("ms")
    ? Duration.millis(Number(setting.slice(0, -2)))
    : Duration.seconds(Number(setting.slice(0, -1)))

const toAddress = (text: string): RunnerAddress.RunnerAddress => {
  const colon = text.lastIndexOf(":")
  return RunnerAddress.make(text.slice(0, colon).replace(/^\[(.*)\]$/, "$1"), Number(text.slice(colon + 1)))
}

const timingKeys = [
  "shardLockExpiration",
  "shardLockRefreshInterval",
  "refreshAssignmentsInterval",
  "runnerHealthCheckInterval",
  "entityMessagePollInterval",
  "entityReplyPollInterval",
  "entityTerminationTimeout"
] as const

/**
 * Decode a configuration from the host config's cluster section (any JSON value; absent means
 * every default) and the runner flags, which win over the section. Fails with `INVALID_CONFIG`
 * naming the first bad field: `config.<key>` or the flag (`--listen`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const decode = Effect.fn("ClusterConfig.decode")(function*(input: {
  readonly settings?: unknown
  readonly flags?: Flags | undefined
  readonly stateDirectory: string
}) {
  const settings = decodeSettings(input.settings ?? {})
  if (Either.isLeft(settings)) return yield* firstIssue(settings.left, "config", (key) => `config.${key}`)
  const flagInput = Object.fromEntries(Object.entries(input.flags ?? {}).filter(([, value]) => value !== undefined))
  const flags = decodeSettings(flagInput)
  if (Either.isLeft(flags)) {
    return yield* firstIssue(flags.left, "flags", (key) => flagNames[key as keyof Flags] ?? key)
  }
  if (input.stateDirectory.length === 0) return yield* invalid("stateDirectory", "must not be empty")
  const merged: Settings = { ...settings.right, ...flags.right }
  const sourceOf = (key: keyof Settings) => key in flags.right ? flagNames[key as keyof Flags] : `config.${key}`
  const timing = Object.fromEntries(
    timingKeys.map((key) => {
      const setting = merged[key]
      return [key, setting === undefined ? defaults[key] : toDuration(setting)]
    })
  ) as Record<typeof timingKeys[number], Duration.Duration>
  if (Duration.greaterThan(timing.shardLockExpiration, maxShardLockExpiration)) {
    return yield* invalid(sourceOf("shardLockExpiration"), "must be at most 15 seconds")
  }
  if (!Duration.lessThan(timing.shardLockRefreshInterval, timing.shardLockExpiration)) {
    return yield* invalid(
      merged.shardLockRefreshInterval === undefined
        ? sourceOf("shardLockExpiration")
        : sourceOf("shardLockRefreshInterval"),
      "the lock refresh interval must be shorter than the lock expiration"
    )
  }
  const listen = toAddress(merged.listen ?? defaults.listen)
  if (merged.advertise === undefined && unspecified.has(listen.host)) {
    return yield* invalid(sourceOf("listen"), "listening on a wildcard host needs an explicit advertise address")
  }
  return new ClusterConfig({
    databaseUrl: Option.map(Option.fromNullable(merged.databaseUrl), Redacted.make),
    listen,
    advertise: merged.advertise === undefined ? listen : toAddress(merged.advertise),
    lockMode: merged.lockMode ?? defaults.lockMode,
    stateDirectory: input.stateDirectory,
    ...timing
  })
})

/**
 * The cluster's complete `ShardingConfig` for this configuration: upstream's constant defaults
 * overlaid with ours, never the environment.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sharding = (config: ClusterConfig): ShardingConfig.ShardingConfig["Type"] => ({
  ...ShardingConfig.defaults,
  runnerAddress: Option.some(config.advertise),
  runnerListenAddress: Option.some(config.listen),
  shardLockDisableAdvisory: config.lockMode === "table",
  shardLockExpiration: config.shardLockExpiration,
  shardLockRefreshInterval: config.shardLockRefreshInterval,
  refreshAssignmentsInterval: config.refreshAssignmentsInterval,
  runnerHealthCheckInterval: config.runnerHealthCheckInterval,
  entityMessagePollInterval: config.entityMessagePollInterval,
  entityReplyPollInterval: config.entityReplyPollInterval,
  entityTerminationTimeout: config.entityTerminationTimeout
})

/**
 * `ShardingConfig.layer` built from the configuration (see {@link sharding}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSharding = (config: ClusterConfig): Layer.Layer<ShardingConfig.ShardingConfig> =>
  ShardingConfig.layer(sharding(config))
