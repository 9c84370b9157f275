import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

// What a one-shot command loads before its handler runs is what its area's module imports
// statically (ADR 0004): the static import graph of an area's entry must not reach the modules
// only one heavy verb uses. A dynamic `import()` is where the graph is cut.

const src = path.resolve(import.meta.dirname, "../src")

/** The value (not type-only) imports and re-exports of a module. */
const staticImports = (file: string): ReadonlyArray<string> => {
  const text = fs.readFileSync(file, "utf8")
  const specifiers: Array<string> = []
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?\bfrom\s+"([^"]+)"/gm)) {
    if (m[1] === undefined) specifiers.push(m[2]!)
  }
  return specifiers
}

const barrels = ["@steward/harness-sessions", "@steward/governance-rules"]

const packagesDir = path.resolve(import.meta.dirname, "../..")

/**
 * Every module an entry reaches statically, and every package specifier on the way. `across`: a
 * `@steward/pkg` or `@steward/pkg/Mod` specifier is followed into `packages/pkg/src` (what the
 * bundle inlines), so a barrel or a heavy module a library module imports counts as loaded; files
 * are then relative to `packages/` rather than to the CLI's `src/`.
 */
const walk = (entry: string, across: boolean) => {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    for (const specifier of staticImports(file)) {
      const workspace = across ? /^@steward\/([^/]+)(?:\/(.+))?$/.exec(specifier) : null
      if (specifier.startsWith(".")) visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".ts")))
      else if (workspace !== null) visit(path.join(packagesDir, workspace[1]!, "src", `${workspace[2] ?? "index"}.ts`))
      else packages.add(specifier)
    }
  }
  visit(path.join(src, entry))
  const base = across ? packagesDir : src
  return { files: [...files].map((f) => path.relative(base, f)), packages: [...packages] }
}
const reach = (entry: string) => walk(entry, false)
const reachAcross = (entry: string) => walk(entry, true)

