#!/usr/bin/env node
// CI habit: modules a newcomer can read (issue 18). A public module (`src/*.ts`) stays within
// about 400 lines and a function body within about 150, so one concept per module holds as the
// code grows. A pure data table (a cue list) may be longer: it says so on a line of its own,
// `// check-size: data table`. Exit 1 naming each file or function over its limit.
import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"
import ts from "typescript"
import { publicModules, root, show, sourceFiles } from "./lib/sources.mjs"

export const MODULE_LINES = 400
export const FUNCTION_LINES = 150
const DATA_TABLE = /^\/\/ check-size: data table$/m

const lineOf = (source, position) => source.getLineAndCharacterOfPosition(position).line

/** Functions whose body spans more than `FUNCTION_LINES` lines: `{ file, line, lines }`. */
export const longFunctions = (files) => {
  const out = []
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
    const visit = (node) => {
      if (ts.isFunctionLike(node) && node.body !== undefined) {
        const lines = lineOf(source, node.body.getEnd()) - lineOf(source, node.body.getStart())
        if (lines > FUNCTION_LINES) out.push({ file, line: lineOf(source, node.getStart()) + 1, lines })
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return out
}

/** Public modules over `MODULE_LINES` lines that are not marked as data tables: `{ file, lines }`. */
export const longModules = (files) =>
  files.flatMap((file) => {
    const text = readFileSync(file, "utf8")
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
    return lines > MODULE_LINES && !DATA_TABLE.test(text) ? [{ file, lines }] : []
  })

export const problemsOf = (base = root) => [
  ...longModules(publicModules(base)).map(({ file, lines }) =>
    `${show(file, base)}: ${lines} lines (a public module stays within about ${MODULE_LINES})`
  ),
  ...longFunctions(sourceFiles(base)).map(({ file, line, lines }) =>
    `${show(file, base)}:${line}: a function body of ${lines} lines (at most about ${FUNCTION_LINES})`
  )
]

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const problems = problemsOf()
  if (problems.length > 0) {
    for (const problem of problems) console.error(`check-size: ${problem}`)
    process.exit(1)
  }
  console.log(`check-size: public modules within ${MODULE_LINES} lines, function bodies within ${FUNCTION_LINES}`)
}
