/**
 * The program as one CommonJS file compiled through a V8 code cache (ADR 0010): `dist/program.cjs`
 * (built from `internal/startup.ts`, every area inlined behind lazy initialisers) is compiled
 * with `vm.Script` and the cached data an earlier run of the same verb left, so a command skips
 * parsing and compiling what it already compiled once — on Node 20 too, which has no
 * `module.enableCompileCache`. Plain Node with no Effect import: it runs before the program loads.
 *
 * The cache is the user's: `$XDG_CACHE_HOME/steward` (else `~/.cache/steward`), a directory of
 * mode 0700 that must be owned by the user and writable by no one else, since V8 checks only a
 * cache's length and flags against the source, not its content. A cache file is named by where the
 * bundle is installed, the command's verb, the bundle's SHA-256 (written next to it by the build),
 * Node's version and the architecture, so a new build or a new Node never reads an old one, and a
 * new one removes the old ones of its own install only. Anything that fails — no home, a foreign
 * directory, a rejected or unreadable cache — costs only the compile the cache would have saved
 * (with no cache directory at all, or with `NODE_DISABLE_COMPILE_CACHE=1`, Node's own switch, the
 * command runs the ES modules instead).
 *
 * @internal
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as vm from "node:vm"
import type { Running } from "./stopSignals.js"

/** @internal */
export interface Program {
  readonly start: (argv: ReadonlyArray<string>) => Running
}

/** What the build writes next to `program.cjs`: the bundle's digest, which names its cache. */
const digestOf = (file: string): string | undefined => {
  const text = fs.readFileSync(`${file}.sha256`, "utf8").trim()
  return /^[0-9a-f]{64}$/.test(text) ? text : undefined
}

/** The user's cache directory, created 0700; undefined when it is not safely the user's alone. */
const cacheDirectory = (env: NodeJS.ProcessEnv): string | undefined => {
  const base = env["XDG_CACHE_HOME"] !== undefined && path.isAbsolute(env["XDG_CACHE_HOME"])
    ? env["XDG_CACHE_HOME"]
    : path.join(os.homedir(), ".cache")
  const dir = path.join(base, "steward")
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stat = fs.lstatSync(dir)
  const uid = process.getuid?.()
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) return undefined
  return dir
}

const readCache = (file: string): Buffer | undefined => {
  try {
    const stat = fs.lstatSync(file)
    const uid = process.getuid?.()
    if (!stat.isFile() || (uid !== undefined && stat.uid !== uid)) return undefined
    return fs.readFileSync(file)
  } catch {
    return undefined
  }
}

/** FNV-1a of the bundle's path: installs in different places keep caches of their own. */
const placeOf = (file: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < file.length; i++) hash = Math.imul(hash ^ file.charCodeAt(i), 0x01000193) >>> 0
  return hash.toString(16).padStart(8, "0")
}

/** Written whole under a temporary name, then renamed over: a reader never sees half a cache. */
const writeCache = (location: Location, data: Buffer): void => {
  const temporary = `${location.file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, data, { mode: 0o600 })
  fs.renameSync(temporary, location.file)
  // this install's caches of earlier builds or Node versions are never read again
  for (const name of fs.readdirSync(location.dir)) {
    if (
      name.startsWith(`program-${location.place}-`) && name.endsWith(".v8cache") && !name.endsWith(location.current)
    ) {
      fs.rmSync(path.join(location.dir, name), { force: true })
    }
  }
}

/** What a command's cache is named by: its verb (`session-run`, `doctor`), else `other`. */
const keyOf = (args: ReadonlyArray<string>): string => {
  const words: Array<string> = []
  for (const arg of args.slice(0, 2)) {
    if (!/^[a-z]{2,16}$/.test(arg)) break
    words.push(arg)
  }
  return words.length === 0 ? "other" : words.join("-")
}

/**
 * Where a command's code cache lives, or undefined when none can be used (turned off, no digest
 * next to the bundle, no cache directory that is safely the user's): compiling the whole bundle
 * without a cache costs more than the ES modules' chunks a command loads, so `bin.ts` then runs
 * those instead.
 *
 * @internal
 */
export interface Location {
  readonly dir: string
  readonly file: string
  /** The name's tail every cache of this bundle and Node shares (`-<digest>-<node>-<arch>.v8cache`). */
  readonly current: string
  readonly place: string
}

/** @internal */
export const locate = (
  bundle: string,
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = process.env
): Location | undefined => {
  if (env["NODE_DISABLE_COMPILE_CACHE"] !== undefined) return undefined
  try {
    const digest = digestOf(bundle)
    const dir = digest === undefined ? undefined : cacheDirectory(env)
    if (dir === undefined || digest === undefined) return undefined
    const current = `-${digest.slice(0, 32)}-${process.version}-${process.arch}.v8cache`
    const place = placeOf(bundle)
    const file = path.join(dir, `program-${place}-${keyOf(args)}${current}`)
    // a cache that is missing and cannot be written would make every run compile the whole file
    if (!fs.existsSync(file)) fs.accessSync(dir, fs.constants.W_OK)
    return { dir, file, current, place }
  } catch {
    return undefined
  }
}

/**
 * Load the program from `bundle` (`dist/program.cjs`) through the code cache at `location` (see
 * `locate`: each verb keeps its own, since verbs compile different modules). A command that found
 * no usable cache there writes one when it ends, holding every function it compiled. The V8 flags
 * must not change between `load` and the end of the command (V8 rejects a cache made under other
 * flags): `bin.ts` sets its own before.
 *
 * @internal
 */
export const load = (bundle: string, location: Location): Program => {
  const source = fs.readFileSync(bundle, "utf8")
  const cachedData = readCache(location.file)
  // CommonJS's own wrapper, on the bundle's first line so positions in the source map hold, plus
  // the file's URL for what the ES module source reads as `import.meta.url`
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname, __stewardModuleUrl) {${source}\n})`,
    { filename: bundle, ...(cachedData === undefined ? {} : { cachedData }) }
  )
  const module = { exports: {} as Program }
  ;(script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void).call(
    module.exports,
    module.exports,
    createRequire(bundle),
    module,
    bundle,
    path.dirname(bundle),
    pathToFileURL(bundle).href
  )
  if (cachedData === undefined || script.cachedDataRejected) {
    process.once("exit", () => {
      try {
        writeCache(location, script.createCachedData())
      } catch {
        // a cache that cannot be written only costs the compile it would have saved
      }
    })
  }
  return module.exports
}
