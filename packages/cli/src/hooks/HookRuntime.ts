/**
 * What a hook call runs against, kept between calls when the process lives on (the resident
 * decision server) and built once per call otherwise: the policy engine of a workspace (cached
 * by workspace, level, home and the policy file's identity, so an edited policy is read again),
 * and the state directory's stores (evidence, hook state; the reflex engine only for the events
 * that need it). A store that fails to open is never cached: the next call tries again.
 *
 * @since 0.3.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Autonomy from "@steward/governance-rules/Autonomy"
import * as Evidence from "@steward/governance-rules/Evidence"
import type * as GovernanceError from "@steward/governance-rules/GovernanceError"
import * as Policy from "@steward/governance-rules/Policy"
import * as PolicyFile from "@steward/governance-rules/PolicyFile"
import type * as SandboxProfile from "@steward/governance-rules/SandboxProfile"
import * as ShellParser from "@steward/governance-rules/ShellParser"
import * as Reflexes from "@steward/reflex-core/Reflexes"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ReflexEngine from "../commands/reflex/engine.js"
import * as HostSql from "../HostSql.js"
import * as PolicySource from "../PolicySource.js"
import * as StateDir from "../StateDir.js"
import * as HookStore from "./HookStore.js"

/**
 * A workspace's policy: the engine and where its rules came from.
 *
 * @since 0.3.0
 * @category models
 */
export interface Governed {
  readonly engine: Policy.Engine
  readonly level: Autonomy.Level
  readonly rulesFile: string | null
  readonly home: string
  /** The policy file's `sandbox` section (domains, loopback ports, limits). */
  readonly sandbox: SandboxProfile.SandboxPolicy | undefined
}

/**
 * The stores of one state directory.
 *
 * @since 0.3.0
 * @category models
 */
export type Stores = Context.Context<SqlClient.SqlClient | Evidence.EvidenceLog | HookStore.HookStore>

/**
 * @since 0.3.0
 * @category tags
 */
export class HookRuntime extends Context.Tag("@steward/cli/HookRuntime")<HookRuntime, {
  readonly governed: (options: {
    readonly workspace: string
    readonly level: Autonomy.Level | undefined
    readonly home: string
    readonly rules: string | undefined
  }) => Effect.Effect<Governed, GovernanceError.GovernanceError>
  readonly stores: (stateDir: string) => Effect.Effect<Stores, string>
  readonly reflexes: (stateDir: string) => Effect.Effect<Reflexes.Reflexes["Type"], string>
}>() {}

/**
 * The policy file a workspace uses without `--rules`: `.steward/policy.{yaml,yml,json}`, else the
 * project's `steward.policy.yaml` from the workspace upward (ADR 0008).
 */
const workspacePolicy = (workspace: string): string | null => {
  for (const name of ["policy.yaml", "policy.yml", "policy.json"]) {
    const file = path.join(workspace, ".steward", name)
    if (fs.existsSync(file)) return file
  }
  return PolicySource.discover(workspace)
}

const identity = (file: string | null): string => {
  if (file === null) return "none"
  try {
    const s = fs.statSync(file)
    return `${file}:${s.size}:${s.mtimeMs}:${s.ino}`
  } catch {
    return `${file}:missing`
  }
}

const message = (e: unknown): string =>
  typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e)

/**
 * The runtime: caches live in `scope` (the server's lifetime, or one call's).
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const scope = yield* Effect.scope
  const parser = yield* ShellParser.ShellParser
  const platform = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
  const engines = new Map<string, Governed>()
  const stores = new Map<string, Stores>()
  const reflexes = new Map<string, Reflexes.Reflexes["Type"]>()
  const build = <A, E>(layer: Layer.Layer<A, E, FileSystem.FileSystem | Path.Path>) =>
    Effect.gen(function*() {
      const child = yield* Scope.fork(scope, ExecutionStrategy.sequential)
      return yield* Layer.buildWithScope(layer, child).pipe(
        Effect.onExit((exit) => Exit.isFailure(exit) ? Scope.close(child, exit) : Effect.void)
      )
    })
  return HookRuntime.of({
    governed: ({ home, level, rules, workspace }) =>
      Effect.gen(function*() {
        const file = rules ?? workspacePolicy(workspace)
        const key = JSON.stringify([workspace, level ?? null, home, identity(file)])
        const cached = engines.get(key)
        if (cached !== undefined) return cached
        const doc = file === null ? null : yield* PolicyFile.load(file)
        const fromFile = doc === null ? {} : PolicyFile.toConfig(doc, file!)
        const lvl = level ?? doc?.level ?? "execute"
        const engine = yield* Policy.make({ ...fromFile, level: lvl, workspace, home }).pipe(
          Effect.provideService(ShellParser.ShellParser, parser)
        )
        const governed: Governed = { engine, level: lvl, rulesFile: file, home, sandbox: doc?.sandbox }
        if (engines.size > 64) engines.clear()
        engines.set(key, governed)
        return governed
      }),
    stores: (stateDir) =>
      Effect.gen(function*() {
        const cached = stores.get(stateDir)
        if (cached !== undefined) return cached
        const state = yield* StateDir.open(Option.some(stateDir))
        const context = yield* build(
          Layer.mergeAll(Evidence.layerSql, HookStore.layer).pipe(Layer.provideMerge(HostSql.layer(state)))
        )
        // A hook commits on every tool call: in WAL mode, NORMAL syncs at checkpoints instead of
        // at every commit. A crash of the process loses nothing; a power loss may lose the last
        // decisions' evidence, never the store (ADR 0006).
        const sql = Context.get(context, SqlClient.SqlClient)
        yield* sql.onDialectOrElse({
          sqlite: () => sql.unsafe("PRAGMA synchronous = NORMAL"),
          orElse: () => Effect.void
        })
        stores.set(stateDir, context)
        return context
      }).pipe(
        Effect.mapError((e) => `the store in ${stateDir} cannot be opened: ${message(e)}`),
        Effect.provide(platform)
      ),
    reflexes: (stateDir) =>
      Effect.gen(function*() {
        // The modes (config.json) and custom organisms are read when the engine is built: a
        // change to either builds it again, so `reflex … observe` holds for the next hook call.
        const key = [
          stateDir,
          identity(path.join(stateDir, "config.json")),
          ...["route", "settle"].map((r) => identity(path.join(stateDir, "reflexes", `${r}.algal.json`)))
        ].join("\0")
        const cached = reflexes.get(key)
        if (cached !== undefined) return cached
        const context = yield* build(ReflexEngine.engineLayer(Option.some(stateDir)))
        const engine = Context.get(context, Reflexes.Reflexes)
        if (reflexes.size > 16) reflexes.clear()
        reflexes.set(key, engine)
        return engine
      }).pipe(
        Effect.mapError((e) => `the reflex ledger in ${stateDir} cannot be opened: ${message(e)}`),
        Effect.provide(platform)
      )
  })
})

/**
 * @since 0.3.0
 * @category layers
 */
export const layer: Layer.Layer<HookRuntime, GovernanceError.GovernanceError, FileSystem.FileSystem | Path.Path> = Layer
  .scoped(HookRuntime, make).pipe(
    Layer.provide(ShellParser.layer)
  )
