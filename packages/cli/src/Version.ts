/**
 * `steward --version` / `-V`: `steward 0.x.y (node vX, sqlite Y)` like `git --version`, and under
 * `--json` one object with the same facts and every package's version (what `doctor` lists).
 *
 * @since 0.4.0
 */
import { createRequire } from "node:module"
import { cliVersion, packageVersions } from "./internal/versions.js"

/**
 * @since 0.4.0
 * @category models
 */
export interface VersionReport {
  readonly name: "steward"
  readonly version: string
  readonly node: string
  /** The SQLite library the embedded store runs on (`null` when better-sqlite3 does not load). */
  readonly sqlite: string | null
  readonly packages: Readonly<Record<string, string>>
}

// The embedded store's library, asked in memory: nothing is opened or written on disk.
const sqliteVersion = (): string | null => {
  try {
    const Database = createRequire(import.meta.url)("better-sqlite3") as new(file: string) => {
      prepare(sql: string): { pluck(): { get(): unknown } }
      close(): void
    }
    const db = new Database(":memory:")
    try {
      return String(db.prepare("SELECT sqlite_version()").pluck().get())
    } finally {
      db.close()
    }
  } catch {
    return null
  }
}

/**
 * @since 0.4.0
 * @category constructors
 */
export const report = (): VersionReport => ({
  name: "steward",
  version: cliVersion(),
  node: process.version,
  sqlite: sqliteVersion(),
  packages: packageVersions()
})

/**
 * @since 0.4.0
 * @category rendering
 */
export const render = (doc: VersionReport): string =>
  `steward ${doc.version} (node ${doc.node}, sqlite ${doc.sqlite ?? "unavailable"})`
