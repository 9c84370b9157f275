#!/usr/bin/env node
// CI habit: every public export carries JSDoc with `@since` (CONTRIBUTING.md, "Code"). Public means
// the top-level exports of a package's `src/*.ts` (what its `exports` map publishes; `internal/` is
// blocked). An export tagged `@internal` instead is shared between the package's own modules and
// is not API. An overloaded or merged name needs the tag on one of its declarations. Exit 1
// listing every export without it, as `file:line name`.
import ts from "typescript"
import { parse, publicModules, show } from "./lib/sources.mjs"

// `@internal` marks an export shared between a package's own modules and not part of its API
const hasSince = (node) =>
  (node.jsDoc ?? []).some((doc) =>
    (doc.tags ?? []).some((tag) => tag.tagName.text === "since" || tag.tagName.text === "internal")
  )
const isExported = (node) => (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export) !== 0

/** The names a top-level statement exports (empty when it exports nothing by name). */
const exportedNames = (statement) => {
  if (ts.isExportDeclaration(statement)) {
    const clause = statement.exportClause
    if (clause === undefined) return [] // `export * from`: the names belong to the module it re-exports
    return ts.isNamespaceExport(clause) ? [clause.name.text] : clause.elements.map((element) => element.name.text)
  }
  if (ts.isExportAssignment(statement)) return ["default"]
  if (ts.isVariableStatement(statement)) {
    return isExported(statement)
      ? statement.declarationList.declarations.flatMap((declaration) =>
        ts.isIdentifier(declaration.name) ? [declaration.name.text] : []
      )
      : []
  }
  if (
    (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement) || ts.isModuleDeclaration(statement)) &&
    isExported(statement) && statement.name !== undefined
  ) {
    return [statement.name.text]
  }
  return []
}

/** Every public export of `file` without `@since`: `{ file, line, name }`. */
export const missingSince = (file) => {
  const source = parse(file)
  const names = new Map() // name → { line, documented }
  for (const statement of source.statements) {
    for (const name of exportedNames(statement)) {
      const line = source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1
      const seen = names.get(name)
      names.set(name, { line: seen?.line ?? line, documented: (seen?.documented ?? false) || hasSince(statement) })
    }
  }
  return [...names].filter(([, { documented }]) => !documented).map(([name, { line }]) => ({ file, line, name }))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = publicModules()
  const missing = files.flatMap(missingSince)
  for (const { file, line, name } of missing) process.stderr.write(`${show(file)}:${line} ${name}: no @since\n`)
  if (missing.length > 0) {
    process.stderr.write(`check-since: ${missing.length} public exports without @since\n`)
    process.exit(1)
  }
  process.stdout.write(`check-since: every public export of ${files.length} modules carries @since\n`)
}
