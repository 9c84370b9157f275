/**
 * `steward config get|set|unset|list|path`: read and change `<state>/config.json` without
 * hand-editing. Keys are dotted paths under `extensions` (`reflexes.route`, `policy.level`) or
 * `$schema`; every change is validated by `HostConfig`'s Schema and, for an area with a settings
 * Schema (reflexes), by that Schema too, before the file is replaced atomically.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as FileSystem from "@effect/platform/FileSystem"
import * as ReflexConfig from "@steward/reflex-core/ReflexConfig"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { cannotRun } from "../CliError.js"
import * as GlobalOptions from "../GlobalOptions.js"
import { nearest } from "../Grammar.js"
import * as HostConfig from "../HostConfig.js"
import * as Issues from "../Issues.js"
import * as Output from "../Output.js"
import * as PolicySource from "../PolicySource.js"
import * as StateDir from "../StateDir.js"
import * as Stdin from "../Stdin.js"
import * as RoleAgents from "./audit/roleAgents.js"

const areaNames = ["reflexes", "policy", "audit", "sessions"] as const

// Areas whose settings have a Schema: the keys are known and each value is checked.
const areaSchemas: Readonly<Record<string, Schema.Struct<any>>> = {
  reflexes: ReflexConfig.ReflexConfig,
  // read by `steward policy` when the command line names no level or policy file (ADR 0008)
  policy: PolicySource.PolicyDefaults,
  // read by `steward audit loop`: the per-role agents (ADR 0011)
  audit: RoleAgents.AuditProfile
}
const areaDefaults: Readonly<Record<string, Record<string, unknown>>> = { reflexes: ReflexConfig.defaults }

/** Keys with a fixed name (free-form areas accept any `area.name`). */
const knownKeys = (): ReadonlyArray<string> => [
  "$schema",
  ...Object.entries(areaSchemas).flatMap(([area, schema]) => Object.keys(schema.fields).map((k) => `${area}.${k}`))
]

