import { createRequire } from "node:module"
import { build, defineConfig, type Options } from "tsup"

const require = createRequire(import.meta.url)
// @effect/ai is a dependency of harness-sessions, not of the CLI: resolved from there.
const resolvedThrough: Record<string, string> = { "@effect/ai": "@steward/harness-sessions" }
const versionOf = (name: string): string => {
  try {
    const through = resolvedThrough[name]
    const from = through === undefined ? require : createRequire(require.resolve(`${through}/package.json`))
    return (from(`${name}/package.json`) as { version: string }).version
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
    "@steward/harness-sessions",
    "effect",
    "@effect/ai",
    "@effect/cli",
    "@effect/platform",
    "@effect/sql",
    "@effect/sql-sqlite-node",
    "@effect/sql-pg",
    "better-sqlite3"
  ].map((
    name
  ) => [name, name === "@steward/cli" ? (require("./package.json") as { version: string }).version : versionOf(name)])
)

// The lean hook entry (ADR 0006): one CommonJS file with nothing to resolve but Node's built-ins,
// so a hook call answered by the decision server never starts Node's ES module loader. The
// decision host it falls back to is the ES bundle's `hookHost` entry (a computed `import()`).
// Built after the ES bundle (whose `clean` would otherwise race with it).
const hookEntry: Options = {
  entry: { hook: "src/hook.ts" },
  format: ["cjs"],
  platform: "node",
  target: "node20",
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  clean: false,
  tsconfig: "tsconfig.build.json",
  silent: true,
  // Built from here, not from this file's default export (which would build everything again).
  config: false
}

// The CLI is one bundle: workspace libraries and the Effect packages are inlined (Effect ships
// hundreds of ES modules: resolving and compiling them one by one took most of a command's
// startup). What loads files of its own at run time stays external: the native better-sqlite3,
// web-tree-sitter with the tree-sitter-bash grammar (WASM found next to their packages), yaml.
export default defineConfig({
  // reflex-core's fit worker entry ships next to the bundle, where FitWorkers.entry points
  entry: {
    bin: "src/bin.ts",
    hookHost: "src/hooks/Host.ts",
    "internal/fitWorker": "../reflex-core/src/internal/fitWorker.ts"
  },
  format: ["esm"],
  platform: "node",
  target: "node20",
  sourcemap: true,
  // Minified: every command's start-up reads and compiles each chunk it loads, and that time
  // follows the bytes (ADR 0004). The shipped source maps give a stack trace its names and
  // positions back (`node --enable-source-maps`).
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  clean: true,
  noExternal: [/^@steward\//, /^effect(\/|$)/, /^@effect\//],
  external: ["better-sqlite3", "web-tree-sitter", "tree-sitter-bash", "yaml"],
  tsconfig: "tsconfig.build.json",
  // Bundled CommonJS (pg-cursor, inside @effect/sql-pg) requires files of the external \`pg\`
  // package at run time: give the ES module bundle a real \`require\` for them.
  banner: {
    js:
      "import { createRequire as __stewardCreateRequire } from \"node:module\"; const require = __stewardCreateRequire(import.meta.url);"
  },
  define: { __STEWARD_PACKAGE_VERSIONS__: JSON.stringify(packageVersions) },
  onSuccess: () => build(hookEntry)
})
