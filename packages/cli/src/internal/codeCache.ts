/**
 * The program as one CommonJS file compiled through a V8 code cache (ADR 0010): `dist/program.cjs`
 * (built from `internal/startup.ts`, every area inlined behind lazy initialisers) is compiled
 * with `vm.Script` and the cached data a previous run left, so a command skips parsing and
 * compiling the bundle it already compiled once — on Node 20 too, which has no
 * `module.enableCompileCache`. Plain Node with no Effect import: it runs before the program loads.
 *
 * The cache is the user's: `$XDG_CACHE_HOME/steward` (else `~/.cache/steward`), a directory of
 * mode 0700 that must be owned by the user and writable by no one else, since V8 checks only a
 * cache's length and flags against the source, not its content. A cache file is named by where the
 * bundle is installed, its SHA-256 (written next to it by the build), Node's version and the
 * architecture, so a new build or a new Node never reads an old one, and a new one replaces the
 * old ones of its own install only. Anything that fails — no home, a foreign
 * directory, a rejected or unreadable cache — costs only the compile the cache would have saved.
 * `NODE_DISABLE_COMPILE_CACHE=1` (Node's own switch) turns it off.
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
const writeCache = (dir: string, file: string, place: string, data: Buffer): void => {
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, data, { mode: 0o600 })
  fs.renameSync(temporary, file)
  // this install's caches of earlier builds or Node versions are never read again
  for (const name of fs.readdirSync(dir)) {
    const other = path.join(dir, name)
    if (name.startsWith(`program-${place}-`) && name.endsWith(".v8cache") && other !== file) {
      fs.rmSync(other, { force: true })
    }
  }
}

/**
 * Load the program from `file` (`dist/program.cjs`), through the code cache when it can be used.
 * The cache is written once per bundle and Node version, right after the bundle's top level ran
 * (what every command compiles: the Effect core, the command tree) and before `bin.ts` changes a
 * V8 flag, which would make V8 reject it.
 *
 * @internal
 */
export const load = (file: string, env: NodeJS.ProcessEnv = process.env): Program => {
  const source = fs.readFileSync(file, "utf8")
  let cacheFile: string | undefined
  let cacheDir: string | undefined
  if (env["NODE_DISABLE_COMPILE_CACHE"] === undefined) {
    try {
      const digest = digestOf(file)
      cacheDir = digest === undefined ? undefined : cacheDirectory(env)
      if (cacheDir !== undefined && digest !== undefined) {
        cacheFile = path.join(
          cacheDir,
          `program-${placeOf(file)}-${digest.slice(0, 32)}-${process.version}-${process.arch}.v8cache`
        )
      }
    } catch {
      cacheFile = undefined
    }
  }
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile)
  // CommonJS's own wrapper, on the bundle's first line so positions in the source map hold, plus
  // the file's URL for what the ES module source reads as `import.meta.url`
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname, __stewardModuleUrl) {${source}\n})`,
    {
      filename: file,
      ...(cachedData === undefined ? {} : { cachedData })
    }
  )
  const module = { exports: {} as Program }
  ;(script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void).call(
    module.exports,
    module.exports,
    createRequire(file),
    module,
    file,
    path.dirname(file),
    pathToFileURL(file).href
  )
  if (cacheFile !== undefined && cacheDir !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    try {
      writeCache(cacheDir, cacheFile, placeOf(file), script.createCachedData())
    } catch {
      // a cache that cannot be written only costs the compile it would have saved
    }
  }
  return module.exports
}