const parseKey = (key: string) => {
  if (key === "$schema") return Effect.succeed(["$schema"] as ReadonlyArray<string>)
  const parts = key.split(".")
  const [area, ...rest] = parts
  const unknown = () => {
    const suggestion = nearest(key, knownKeys())
    return Effect.fail(cannotRun(
      "usage",
      `unknown key ${key}${suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`}; keys are ${
        knownKeys().join(", ")
      }, or AREA.NAME for ${areaNames.filter((a) => !(a in areaSchemas)).join(", ")}`,
      { key, keys: knownKeys() }
    ))
  }
  if (area === undefined || !(areaNames as ReadonlyArray<string>).includes(area) || rest.length === 0) return unknown()
  if (rest.some((part) => part.length === 0)) return unknown()
  const schema = areaSchemas[area]
  if (schema !== undefined && !(rest[0]! in schema.fields)) return unknown()
  return Effect.succeed(["extensions", ...parts] as ReadonlyArray<string>)
}

const getIn = (doc: unknown, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>(
    (node, part) =>
      node !== null && typeof node === "object" && Object.hasOwn(node, part)
        ? (node as Record<string, unknown>)[part]
        : undefined,
    doc
  )

const setIn = (doc: unknown, path: ReadonlyArray<string>, value: unknown): Record<string, unknown> => {
  const [head, ...rest] = path
  const base = doc !== null && typeof doc === "object" && !Array.isArray(doc) ? { ...(doc as object) } : {}
  const out = base as Record<string, unknown>
  if (rest.length === 0) {
    if (value === undefined) delete out[head!]
    else out[head!] = value
  } else {
    const child = setIn(out[head!], rest, value)
    if (Object.keys(child).length === 0 && value === undefined) delete out[head!]
    else out[head!] = child
  }
  return out
}

/** Check the whole document: HostConfig's Schema, then each area's settings Schema. */
const validate = (doc: unknown, file: string) =>
  Effect.gen(function*() {
    yield* HostConfig.validate(doc, file)
    for (const [area, schema] of Object.entries(areaSchemas)) {
      const value = getIn(doc, ["extensions", area])
      if (value === undefined) continue
      yield* Schema.decodeUnknown(schema, { onExcessProperty: "error", errors: "all" })(value).pipe(
        Effect.mapError((error) => {
          const issues = Issues.fromParseError(error, [area])
          return cannotRun("config", Issues.lines(issues), { file, issues })
        })
      )
    }
  })

/** A value as given: JSON when it parses as JSON, else the text itself; `-` reads stdin. */
const parseValue = (text: string) =>
  Effect.gen(function*() {
    if (text === "-") return yield* Stdin.readJson("config value")
    try {
      return JSON.parse(text) as unknown
    } catch {
      return text
    }
  })

const write = (file: string, doc: unknown) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const temp = `${file}.tmp-${process.pid}`
    const io = (error: { readonly message: string }) => cannotRun("io", `cannot write ${file}: ${error.message}`)
    yield* fs.writeFileString(temp, `${JSON.stringify(doc, null, 2)}\n`).pipe(Effect.mapError(io))
    yield* fs.rename(temp, file).pipe(Effect.mapError(io))
  })

const flatten = (value: unknown, prefix: string, out: Record<string, unknown>): Record<string, unknown> => {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && prefix.split(".").length < 2) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix === "" ? k : `${prefix}.${k}`, out)
  } else if (prefix !== "") {
    out[prefix] = value
  }
  return out
}

const valuesOf = (doc: unknown): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  const schema = getIn(doc, ["$schema"])
  if (schema !== undefined) out["$schema"] = schema
  return flatten(getIn(doc, ["extensions"]) ?? {}, "", out)
}

const show = (value: unknown): string => typeof value === "string" ? value : JSON.stringify(value)

const key = Args.text({ name: "KEY" }).pipe(Args.withDescription("A setting, e.g. reflexes.route or policy.level"))

const get = Command.make("get", { ...GlobalOptions.global, key }, ({ json, key, stateDir }) =>
  Effect.gen(function*() {
    const path = yield* parseKey(key)
    const state = yield* StateDir.open(stateDir)
    const raw = yield* HostConfig.readRaw(state)
    const set = getIn(raw, path)
    const fallback = path.length === 3 ? areaDefaults[path[1]!]?.[path[2]!] : undefined
    if (set === undefined && fallback === undefined) {
      return yield* cannotRun("not-found", `${key} is not set in ${state.configFile}`, { key })
    }
    const doc = { key, value: set ?? fallback, source: set === undefined ? "default" : "file" }
    yield* Output.result(json, doc, (d) => show(d.value))
  })).pipe(Command.withDescription("Print one setting (its default when it is not set)"))

const setCommand = Command.make("set", {
  ...GlobalOptions.global,
  key,
  value: Args.text({ name: "VALUE" }).pipe(
    Args.withDescription("JSON (true, 3, \"text\", {...}), plain text, or - for stdin")
  )
}, ({ json, key, stateDir, value }) =>
  Effect.gen(function*() {
    const path = yield* parseKey(key)
    // the state directory is checked before waiting on stdin for the value
    const state = yield* StateDir.open(stateDir)
    const parsed = yield* parseValue(value)
    const raw = yield* HostConfig.readRaw(state)
    const next = setIn(raw ?? {}, path, parsed)
    yield* validate(next, state.configFile)
    yield* write(state.configFile, next)
    // a free-form area is stored for whatever reads config.json; no steward command reads it, so
    // say so rather than let `config set policy.level read_only` look like it changed something
    const area = path[1]
    const note = area !== undefined && !(area in areaSchemas) && path[0] === "extensions"
      ? `no steward command reads ${area}.* settings; ${key} is kept in ${state.configFile} for tools that read it`
      : undefined
    yield* Output.result(
      json,
      { key, value: parsed, file: state.configFile, ...(note === undefined ? {} : { note }) },
      (d) => `${d.key} = ${show(d.value)}`
    )
    if (note !== undefined && !json) yield* Console.error(`note: ${note}`)
  })).pipe(Command.withDescription("Change one setting; the whole file is validated before it is written"))

const unset = Command.make(
  "unset",
  { ...GlobalOptions.global, key },
  ({ json, key, stateDir }) =>
    Effect.gen(function*() {
      const path = yield* parseKey(key)
      const state = yield* StateDir.open(stateDir)
      const raw = yield* HostConfig.readRaw(state)
      const removed = getIn(raw, path) !== undefined
      if (removed) yield* write(state.configFile, setIn(raw, path, undefined))
      yield* Output.result(
        json,
        { key, removed, file: state.configFile },
        (d) => d.removed ? `${d.key} removed` : `${d.key} was not set`
      )
    })
).pipe(Command.withDescription("Remove one setting (back to its default)"))

const list = Command.make("list", { ...GlobalOptions.global }, ({ json, stateDir }) =>
  Effect.gen(function*() {
    const state = yield* StateDir.open(stateDir)
    const raw = yield* HostConfig.readRaw(state)
    if (raw !== undefined) yield* validate(raw, state.configFile)
    const values = valuesOf(raw)
    const defaults: Record<string, unknown> = {}
    for (const [area, entries] of Object.entries(areaDefaults)) {
      for (const [k, v] of Object.entries(entries)) if (!(`${area}.${k}` in values)) defaults[`${area}.${k}`] = v
    }
    const doc = { file: state.configFile, present: raw !== undefined, values, defaults }
    yield* Output.result(json, doc, (d) =>
      Output.table([
        ...Object.entries(d.values).map(([k, v]) => [k, show(v)] as const),
        ...Object.entries(d.defaults).map(([k, v]) => [k, `${show(v)}  (default)`] as const)
      ]))
  })).pipe(Command.withDescription("List every setting in config.json and the defaults of the rest"))

const pathCommand = Command.make("path", { ...GlobalOptions.global }, ({ json, stateDir }) =>
  Effect.gen(function*() {
    const state = yield* StateDir.open(stateDir)
    yield* Output.result(json, { file: state.configFile }, (d) => d.file)
  })).pipe(Command.withDescription("Print where config.json is (it may not exist yet)"))

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("config").pipe(
  Command.withDescription("Read and change config.json in the state directory (validated)"),
  Command.withSubcommands([get, setCommand, unset, list, pathCommand])
)
