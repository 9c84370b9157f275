/**
 * Where `steward policy` takes its policy and level from when the command line does not say
 * (ADR 0008): `--rules FILE`, else the project's `steward.policy.yaml` (`.yml`, `.json`) found
 * from the workspace upward (the nearest wins, as `.editorconfig` or `.prettierrc` do), else the
 * `policy.rules` default of `config.json`; the level: `--level`, else the policy file's `level`,
 * else `policy.level` of `config.json`, else `execute`. Each choice names its source, so
 * `policy explain` can say why a rule applies.
 *
 * @since 0.4.0
 */
import * as Autonomy from "@steward/governance-rules/Autonomy"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import { cannotRun } from "./CliError.js"
import * as HostConfig from "./HostConfig.js"
import * as StateDir from "./StateDir.js"

/**
 * The names of a project policy file, in the order they are looked for in each directory.
 *
 * @since 0.4.0
 * @category constants
 */
export const projectFileNames = ["steward.policy.yaml", "steward.policy.yml", "steward.policy.json"] as const

/**
 * The `policy.*` defaults `config.json` may hold (`steward config set policy.level read_only`).
 *
 * @since 0.4.0
 * @category models
 */
export const PolicyDefaults = Schema.Struct({
  level: Schema.optional(Schema.Literal(...Autonomy.levels)),
  /** A policy file: absolute, or relative to the state directory's parent (the project). */
  rules: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
})

/**
 * @since 0.4.0
 * @category models
 */
export interface Resolved {
  readonly file: string | null
  readonly fileFrom: "flag" | "project" | "config" | null
  readonly levelFrom: "flag" | "file" | "config" | "default"
  readonly configDefaults: typeof PolicyDefaults.Type
}

/**
 * The nearest project policy file from `workspace` up to the filesystem's root, or `null`.
 *
 * @since 0.4.0
 * @category discovery
 */
export const discover = (workspace: string): string | null => {
  let dir = path.resolve(workspace)
  for (;;) {
    for (const name of projectFileNames) {
      const file = path.join(dir, name)
      if (fs.existsSync(file) && fs.statSync(file).isFile()) return file
    }
    const parent = path.dirname(dir)
    if (parent === dir) return null
    dir = parent
  }
}

/**
 * The `policy.*` defaults of the state directory's `config.json` (none when the directory does
 * not exist; an invalid file is the error it is everywhere).
 *
 * @since 0.4.0
 * @category reading
 */
export const configDefaults = (stateDir: Option.Option<string>) =>
  Effect.gen(function*() {
    const state = yield* StateDir.openReadOnly(stateDir).pipe(Effect.option)
    const none: typeof PolicyDefaults.Type = {}
    if (Option.isNone(state)) return { defaults: none, base: null as string | null }
    const loaded = yield* HostConfig.load(state.value)
    const raw = loaded.config.extensions.policy ?? {}
    const defaults = yield* Schema.decodeUnknown(PolicyDefaults)(raw, { onExcessProperty: "error" }).pipe(
      Effect.mapError((e) =>
        cannotRun(
          "config",
          `${state.value.configFile}: extensions.policy: ${ParseResult.TreeFormatter.formatErrorSync(e)}`
        )
      )
    )
    return { defaults, base: path.dirname(state.value.path) as string | null }
  })

/**
 * Choose the policy file and say where the level will come from.
 *
 * @since 0.4.0
 * @category resolving
 */
export const resolve = (options: {
  readonly rules: Option.Option<string>
  readonly level: Option.Option<Autonomy.Level>
  readonly workspace: string
  readonly stateDir: Option.Option<string>
}) =>
  Effect.gen(function*() {
    const { base, defaults } = yield* configDefaults(options.stateDir)
    const project = Option.isSome(options.rules) ? null : discover(options.workspace)
    const fromConfig = defaults.rules === undefined ? null : path.resolve(base ?? process.cwd(), defaults.rules)
    const [file, fileFrom] = Option.isSome(options.rules)
      ? [path.resolve(options.rules.value), "flag" as const]
      : project !== null
      ? [project, "project" as const]
      : fromConfig !== null
      ? [fromConfig, "config" as const]
      : [null, null]
    return { file, fileFrom, configDefaults: defaults } satisfies Omit<Resolved, "levelFrom">
  })
