/**
 * One hook call as Steward sees it: the client and event from the command line, the settings the
 * installed command carries (`--workspace`, `--level`, `--state-dir`, `--rules`), the caller's
 * home and working directory, and the raw stdin. The same value crosses the decision server's
 * socket, so the server decides with the caller's settings, never its own environment.
 *
 * @since 0.3.0
 */
import * as Autonomy from "@steward/governance-rules/Autonomy"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as path from "node:path"

/**
 * @since 0.3.0
 * @category models
 */
export const Request = Schema.Struct({
  client: Schema.String,
  event: Schema.String,
  workspace: Schema.optional(Schema.String),
  level: Schema.optional(Autonomy.Level),
  stateDir: Schema.optional(Schema.String),
  rules: Schema.optional(Schema.String),
  home: Schema.String,
  cwd: Schema.String,
  stdin: Schema.String
})

/**
 * @since 0.3.0
 * @category models
 */
export type Request = typeof Request.Type

const flags = new Set(["--workspace", "--level", "--state-dir", "--rules"])

/**
 * Read `hook <client> <event> [--workspace DIR] [--level L] [--state-dir DIR] [--rules FILE]`
 * (the words after `hook`). `Left` names the first thing wrong.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parseArgs = (
  args: ReadonlyArray<string>,
  context: { readonly home: string; readonly cwd: string; readonly stateDirEnv?: string | undefined }
): Either.Either<Omit<Request, "stdin">, string> => {
  const [client, event, ...rest] = args
  if (client === undefined || event === undefined) return Either.left("usage: steward hook <client> <event> [options]")
  const values: Record<string, string> = {}
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!
    const [name, inline] = flag.includes("=") ?
      [flag.slice(0, flag.indexOf("=")), flag.slice(flag.indexOf("=") + 1)] :
      [
        flag,
        undefined
      ]
    if (!flags.has(name)) return Either.left(`unknown option ${JSON.stringify(flag)}`)
    const value = inline ?? rest[++i]
    if (value === undefined || value === "") return Either.left(`${name} needs a value`)
    values[name] = value
  }
  const level = values["--level"]
  if (level !== undefined && !(Autonomy.levels as ReadonlyArray<string>).includes(level)) {
    return Either.left(`--level must be one of ${Autonomy.levels.join(", ")}, got ${JSON.stringify(level)}`)
  }
  const abs = (p: string | undefined) => (p === undefined ? undefined : path.resolve(context.cwd, p))
  const stateDir = abs(values["--state-dir"]) ?? abs(context.stateDirEnv === "" ? undefined : context.stateDirEnv)
  return Either.right({
    client,
    event,
    ...(values["--workspace"] === undefined ? {} : { workspace: abs(values["--workspace"])! }),
    ...(level === undefined ? {} : { level: level as Autonomy.Level }),
    ...(stateDir === undefined ? {} : { stateDir }),
    ...(values["--rules"] === undefined ? {} : { rules: abs(values["--rules"])! }),
    home: context.home,
    cwd: context.cwd
  })
}
