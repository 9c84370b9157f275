#!/usr/bin/env node
// CI habit: dependencies say what is used (issue 18 item 5). Every version in a workspace
// package.json comes from the catalog in pnpm-workspace.yaml (or is a workspace link), and every
// dependency or peer of a publishable package is named by its source — a peer nothing imports
// only makes installers resolve and warn about it. Exit 1 naming each problem.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { pathToFileURL } from "node:url"
import { root } from "./lib/sources.mjs"

const SECTIONS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]

const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : /\.(ts|mts|cts|js|mjs|cjs)$/.test(name) ? [path] : []
  })

const workspacePackages = (base) =>
  ["packages", "examples"].flatMap((group) =>
    existsSync(join(base, group))
      ? readdirSync(join(base, group))
        .map((dir) => join(base, group, dir))
        .filter((dir) => existsSync(join(dir, "package.json")))
      : []
  )

/** Whether any source text names `name` as a module (`"name"` or `"name/…"`, static, dynamic or resolved). */
const named = (texts, name) => {
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
  const pattern = new RegExp(`["'\`]${escaped}(/[^"'\`]*)?["'\`]`)
  return texts.some((text) => pattern.test(text))
}

/** Every problem in the workspace at `base`, as printable lines. */
export const problemsOf = (base = root) => {
  const problems = []
  const byName = new Map(
    workspacePackages(base).map((dir) => [JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name, dir])
  )
  for (const dir of workspacePackages(base)) {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
    const where = relative(base, join(dir, "package.json"))
    for (const section of SECTIONS) {
      for (const [name, version] of Object.entries(manifest[section] ?? {})) {
        if (!version.startsWith("catalog:") && !version.startsWith("workspace:")) {
          problems.push(`${where}: ${section}.${name} is "${version}", not from the catalog (pnpm-workspace.yaml)`)
        }
      }
    }
    if (manifest.private === true || !existsSync(join(dir, "src"))) continue
    // a bundling package (the CLI) ships what the workspace libraries it inlines import, and what
    // its other dependencies need as peers
    const inlined = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })
      .filter(([, version]) => version.startsWith("workspace:"))
      .map(([name]) => byName.get(name))
      .filter((other) => other !== undefined && existsSync(join(other, "src")))
    const texts = [dir, ...inlined].flatMap((d) => walk(join(d, "src"))).map((file) => readFileSync(file, "utf8"))
    const peersOfDependencies = new Set(
      Object.keys(manifest.dependencies ?? {}).flatMap((name) => {
        const installed = join(dir, "node_modules", name, "package.json")
        return existsSync(installed) ? Object.keys(JSON.parse(readFileSync(installed, "utf8")).peerDependencies ?? {}) : []
      })
    )
    for (const section of ["dependencies", "peerDependencies"]) {
      for (const name of Object.keys(manifest[section] ?? {})) {
        if (!named(texts, name) && !(section === "dependencies" && peersOfDependencies.has(name))) {
          problems.push(`${where}: ${section}.${name} is declared but src/ never imports it`)
        }
      }
    }
  }
  return problems
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const problems = problemsOf()
  if (problems.length > 0) {
    for (const problem of problems) console.error(`check-deps: ${problem}`)
    process.exit(1)
  }
  console.log(`check-deps: every version comes from the catalog, and every declared dependency is imported`)
}
