/**
 * The workflow engine stacks a Steward process runs on (ADR 0576 §5):
 * - `layerSingle`: one runner on one machine, on `cluster.sqlite` in the state directory (separate
 *   from Steward's store), guarded by `runner.lock`;
 * - `layerTeam`: a socket runner on the shared PostgreSQL database, reachable by the other runners
 *   at its advertised address;
 * - `layerClient`: a client-only process (CLI verbs, an API server) that submits, polls and
 *   completes deferreds but owns no shards; on PostgreSQL or on the single runner's SQLite file;
 * - `layerMemory` / `layerTest`: tests, without a database.
 *
 * Every stack gets the explicit `ShardingConfig` of its `ClusterConfig` (never the environment)
 * and stores its messages and runners in tables prefixed `steward_cluster`.
 *
 * @since 0.1.0
 */
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import type * as MessageStorage from "@effect/cluster/MessageStorage"
import * as RunnerHealth from "@effect/cluster/RunnerHealth"
import * as Runners from "@effect/cluster/Runners"
import * as Sharding from "@effect/cluster/Sharding"
import * as SocketRunner from "@effect/cluster/SocketRunner"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import * as TestRunner from "@effect/cluster/TestRunner"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as WorkflowEngine from "@effect/workflow/WorkflowEngine"
import type { ConfigError } from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ClusterConfig from "./ClusterConfig.js"
import { ClusterError } from "./ClusterError.js"
import * as RunnerLock from "./RunnerLock.js"

/**
 * The table prefix of the cluster's storage: `steward_cluster_messages`, `…_replies`, `…_runners`,
 * `…_locks`.
 *
 * @since 0.1.0
 * @category constants
 */
export const tablePrefix = "steward_cluster"

/**
 * The single runner's cluster database, in the state directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const sqliteFileName = "cluster.sqlite"

const addressText = (config: ClusterConfig.ClusterConfig) => `${config.advertise.host}:${config.advertise.port}`

/** Message and runner storage in our own tables ("byo" storage), on the given `SqlClient`. */
const storage = (config: ClusterConfig.ClusterConfig) =>
  Layer.merge(
    SqlMessageStorage.layerWith({ prefix: tablePrefix }),
    SqlRunnerStorage.layerWith({ prefix: tablePrefix })
  ).pipe(Layer.provideMerge(ClusterConfig.layerSharding(config)))

/** The SQLite file of a single runner, created with its directory. */
const sqlite = (config: ClusterConfig.ClusterConfig) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    yield* fs.makeDirectory(config.stateDirectory, { recursive: true }).pipe(
      Effect.mapError((cause) =>
        new ClusterError({ code: "INVALID_CONFIG", field: "stateDirectory", message: String(cause), cause })
      )
    )
    return SqliteClient.layer({ filename: `${config.stateDirectory}/${sqliteFileName}` })
  })).pipe(Layer.provide(NodeContext.layer))

/** The team database; only for a configuration that names one. */
const postgres = (config: ClusterConfig.ClusterConfig): Layer.Layer<SqlClient.SqlClient, SqlError | ClusterError> =>
  Option.match(config.databaseUrl, {
    onNone: () =>
      Layer.fail(new ClusterError({ code: "INVALID_CONFIG", field: "databaseUrl", message: "databaseUrl: required" })),
    onSome: (url): Layer.Layer<SqlClient.SqlClient, SqlError> => PgClient.layer({ url })
  })

/** The process's cluster database: PostgreSQL when configured, else the single runner's SQLite file. */
const database = (
  config: ClusterConfig.ClusterConfig
): Layer.Layer<SqlClient.SqlClient, SqlError | ConfigError | ClusterError> =>
  Option.isSome(config.databaseUrl) ? postgres(config) : sqlite(config)

/** A Sharding stack on our storage and a database, with the engine over it; the stack's services stay visible. */
const engineOn = <A, E, R, E2>(
  sharding: Layer.Layer<A, E, R>,
  config: ClusterConfig.ClusterConfig,
  sql: Layer.Layer<SqlClient.SqlClient, E2>
) =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(sharding),
    Layer.provideMerge(storage(config)),
    Layer.provide(sql)
  )

/**
 * One runner on this machine: Sharding with no socket server (no other runner to call), on
 * `cluster.sqlite`, holding `runner.lock` for its lifetime.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSingle = (config: ClusterConfig.ClusterConfig) =>
  engineOn(
    Sharding.layer.pipe(
      Layer.provideMerge(Runners.layerNoop),
      Layer.provide(RunnerHealth.layerNoop)
    ),
    config,
    sqlite(config)
  ).pipe(
    Layer.provideMerge(RunnerLock.layer(config.stateDirectory, addressText(config))),
    Layer.provide(NodeContext.layer)
  )

const serialization = RpcSerialization.layerMsgPack

/**
 * A team runner: the socket runner (Node socket server and client protocol, msgpack) on the
 * PostgreSQL database, with ping health checks of the other runners.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTeam = (config: ClusterConfig.ClusterConfig) =>
  engineOn(
    SocketRunner.layer.pipe(
      Layer.provide(RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc))),
      Layer.provide([NodeClusterSocket.layerSocketServer, NodeClusterSocket.layerClientProtocol]),
      Layer.provide(serialization)
    ),
    config,
    postgres(config)
  )

/**
 * A client-only process: it persists messages and notifies the owner, but owns no shards. On the
 * team database when configured, else on the single runner's SQLite file.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerClient = (config: ClusterConfig.ClusterConfig) =>
  engineOn(
    SocketRunner.layerClientOnly.pipe(
      Layer.provide(NodeClusterSocket.layerClientProtocol),
      Layer.provide(serialization)
    ),
    config,
    database(config)
  )

/**
 * The in-memory workflow engine: no persistence, no cluster (unit tests of workflow bodies).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<WorkflowEngine.WorkflowEngine> = WorkflowEngine.layerMemory

/**
 * The cluster workflow engine on in-memory message and runner storage: the real engine's replay
 * and activity storage without a database.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTest: Layer.Layer<
  WorkflowEngine.WorkflowEngine | Sharding.Sharding | MessageStorage.MessageStorage
> = ClusterWorkflowEngine.layer.pipe(Layer.provideMerge(TestRunner.layer))