describe("start-up: areas load what their cheap verbs use", () => {
  it("audit's verbs never load the loop's harness sessions", () => {
    const { files, packages } = reach("commands/audit/index.ts")
    assert.include(files, "commands/audit/loopCommand.ts")
    assert.notInclude(files, "commands/audit/loop.ts")
    assert.notInclude(files, "commands/audit/tools.ts")
    assert.deepStrictEqual(packages.filter((p) => p.startsWith("@steward/harness-sessions")), [])
    assert.deepStrictEqual(packages.filter((p) => barrels.includes(p)), [])
  })

  it("no area loads yaml at start-up (policy files and migrate's frontmatter load it on first use)", () => {
    for (const area of ["audit", "session", "reflex", "algal"]) {
      const entry = fs.existsSync(path.join(src, `commands/${area}/index.ts`))
        ? `commands/${area}/index.ts`
        : `commands/${area}.ts`
      const { packages } = reachAcross(entry)
      assert.deepStrictEqual(packages.filter((p) => p === "yaml"), [], area)
    }
    assert.deepStrictEqual(reachAcross("commands/policy.ts").packages.filter((p) => p === "yaml"), [])
  })

  it("session's reading verbs load the event store and views, not the runner", () => {
    const { files, packages } = reach("commands/session/index.ts")
    assert.notInclude(files, "commands/session/sessions.ts")
    assert.notInclude(files, "commands/reflex/index.ts")
    assert.deepStrictEqual(packages.filter((p) => barrels.includes(p)), [])
    assert.deepStrictEqual(packages.filter((p) => p.startsWith("@steward/harness-sessions/")).sort(), [
      "@steward/harness-sessions/EventJson",
      "@steward/harness-sessions/EventStore",
      "@steward/harness-sessions/HarnessError",
      "@steward/harness-sessions/SessionViews",
      "@steward/harness-sessions/TranscriptText"
    ])
  })

  // `events`, `show ID CALL` and the live verbs print through the library's renderers (issue 35
  // item 1): the two add themselves and nothing else to what a reading verb loads.
  it("session's reading verbs reach the renderers and no other library module than the store's", () => {
    const { files } = reachAcross("commands/session/index.ts")
    const modules = files.filter((f) => /^harness-sessions\/src\/[A-Za-z]+\.ts$/.test(f)).sort()
    assert.deepStrictEqual(modules, [
      "harness-sessions/src/Budget.ts",
      "harness-sessions/src/Event.ts",
      "harness-sessions/src/EventJson.ts",
      "harness-sessions/src/EventStore.ts",
      "harness-sessions/src/HarnessError.ts",
      "harness-sessions/src/Limits.ts",
      "harness-sessions/src/SessionViews.ts",
      "harness-sessions/src/TranscriptText.ts",
      "harness-sessions/src/WorkSlice.ts"
    ])
  })

  it("session list and show reach no library barrel, no model client and no process spawning", () => {
    const { files, packages } = reachAcross("commands/session/index.ts")
    assert.include(files, "harness-sessions/src/SessionViews.ts")
    assert.include(files, "harness-sessions/src/internal/meta.ts")
    assert.deepStrictEqual(files.filter((f) => f.endsWith("/src/index.ts")), [])
    // the governance engine and the shell grammar are the run verbs' (ADR 0004)
    assert.notInclude(files, "governance-rules/src/Policy.ts")
    assert.notInclude(files, "governance-rules/src/ShellParser.ts")
    // Goal's checker and tools, Reviewer's command: only a run uses them
    assert.notInclude(files, "harness-sessions/src/Goal.ts")
    assert.notInclude(files, "harness-sessions/src/Reviewer.ts")
    assert.deepStrictEqual(packages.filter((p) => p.startsWith("@effect/ai")), [])
    assert.deepStrictEqual(packages.filter((p) => p.startsWith("@effect/platform/Command")), [])
  })

  // A provider package's index brings its tokenizer (`gpt-tokenizer`, `@anthropic-ai/tokenizer`):
  // about half of what loading the package cost a session before its first model call (ADR 0010).
  // The wire modules the session loads on demand name the two modules a model layer needs.
  it("a session's model client loads the provider's client and model modules, not its index or tokenizer", () => {
    for (const [wire, pkg] of [["openai", "@effect/ai-openai"], ["anthropic", "@effect/ai-anthropic"]] as const) {
      const dir = path.join(packagesDir, "harness-sessions/src/internal/wire")
      assert.include(fs.readFileSync(path.join(dir, `${wire}.ts`), "utf8"), `import("./${wire}Model.js")`)
      const { packages } = walk(path.relative(src, path.join(dir, `${wire}Model.ts`)), true)
      const provider = packages.filter((p) => p.startsWith(pkg)).sort()
      assert.strictEqual(provider.length, 2, wire)
      assert.isTrue(provider.every((p) => /\/(OpenAi|Anthropic)(Client|LanguageModel)$/.test(p)), provider.join(", "))
    }
  })

  // A module namespace that escapes as a value (`export * as X`, or `import { X }` of a barrel's
  // `export * as X`) keeps every export of X in the bundle and builds a getter for each when its
  // chunk loads: `effect/Effect` re-exported that way grew every command's start-up (ADR 0004).
  it("what bin.ts loads re-exports no module namespace", () => {
    const { files } = reach("internal/startup.ts")
    const reexporting = files.filter((f) => /^export\s+\*\s+as\s/m.test(fs.readFileSync(path.join(src, f), "utf8")))
    assert.deepStrictEqual(reexporting, [])
  })

  it("the CLI imports library modules by subpath, never a package barrel's namespaces", () => {
    // every module the bundle is built from (`index.ts` is the package's own API, not bundled)
    const modules = (fs.readdirSync(src, { recursive: true }) as Array<string>)
      .filter((f) => f.endsWith(".ts") && f !== "index.ts")
    const barrelImports = modules.flatMap((f) =>
      staticImports(path.join(src, f)).filter((s) => /^@steward\/[^/]+$/.test(s)).map((s) => `${f}: ${s}`)
    )
    assert.deepStrictEqual(barrelImports, [])
  })
})
