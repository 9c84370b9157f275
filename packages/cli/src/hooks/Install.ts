/**
 * `steward hooks install|uninstall` on disk: where each client reads its hook settings (project
 * scope by default, the user's with `--user`), the command a hook runs (the built CLI bundle, or
 * the sources through tsx in a checkout that is not built), and the install record that lets
 * `uninstall` restore a settings file's exact bytes.
 *
 * @since 0.3.0
 */
import type * as Autonomy from "@steward/governance-rules/Autonomy"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { cannotRun } from "../CliError.js"
import * as SandboxRewrite from "./SandboxRewrite.js"
import * as Settings from "./Settings.js"
import type * as Wire from "./Wire.js"

/**
 * What an install is about.
 *
 * @since 0.3.0
 * @category models
 */
export interface Target {
  readonly client: Wire.Client
  readonly user: boolean
  /** The project (absolute); for `--user`, the hook takes each event's own directory. */
  readonly workspace: string
  readonly level: Autonomy.Level
  readonly stateDir: string
  readonly rules: string | undefined
}

/**
 * The settings file a client reads hooks from.
 *
 * @since 0.3.0
 * @category paths
 */
export const settingsFile = (client: Wire.Client, user: boolean, workspace: string): string => {
  const home = os.homedir()
  switch (client) {
    case "claude-code":
      return user
        ? path.join(process.env["CLAUDE_CONFIG_DIR"] || path.join(home, ".claude"), "settings.json")
        : path.join(workspace, ".claude", "settings.json")
    case "codex":
      return user
        ? path.join(process.env["CODEX_HOME"] || path.join(home, ".codex"), "hooks.json")
        : path.join(workspace, ".codex", "hooks.json")
    case "gemini":
      return path.join(user ? home : workspace, ".gemini", "settings.json")
  }
}

/** The `@steward/cli` package root this module runs from (source or bundle). */
const packageRoot = (): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    const manifest = path.join(dir, "package.json")
    if (fs.existsSync(manifest) && fs.readFileSync(manifest, "utf8").includes("\"@steward/cli\"")) return dir
    dir = path.dirname(dir)
  }
  throw new Error(`cannot find the @steward/cli package above ${fileURLToPath(import.meta.url)}`)
}

/**
 * How a hook starts Steward: `node <cli>/dist/bin.js` when built, else the sources through tsx.
 *
 * @since 0.3.0
 * @category paths
 */
export const launcher = (): SandboxRewrite.Launcher => {
  const root = packageRoot()
  const built = path.join(root, "dist", "bin.js")
  if (fs.existsSync(built)) return { node: process.execPath, entry: [built] }
  const tsx = createRequire(path.join(root, "package.json")).resolve("tsx/esm")
  return { node: process.execPath, entry: ["--import", pathToFileURL(tsx).href, path.join(root, "src", "bin.ts")] }
}

/**
 * How an agent CLI starts a hook: the lean CommonJS entry `node <cli>/dist/hook.cjs` when built
 * (ADR 0006: no ES module on a call the decision server answers), else `steward hook` from the
 * sources through tsx.
 *
 * @since 0.3.0
 * @category paths
 */
export const hookLauncher = (): SandboxRewrite.Launcher => {
  const lean = path.join(packageRoot(), "dist", "hook.cjs")
  if (fs.existsSync(lean)) return { node: process.execPath, entry: [lean] }
  const cli = launcher()
  return { node: cli.node, entry: [...cli.entry, "hook"] }
}

/**
 * The command line of one event's hook.
 *
 * @since 0.3.0
 * @category paths
 */
export const hookCommand = (target: Target, event: string, run: SandboxRewrite.Launcher = hookLauncher()): string =>
  [
    run.node,
    ...run.entry,
    target.client,
    event,
    ...(target.user ? [] : ["--workspace", target.workspace]),
    "--level",
    target.level,
    "--state-dir",
    target.stateDir,
    ...(target.rules === undefined ? [] : ["--rules", target.rules])
  ].map(SandboxRewrite.quote).join(" ")

const Record_ = Schema.Struct({ original: Schema.NullOr(Schema.String), client: Schema.String })
const Records = Schema.Record({ key: Schema.String, value: Record_ })
const recordsFile = (stateDir: string) => path.join(stateDir, "hooks-installed.json")

const readText = (file: string) =>
  Effect.try({
    try: () => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null),
    catch: (e) => cannotRun("io", `cannot read ${file}: ${(e as Error).message}`)
  })

