/**
 * @since 0.1.0
 */

/**
 * The runner's configuration: addresses, lock mode, failover timings; the explicit `ShardingConfig`.
 *
 * @since 0.1.0
 */
export * as ClusterConfig from "./ClusterConfig.js"

/**
 * The package's one error (closed `code` set).
 *
 * @since 0.1.0
 */
export * as ClusterError from "./ClusterError.js"

/**
 * The engine stacks: single runner (SQLite), team runner (PostgreSQL sockets), client-only, tests.
 *
 * @since 0.1.0
 */
export * as ClusterLayers from "./ClusterLayers.js"

/**
 * `runner.lock`: one single runner per state directory.
 *
 * @since 0.1.0
 */
export * as RunnerLock from "./RunnerLock.js"
