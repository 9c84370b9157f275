import { createRequire } from "node:module"

// Filled in by tsup at bundle time (the bundle cannot read workspace package.json files at run time).
declare const __STEWARD_PACKAGE_VERSIONS__: Record<string, string> | undefined

const packagesOfInterest = [
  "@steward/cli",
  "@steward/algal-runtime",
  "@steward/reflex-core",
  "@steward/audit-state",
  "@steward/governance-rules",
  "@steward/harness-sessions",
  "effect",
  "@effect/ai",
  "@effect/cli",
  "@effect/platform",
  "@effect/sql",
  "@effect/sql-sqlite-node",
  "@effect/sql-pg",
  "better-sqlite3"
] as const

/** Packages the CLI does not depend on directly, resolved from the workspace package that does. */
const resolvedThrough: Partial<Record<(typeof packagesOfInterest)[number], string>> = {
  "@effect/ai": "@steward/harness-sessions"
}

/** @internal */
export const packageVersions = (): Record<string, string> => {
  if (typeof __STEWARD_PACKAGE_VERSIONS__ !== "undefined") {
    return __STEWARD_PACKAGE_VERSIONS__
  }
  // From source (tsx, vitest): resolve each package's manifest next to this module.
  const require = createRequire(import.meta.url)
  const versions: Record<string, string> = {}
  for (const name of packagesOfInterest) {
    try {
      const through = resolvedThrough[name]
      const from = through === undefined ? require : createRequire(require.resolve(`${through}/package.json`))
      versions[name] = (from(`${name}/package.json`) as { version: string }).version
    } catch {
      versions[name] = "unknown"
    }
  }
  return versions
}

/** @internal */
export const cliVersion = (): string => packageVersions()["@steward/cli"] ?? "unknown"
