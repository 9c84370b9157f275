// Shared by the CI habit checks: the packages' source files and their import graph, read with the
// TypeScript parser (no type checking, so it is quick and sees exactly what the files say).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")

const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : /\.ts$/.test(name) && !/\.d\.ts$/.test(name) ? [path] : []
  })

const cache = new Map()

/** Every workspace package under `packages/`: `{ name, dir, src }` (read once per base). */
export const packages = (base = root) => {
  if (!cache.has(base)) cache.set(base, readPackages(base))
  return cache.get(base)
}

const readPackages = (base) =>
  readdirSync(join(base, "packages"))
    .map((dir) => join(base, "packages", dir))
    .filter((dir) => existsSync(join(dir, "package.json")) && existsSync(join(dir, "src")))
    .map((dir) => ({ name: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name, dir, src: join(dir, "src") }))

/** All `.ts` files under every package's `src/` (internal ones included). */
export const sourceFiles = (base = root) => packages(base).flatMap(({ src }) => walk(src))

/** The public modules: `src/*.ts` (what the `exports` map publishes; `internal/` is blocked). */
export const publicModules = (base = root) =>
  packages(base).flatMap(({ src }) =>
    readdirSync(src).filter((name) => /\.ts$/.test(name) && !/\.d\.ts$/.test(name)).map((name) => join(src, name))
  )

/** Parses a file. */
export const parse = (file) => ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)

/**
 * The module specifiers a file imports or re-exports, with whether the whole statement is
 * type-only (erased at run time).
 */
export const importsOf = (source) => {
  const out = []
  for (const statement of source.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      const typeOnly = ts.isImportDeclaration(statement)
        ? statement.importClause?.isTypeOnly === true ||
          (statement.importClause !== undefined && statement.importClause.name === undefined &&
            statement.importClause.namedBindings !== undefined && ts.isNamedImports(statement.importClause.namedBindings) &&
            statement.importClause.namedBindings.elements.length > 0 &&
            statement.importClause.namedBindings.elements.every((element) => element.isTypeOnly))
        : statement.isTypeOnly
      out.push({ specifier: statement.moduleSpecifier.text, typeOnly })
    }
  }
  return out
}

/** Resolves a specifier from `file` to a source file of the workspace, or `undefined` (external). */
export const resolveImport = (file, specifier, base = root) => {
  const candidates = (path) => [path.replace(/\.js$/, ".ts"), `${path}.ts`, join(path, "index.ts")]
  if (specifier.startsWith(".")) {
    return candidates(resolve(dirname(file), specifier)).find((path) => existsSync(path) && statSync(path).isFile())
  }
  const match = /^@steward\/([^/]+)(?:\/(.+))?$/.exec(specifier)
  if (match === null) return undefined
  const pkg = packages(base).find(({ name }) => name === `@steward/${match[1]}`)
  if (pkg === undefined) return undefined
  return candidates(join(pkg.src, match[2] ?? "index")).find((path) => existsSync(path) && statSync(path).isFile())
}

/** A path relative to the repository root, for messages. */
export const show = (path, base = root) => relative(base, path)
