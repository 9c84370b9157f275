#!/usr/bin/env node
// CI habit: the docs draw only what exists. In the repository's own documents (README.md,
// CONTRIBUTING.md, AGENTS.md, docs/**/*.md) every `@steward/<name>` must be a workspace package
// and every relative link must point at a file or folder that is there. Exit 1 naming each
// `file:line` that does not.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { root, show } from "./lib/sources.mjs"

/** The names of the workspace packages under `packages/` and `examples/`. */
export const workspaceNames = (base = root) =>
  new Set(
    ["packages", "examples"].flatMap((group) => {
      const dir = join(base, group)
      if (!existsSync(dir)) return []
      return readdirSync(dir)
        .filter((name) => existsSync(join(dir, name, "package.json")))
        .map((name) => JSON.parse(readFileSync(join(dir, name, "package.json"), "utf8")).name)
    })
  )

const markdownUnder = (dir) =>
  existsSync(dir)
    ? readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? markdownUnder(path) : name.endsWith(".md") ? [path] : []
    })
    : []

/** The documents checked. */
export const documents = (base = root) => [
  ...["README.md", "CONTRIBUTING.md", "AGENTS.md"].map((name) => join(base, name)).filter((path) => existsSync(path)),
  ...markdownUnder(join(base, "docs"))
]

/** Problems in one document: `{ file, line, message }`. */
export const problemsOf = (file, names) => {
  const problems = []
  const lines = readFileSync(file, "utf8").split("\n")
  let fenced = false
  for (const [i, line] of lines.entries()) {
    if (/^\s*```/.test(line)) fenced = !fenced
    for (const match of line.matchAll(/@steward\/([a-z0-9-]+)/g)) {
      if (!names.has(`@steward/${match[1]}`)) {
        problems.push({ file, line: i + 1, message: `@steward/${match[1]} is not a workspace package` })
      }
    }
    if (fenced) continue
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1].split("#")[0]
      if (target === "" || /^[a-z]+:/i.test(target)) continue
      if (!existsSync(resolve(dirname(file), decodeURI(target)))) {
        problems.push({ file, line: i + 1, message: `link to ${match[1]}: no such file` })
      }
    }
  }
  return problems
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = workspaceNames()
  const files = documents()
  const problems = files.flatMap((file) => problemsOf(file, names))
  for (const { file, line, message } of problems) process.stderr.write(`${show(file)}:${line}: ${message}\n`)
  if (problems.length > 0) process.exit(1)
  process.stdout.write(`check-docs: ${files.length} documents name only existing packages and files\n`)
}
