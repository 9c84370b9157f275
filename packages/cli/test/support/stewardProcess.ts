/**
 * How a test starts `steward` as a process: the one place that chooses what runs.
 *
 * By default the sources run through tsx's loader, so a developer's `pnpm test` never runs a stale
 * bundle. With `STEWARD_TEST_CLI=bundle` (CI, after `build`) it is the built bundle users run
 * (`dist/bin.js`, the package's `bin`): the same behaviour without compiling the sources in
 * every process, which took 1–2 s per process.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

const pkg = path.resolve(import.meta.dirname, "..", "..")

/** What `STEWARD_TEST_CLI` selects; an unknown value is refused, not read as the default. */
const mode = (): "source" | "bundle" => {
  const value = process.env["STEWARD_TEST_CLI"]
  if (value === undefined || value === "" || value === "source") return "source"
  if (value === "bundle") return "bundle"
  throw new Error(`STEWARD_TEST_CLI must be 'bundle' or 'source' (or unset), got '${value}'`)
}

const entry = (): ReadonlyArray<string> => {
  if (mode() === "source") {
    const loader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href
    return ["--import", loader, path.join(pkg, "src", "bin.ts")]
  }
  const bundle = path.join(pkg, "dist", "bin.js")
  if (!fs.existsSync(bundle)) {
    throw new Error(`STEWARD_TEST_CLI=bundle, but ${bundle} does not exist: run the build first`)
  }
  return [bundle]
}

/** The node arguments that start `steward` (before its own arguments): `[...stewardEntry, ...args]`. */
export const stewardEntry: ReadonlyArray<string> = entry()

/** The node arguments of `steward ARGS…`; spawn them with `process.execPath`. */
export const stewardArgv = (args: ReadonlyArray<string>): Array<string> => [...stewardEntry, ...args]
