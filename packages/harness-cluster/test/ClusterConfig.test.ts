import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import * as ClusterConfig from "../src/ClusterConfig.js"

const stateDirectory = "/tmp/steward-state"

const failure = (input: Parameters<typeof ClusterConfig.decode>[0]) =>
  Effect.flip(ClusterConfig.decode(input)).pipe(Effect.map((e) => ({ code: e.code, field: e.field })))

describe("ClusterConfig", () => {
  it.effect("no settings: table locks and the tuned timings (6 s expiry, 2 s refresh, 1 s assignments, 3 s health, 1 s poll)", () =>
    Effect.gen(function*() {
      const config = yield* ClusterConfig.decode({ stateDirectory })
      assert.strictEqual(config.lockMode, "table")
      assert.isTrue(Option.isNone(config.databaseUrl))
      assert.deepStrictEqual([config.listen.host, config.listen.port], ["127.0.0.1", 34431])
      assert.deepStrictEqual(config.advertise, config.listen)
      const sharding = ClusterConfig.sharding(config)
      assert.isTrue(sharding.shardLockDisableAdvisory)
      assert.deepStrictEqual(
        [
          sharding.shardLockExpiration,
          sharding.shardLockRefreshInterval,
          sharding.refreshAssignmentsInterval,
          sharding.runnerHealthCheckInterval,
          sharding.entityMessagePollInterval
        ].map((d) => Duration.toMillis(d)),
        [6000, 2000, 1000, 3000, 1000]
      )
    }))

  it.effect("flags win over the config section; advisory mode keeps advisory locks", () =>
    Effect.gen(function*() {
      const config = yield* ClusterConfig.decode({
        stateDirectory,
        settings: { listen: "0.0.0.0:4000", advertise: "10.0.0.5:4000", lockMode: "table", shardLockExpiration: "10s" },
        flags: { advertise: "10.0.0.6:4001", lockMode: "advisory", databaseUrl: "postgres://u@db:5432/steward" }
      })
      assert.deepStrictEqual([config.advertise.host, config.advertise.port], ["10.0.0.6", 4001])
      assert.deepStrictEqual([config.listen.host, config.listen.port], ["0.0.0.0", 4000])
      assert.strictEqual(Redacted.value(Option.getOrThrow(config.databaseUrl)), "postgres://u@db:5432/steward")
      const sharding = ClusterConfig.sharding(config)
      assert.isFalse(sharding.shardLockDisableAdvisory)
      assert.strictEqual(Duration.toMillis(sharding.shardLockExpiration), 10_000)
      assert.deepStrictEqual(Option.map(sharding.runnerListenAddress, (a) => a.port), Option.some(4000))
    }))

  it.effect("bad values: INVALID_CONFIG naming the field, from the config section or the flag", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<[Parameters<typeof ClusterConfig.decode>[0], string]> = [
        [{ stateDirectory, settings: { listen: "localhost" } }, "config.listen"],
        [{ stateDirectory, settings: { listen: "localhost:70000" } }, "config.listen"],
        [{ stateDirectory, settings: { advertise: "0.0.0.0:4000" } }, "config.advertise"],
        [{ stateDirectory, settings: { lockMode: "none" } }, "config.lockMode"],
        [{ stateDirectory, settings: { shardLockExpiration: "16s" } }, "config.shardLockExpiration"],
        [{ stateDirectory, settings: { shardLockExpiration: -5 } }, "config.shardLockExpiration"],
        [{ stateDirectory, settings: { shardLockRefreshInterval: "6s" } }, "config.shardLockRefreshInterval"],
        [{ stateDirectory, settings: { shardLockExpiration: "2s" } }, "config.shardLockExpiration"],
        [{ stateDirectory, settings: { entityMessagePollInterval: "1 minute" } }, "config.entityMessagePollInterval"],
        [{ stateDirectory, settings: { shardLockExpiraton: "6s" } }, "config.shardLockExpiraton"],
        [{ stateDirectory, settings: ["listen"] }, "config"],
        [{ stateDirectory, settings: { listen: "0.0.0.0:4000" } }, "config.listen"],
        [{ stateDirectory, flags: { databaseUrl: "mysql://db" } }, "--database-url"],
        [{ stateDirectory, flags: { listen: "[::1]" } }, "--listen"],
        [{ stateDirectory, flags: { lockMode: "Table" } }, "--lock-mode"],
        [{ stateDirectory: "" }, "stateDirectory"]
      ]
      for (const [input, field] of cases) {
        assert.deepStrictEqual(yield* failure(input), { code: "INVALID_CONFIG", field }, JSON.stringify(input))
      }
    }))

  it.effect("HOST, PORT and SHARD_LOCK_EXPIRATION in the environment change nothing", () =>
    Effect.gen(function*() {
      const config = yield* ClusterConfig.decode({ stateDirectory, settings: { advertise: "127.0.0.1:4100" } })
      const read = ShardingConfig.ShardingConfig.pipe(Effect.provide(ClusterConfig.layerSharding(config)))
      const clean = yield* read
      const saved = { HOST: process.env.HOST, PORT: process.env.PORT, SLE: process.env.SHARD_LOCK_EXPIRATION }
      process.env.HOST = "evil.example"
      process.env.PORT = "9"
      process.env.SHARD_LOCK_EXPIRATION = "2 hours"
      const polluted = yield* read.pipe(
        Effect.ensuring(Effect.sync(() => {
          for (
            const [key, value] of [["HOST", saved.HOST], ["PORT", saved.PORT], ["SHARD_LOCK_EXPIRATION", saved.SLE]]
          ) {
            if (value === undefined) delete process.env[key!]
            else process.env[key!] = value
          }
        }))
      )
      // the same variables do move upstream's environment reader: the test would see a leak
      process.env.PORT = "9"
      const upstream = yield* ShardingConfig.ShardingConfig.pipe(
        Effect.provide(Layer.orDie(ShardingConfig.layerFromEnv())),
        Effect.ensuring(
          Effect.sync(() => saved.PORT === undefined ? delete process.env.PORT : (process.env.PORT = saved.PORT))
        )
      )
      assert.deepStrictEqual(Option.map(upstream.runnerAddress, (a) => a.port), Option.some(9))
      assert.deepStrictEqual(polluted, clean)
      assert.deepStrictEqual(
        Option.map(polluted.runnerAddress, (a) => `${a.host}:${a.port}`),
        Option.some("127.0.0.1:4100")
      )
      assert.strictEqual(Duration.toMillis(polluted.shardLockExpiration), 6000)
    }))
})