const writeText = (file: string, text: string) =>
  Effect.try({
    try: () => {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      const tmp = `${file}.steward-${process.pid}.tmp`
      fs.writeFileSync(tmp, text)
      fs.renameSync(tmp, file)
    },
    catch: (e) => cannotRun("io", `cannot write ${file}: ${(e as Error).message}`)
  })

const records = (stateDir: string) =>
  Effect.flatMap(readText(recordsFile(stateDir)), (text) =>
    text === null
      ? Effect.succeed({} as typeof Records.Type)
      : Schema.decodeUnknown(Schema.parseJson(Records))(text).pipe(
        Effect.mapError((e) => cannotRun("invalid-input", `${recordsFile(stateDir)}: ${e.message}`))
      ))

/**
 * A planned change of one settings file.
 *
 * @since 0.3.0
 * @category models
 */
export interface Change {
  readonly file: string
  readonly before: string | null
  /** `null`: the file is removed (it did not exist before the install). */
  readonly after: string | null
  readonly diff: string
}

const parsed = (text: string | null, file: string) =>
  Either.match(Settings.parse(text, file), {
    onLeft: (message) => Effect.fail(cannotRun("invalid-input", message)),
    onRight: Effect.succeed
  })

/**
 * Plan an install (nothing written).
 *
 * @since 0.3.0
 * @category install
 */
export const planInstall = (target: Target) =>
  Effect.gen(function*() {
    const file = settingsFile(target.client, target.user, target.workspace)
    const before = yield* readText(file)
    const doc = yield* parsed(before, file)
    const run = hookLauncher()
    const after = Settings.stringify(Settings.install(doc, target.client, (e) => hookCommand(target, e, run)), before)
    return { file, before, after, diff: Settings.diff(before ?? "", after) } satisfies Change
  })

/**
 * Plan an uninstall: the original bytes when the rest of the file is unchanged since the install.
 *
 * @since 0.3.0
 * @category install
 */
export const planUninstall = (target: Target) =>
  Effect.gen(function*() {
    const file = settingsFile(target.client, target.user, target.workspace)
    const before = yield* readText(file)
    const doc = yield* parsed(before, file)
    const stripped = Settings.uninstall(doc)
    const record = (yield* records(target.stateDir))[file]
    const originalDoc = record === undefined ? undefined : Either.getOrUndefined(Settings.parse(record.original, file))
    const after = record !== undefined && originalDoc !== undefined && Settings.sameJson(stripped, originalDoc)
      ? record.original
      : before === null
      ? null
      : Settings.stringify(stripped, before)
    return { file, before, after, diff: Settings.diff(before ?? "", after ?? "") } satisfies Change
  })

/**
 * Write a planned install and keep the file's original text for `uninstall`.
 *
 * @since 0.3.0
 * @category install
 */
export const applyInstall = (target: Target, change: Change) =>
  Effect.gen(function*() {
    yield* Effect.try({
      try: () => fs.mkdirSync(target.stateDir, { recursive: true }),
      catch: (e) => cannotRun("state-dir", `cannot create ${target.stateDir}: ${(e as Error).message}`)
    })
    const all = yield* records(target.stateDir)
    // A second install keeps the first one's original: that is what uninstall restores.
    const original = all[change.file]?.original ?? change.before
    yield* writeText(
      recordsFile(target.stateDir),
      `${JSON.stringify({ ...all, [change.file]: { original, client: target.client } }, null, 2)}\n`
    )
    if (change.after !== null) yield* writeText(change.file, change.after)
  })

/**
 * Write a planned uninstall and drop its record.
 *
 * @since 0.3.0
 * @category install
 */
export const applyUninstall = (target: Target, change: Change) =>
  Effect.gen(function*() {
    if (change.after === null) {
      yield* Effect.try({
        try: () => fs.rmSync(change.file, { force: true }),
        catch: (e) => cannotRun("io", `cannot remove ${change.file}: ${(e as Error).message}`)
      })
    } else if (change.after !== change.before) {
      yield* writeText(change.file, change.after)
    }
    const all = yield* records(target.stateDir)
    if (Object.hasOwn(all, change.file)) {
      const { [change.file]: _, ...rest } = all
      yield* writeText(recordsFile(target.stateDir), `${JSON.stringify(rest, null, 2)}\n`)
    }
  })
