import { createRequire } from "node:module"
import { defineConfig } from "tsup"

const require = createRequire(import.meta.url)
const versionOf = (name: string): string => {
  try {
    return (require(`${name}/package.json`) as { version: string }).version
  } catch {
    return "unknown"
  }
}
const packageVersions = Object.fromEntries(
  [
    "@steward/cli",
    "@steward/algal-runtime",
    "@steward/reflex-core",
    "@steward/audit-state",
    "@steward/governance-rules",
    "effect",
    "@effect/cli",
    "@effect/platform",
    "@effect/sql",
    "@effect/sql-sqlite-node",
    "better-sqlite3"
  ].map((
    name
  ) => [name, name === "@steward/cli" ? (require("./package.json") as { version: string }).version : versionOf(name)])
)

// The CLI is one bundle: workspace libraries are inlined (their exports point at .ts sources),
// npm dependencies such as the native better-sqlite3 stay external.
export default defineConfig({
  entry: ["src/bin.ts"],
  format: ["esm"],
  platform: "node",
  target: "node20",
  sourcemap: true,
  clean: true,
  noExternal: [/^@steward\//],
  tsconfig: "tsconfig.build.json",
  define: { __STEWARD_PACKAGE_VERSIONS__: JSON.stringify(packageVersions) }
})
