/**
 * The state directory: `--state-dir DIR`, else `$STEWARD_STATE_DIR`, else `./.steward`.
 * It holds `steward.sqlite`, `config.json` and user programs such as `reflexes/<name>.algal.json`.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { cannotRun, type CommandFailure } from "./CliError.js"
import * as GlobalOptions from "./GlobalOptions.js"

/**
 * Where the path came from, for `doctor`.
 *
 * @since 0.1.0
 * @category models
 */
export type StateDirSource = "flag" | "env" | "default"

/**
 * A resolved, existing, writable state directory.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResolvedStateDir {
  readonly path: string
  readonly source: StateDirSource
  /** `<state>/steward.sqlite` */
  readonly databaseFile: string
  /** `<state>/config.json` */
  readonly configFile: string
}

/**
 * The state directory a command runs against.
 *
 * @since 0.1.0
 * @category tags
 */
export class StateDir extends Context.Tag("@steward/cli/StateDir")<StateDir, ResolvedStateDir>() {}

/**
 * Resolve the path without touching the disk.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolvePath = Effect.fn("StateDir.resolvePath")(function*(flag: Option.Option<string>) {
  const path = yield* Path.Path
  if (Option.isSome(flag)) {
    return { path: path.resolve(flag.value), source: "flag" as const, given: flag.value }
  }
  const env = yield* Config.string("STEWARD_STATE_DIR").pipe(Config.option, Effect.orElseSucceed(Option.none))
  if (Option.isSome(env) && env.value.length > 0) {
    return { path: path.resolve(env.value), source: "env" as const, given: env.value }
  }
  return { path: path.resolve(".steward"), source: "default" as const, given: undefined }
})

/**
 * Resolve the state directory and make sure it can be used: create the default `./.steward` when
 * missing (a directory named by `--state-dir` or `$STEWARD_STATE_DIR` must exist), refuse a path
 * that is not a directory, and refuse a directory that cannot be written. Mode bits are checked as
 * well as `access(2)`, so a directory marked read-only is refused even for root, who could write it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open = Effect.fn("StateDir.open")(function*(flag: Option.Option<string>) {
  return yield* openWith(flag, true)
})

/**
 * The state directory for a command that only reads: it must exist, but may be read-only (and is
 * never created); `StateDir.open` is for commands that write.
 *
 * @since 0.1.0
 * @category constructors
 */
export const openReadOnly = Effect.fn("StateDir.openReadOnly")(function*(flag: Option.Option<string>) {
  return yield* openWith(flag, false)
})

const openWith = Effect.fnUntraced(function*(flag: Option.Option<string>, write: boolean) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const resolved = yield* resolvePath(flag)
  const where = `state directory ${resolved.path} (from ${describeSource(resolved.source)})`
  const fail = (message: string, cause?: unknown): Effect.Effect<never, CommandFailure> =>
    Effect.fail(cannotRun("state-dir", message, cause === undefined ? undefined : { cause: String(cause) }))

  const info = yield* fs.stat(resolved.path).pipe(Effect.option)
  if (Option.isNone(info) && (resolved.source !== "default" || !write)) {
    // A directory named by --state-dir or $STEWARD_STATE_DIR is never created: a typo would
    // otherwise start an empty state silently.
    const given = resolved.given
    const relative = given !== undefined && !path.isAbsolute(given) ? ` (${given} is relative to ${process.cwd()})` : ""
    return yield* fail(`${where} does not exist${relative}; create it first (mkdir -p ${resolved.path})`)
  }
  if (Option.isNone(info)) {
    yield* fs.makeDirectory(resolved.path, { recursive: true }).pipe(
      Effect.catchAll((error) => fail(`cannot create ${where}: ${error.message}`, error))
    )
  } else {
    if (info.value.type !== "Directory") {
      return yield* fail(`${where} is not a directory (it is a ${info.value.type.toLowerCase()})`)
    }
    if (write && (info.value.mode & 0o222) === 0) {
      return yield* fail(`${where} is read-only`)
    }
  }
  if (write) {
    yield* fs.access(resolved.path, { writable: true }).pipe(
      Effect.catchAll(() => fail(`${where} is not writable`))
    )
  }
  const state: ResolvedStateDir = {
    path: resolved.path,
    source: resolved.source,
    databaseFile: path.join(resolved.path, "steward.sqlite"),
    configFile: path.join(resolved.path, "config.json")
  }
  return state
})

/**
 * A layer opening the state directory named by the `--state-dir` option value.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (flag: Option.Option<string>) => Layer.effect(StateDir, open(flag))

const describeSource = (source: StateDirSource): string =>
  source === "flag" ? "--state-dir" : source === "env" ? "$STEWARD_STATE_DIR" : "the default ./.steward"

/**
 * The `--state-dir` flag, when the command line carried one. `Main` provides it so code that only
 * needs the state directory's config (the audit area, which works on a project folder) can find
 * it without every verb passing it along.
 *
 * @since 0.1.0
 * @category flags
 */
export class StateDirFlag extends Context.Tag("@steward/cli/StateDirFlag")<StateDirFlag, string>() {}

/**
 * Read `--state-dir` from argv (before any `--`), as `Main` does for `--database-url`.
 *
 * @since 0.1.0
 * @category utils
 */
export const stateDirFlag = (argv: ReadonlyArray<string>): Option.Option<string> =>
  Option.fromNullable(GlobalOptions.valueIn(argv, "state-dir"))
