import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
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

// The program as one CommonJS file (ADR 0010): what `bin.js` compiles through a V8 code cache on
// every command but `hook`. Every area is inlined behind esbuild's lazy initialisers (a dynamic
// `import()` of a bundled module becomes a call), so a command still evaluates only its own
// modules; `import.meta.url` is the file's own URL, which the loader (`internal/codeCache.ts`)
// passes to its wrapper. Its SHA-256 goes next to it: it names the
// cache, so a new build never reads an old build's cache.
const programEntry: Options = {
  entry: { program: "src/internal/startup.ts" },
  format: ["cjs"],
  outExtension: () => ({ js: ".cjs" }),
  platform: "node",
  target: "node20",
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  clean: false,
  splitting: false,
  noExternal: [/^@steward\//, /^effect(\/|$)/, /^@effect\//],
  external: ["better-sqlite3", "web-tree-sitter", "tree-sitter-bash", "yaml"],
  tsconfig: "tsconfig.build.json",
  define: { __STEWARD_PACKAGE_VERSIONS__: JSON.stringify(packageVersions), "import.meta.url": "__stewardModuleUrl" },
  // `vm.Script` has no module loader for `import()` without an experimental option (which warns on
  // stderr and, on Node 20, is lost when the script comes from the cache): the one external ES
  // import (web-tree-sitter, which ships CommonJS too) becomes a `require`
  esbuildOptions: (options) => void (options.supported = { ...options.supported, "dynamic-import": false }),
  silent: true,
  config: false,
  onSuccess: async () => {
    const file = path.join("dist", "program.cjs")
    if (/\bimport\(/.test(fs.readFileSync(file, "utf8"))) throw new Error(`${file} holds a dynamic import()`)
    fs.writeFileSync(`${file}.sha256`, `${crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")}\n`)
  }
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
  onSuccess: async () => {
    await build(hookEntry)
    await build(programEntry)
  }
})
