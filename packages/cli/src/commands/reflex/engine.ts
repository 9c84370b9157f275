/**
 * What every `steward reflex` verb shares: the engine layer for a state directory, the error
 * mapping, the `REFLEX` argument.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as FitWorkers from "@steward/reflex-core/FitWorkers"
import * as ReflexConfig from "@steward/reflex-core/ReflexConfig"
import type * as ReflexError from "@steward/reflex-core/ReflexError"
import * as Reflexes from "@steward/reflex-core/Reflexes"
import * as ReflexLedger from "@steward/reflex-core/ReflexLedger"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import { cannotRun, type CommandFailure, type NegativeResult, refused } from "../../CliError.js"
import * as HostConfig from "../../HostConfig.js"
import * as HostSql from "../../HostSql.js"
import * as StateDir from "../../StateDir.js"
import * as Files from "./files.js"

/** Codes that mean the command ended with a refused or failed result (exit 1). */
const exit1 = new Set<string>(["conflict", "program-failed"])

/**
 * Map a reflex error to the CLI (the domain code is the CLI error code).
 *
 * @since 0.1.0
 * @category errors
 */
export const fromReflex = (error: ReflexError.ReflexError): CommandFailure =>
  exit1.has(error.code)
    ? refused(error.code, error.message, error.details)
    : cannotRun(error.code, error.message, error.details)

/**
 * The engine for a state directory: its config entry, custom organisms and SQLite ledger.
 *
 * @since 0.1.0
 * @category layers
 */
export const engineLayer = (stateDir: Option.Option<string>) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const state = yield* StateDir.open(stateDir)
      const loaded = yield* HostConfig.load(state)
      const config = yield* ReflexConfig.decode(loaded.config.extensions.reflexes, state.configFile).pipe(
        Effect.mapError(fromReflex)
      )
      const custom = yield* Files.readCustomPrograms(state.path, ["route", "settle"])
      return Reflexes.layer({ config, custom }).pipe(
        Layer.provideMerge(ReflexLedger.layerSql), // merged: `status --html` reads the ledger too
        Layer.provide(FitWorkers.layerNode()),
        Layer.provide(HostSql.layer(state)),
        Layer.mapError((e) => (e._tag === "ReflexError" ? fromReflex(e) : e))
      )
    })
  )

/** Run a body against the engine of a state directory, its errors mapped to the CLI. @internal */
export const run = <A, R = never>(
  stateDir: Option.Option<string>,
  body: (
    reflexes: Reflexes.Reflexes["Type"]
  ) => Effect.Effect<A, ReflexError.ReflexError | CommandFailure | NegativeResult, R>
) =>
  Effect.flatMap(Reflexes.Reflexes, body).pipe(
    Effect.catchTag("ReflexError", (e) => Effect.fail(fromReflex(e))),
    Effect.provide(engineLayer(stateDir))
  )

/** @internal */
export const reflexArg = Args.choice([["route", "route"], ["settle", "settle"]], { name: "REFLEX" }).pipe(
  Args.withDescription("Which reflex: route or settle")
)
/** @internal */
export const names = ["route", "settle"] as const
