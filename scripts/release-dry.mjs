#!/usr/bin/env node
// `pnpm release:dry`: proves that what `changeset publish` would publish works for a user.
//
// 1. Copies the repository's files (git's view of the work tree, no node_modules, no dist) to a
//    temporary directory and runs `changeset version` there, so the real tree is never touched.
// 2. Installs that copy from the shared pnpm store, builds it (turbo + tsup) and packs every
//    package that is not private: the tarballs carry the versions and changelogs a release gets.
// 3. Creates an empty Node project outside the workspace, installs the tarballs from disk and
//    their dependencies from the npm registry with plain npm, and fails on any peer-dependency
//    warning.
// 4. Type-checks a file that imports every package's barrel and every public module with
//    `skipLibCheck: false` (the shipped declarations themselves are checked), imports every
//    package at run time, and runs the packed CLI (`steward doctor`, `steward policy check`).
//
// Options: `--keep` leaves the temporary directories in place (their paths are printed).
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const keep = process.argv.includes("--keep")
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", CI: process.env.CI ?? "" }
// node-gyp (better-sqlite3 from source) finds this Node's headers without a download, as in scripts/pnpm.mjs
if (!env.npm_config_nodedir) {
  const prefix = resolve(dirname(process.execPath), "..")
  if (existsSync(join(prefix, "include", "node", "node_api.h"))) env.npm_config_nodedir = prefix
}

const step = (title) => process.stderr.write(`\n== release:dry: ${title}\n`)
const fail = (message) => {
  process.stderr.write(`release:dry: FAILED: ${message}\n`)
  process.exit(1)
}

/** Runs a command; returns its output, or fails the dry run with the output shown. */
const run = (command, args, cwd, { capture = false } = {}) => {
  const result = spawnSync(command, args, {
    cwd,
    env,
    encoding: "utf8",
    stdio: capture ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
    maxBuffer: 64 * 1024 * 1024
  })
  if (result.status !== 0) {
    if (capture) process.stderr.write(`${result.stdout ?? ""}${result.stderr ?? ""}`)
    fail(`${command} ${args.join(" ")} (in ${cwd}) exited with ${result.status ?? result.signal}`)
  }
  return { stdout: result.stdout ?? "", stderr: result.stderr ?? "" }
}
const pnpm = (args, cwd, options) => run(process.execPath, [join(root, "scripts", "pnpm.mjs"), "-C", cwd, ...args], root, options)

const work = mkdtempSync(join(tmpdir(), "steward-release-"))
const copy = join(work, "repo")
const tarballs = join(work, "tarballs")
const consumer = join(work, "consumer")

// 1. a copy of the tree as git sees it (tracked and untracked-but-not-ignored files)
step(`copy the repository to ${copy}`)
const files = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], root, { capture: true })
  .stdout.split("\0").filter((file) => file !== "" && existsSync(join(root, file)))
for (const file of files) {
  mkdirSync(dirname(join(copy, file)), { recursive: true })
  cpSync(join(root, file), join(copy, file))
}

step("changeset version (in the copy)")
run(process.execPath, [join(root, "node_modules", "@changesets", "cli", "bin.js"), "version"], copy)
const remaining = readdirSync(join(copy, ".changeset")).filter((name) => name.endsWith(".md") && name !== "README.md")
if (remaining.length > 0) fail(`changeset version left ${remaining.join(", ")} unconsumed`)

// 2. install (offline-friendly: the store already holds every locked package), build, pack
step("install and build the versioned copy")
pnpm(["install", "--frozen-lockfile", "--prefer-offline"], copy)
pnpm(["build"], copy)

const packages = readdirSync(join(copy, "packages"))
  .map((dir) => ({ dir: join(copy, "packages", dir), manifest: JSON.parse(readFileSync(join(copy, "packages", dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => manifest.private !== true)
  .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name))
step(`pack ${packages.map(({ manifest }) => `${manifest.name}@${manifest.version}`).join(", ")}`)
mkdirSync(tarballs)
for (const { dir } of packages) pnpm(["pack", "--pack-destination", tarballs], dir, { capture: true })
const tarballOf = (manifest) => join(tarballs, `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`)
for (const { manifest } of packages) if (!existsSync(tarballOf(manifest))) fail(`no tarball for ${manifest.name}`)

// 3. an empty project outside the workspace; internal dependencies resolve to the tarballs too
step(`install the tarballs into ${consumer}`)
mkdirSync(consumer)
const fileSpecs = Object.fromEntries(packages.map(({ manifest }) => [manifest.name, `file:${tarballOf(manifest)}`]))
const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
writeFileSync(
  join(consumer, "package.json"),
  JSON.stringify(
    {
      name: "steward-release-smoke",
      private: true,
      type: "module",
      dependencies: fileSpecs,
      devDependencies: {
        typescript: rootManifest.devDependencies.typescript,
        "@types/node": rootManifest.devDependencies["@types/node"]
      },
      overrides: fileSpecs
    },
    null,
    2
  ) + "\n"
)
const install = run("npm", ["install", "--no-audit", "--no-fund", "--loglevel", "warn"], consumer, { capture: true })
const warnings = `${install.stdout}\n${install.stderr}`.split("\n").filter((line) => /peer/i.test(line))
if (warnings.length > 0) fail(`peer-dependency warnings on install:\n${warnings.join("\n")}`)

// 4. declarations with skipLibCheck: false, every package at run time, the packed CLI
step("type-check the shipped declarations (skipLibCheck: false)")
// what a user can import is the published `exports` (publishConfig replaces the source-first map)
const libraries = packages.filter(({ manifest }) => (manifest.publishConfig?.exports ?? manifest.exports)?.["."] !== undefined)
const modulesOf = (manifest) =>
  readdirSync(join(consumer, "node_modules", manifest.name, "dist"))
    .filter((name) => /^[A-Z][A-Za-z]*\.d\.ts$/.test(name))
    .map((name) => name.slice(0, -".d.ts".length))
// @effect/rpc's declarations name `globalThis.Transferable`, which only the DOM lib declares (Node's
// types keep it in `node:worker_threads`): a package whose declarations reach it (the cluster's) is
// checked with the DOM lib, as its README tells users; every other package without it, so a DOM
// type in our own declarations still fails.
const needsDom = ({ manifest }) =>
  ["@effect/rpc", "@effect/cluster", "@effect/workflow"].some((name) =>
    manifest.dependencies?.[name] !== undefined || manifest.peerDependencies?.[name] !== undefined
  )
const checkDeclarations = (group, file, lib) => {
  const lines = []
  const checks = []
  for (const { manifest } of group) {
    const i = libraries.findIndex((library) => library.manifest.name === manifest.name)
    lines.push(`import * as P${i} from "${manifest.name}"`)
    checks.push(`P${i}`)
    for (const module of modulesOf(manifest)) {
      const name = `M${i}_${module}`
      lines.push(`import * as ${name} from "${manifest.name}/${module}"`)
      checks.push(name)
    }
  }
  lines.push(`export const loaded: ReadonlyArray<object> = [${checks.join(", ")}]`)
  writeFileSync(join(consumer, `${file}.ts`), lines.join("\n") + "\n")
  writeFileSync(
    join(consumer, `tsconfig.${file}.json`),
    JSON.stringify(
      {
        compilerOptions: {
          strict: true,
          exactOptionalPropertyTypes: true,
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          lib,
          types: ["node"],
          skipLibCheck: false,
          noEmit: true
        },
        files: [`${file}.ts`]
      },
      null,
      2
    ) + "\n"
  )
  run(process.execPath, [join(consumer, "node_modules", "typescript", "bin", "tsc"), "-p", `tsconfig.${file}.json`], consumer)
}
checkDeclarations(libraries.filter((library) => !needsDom(library)), "smoke", ["ES2022"])
const withDom = libraries.filter(needsDom)
if (withDom.length > 0) checkDeclarations(withDom, "smoke-dom", ["ES2022", "DOM"])

step("import every package at run time")
const runtime = libraries.map(({ manifest }) =>
  `const m = await import(${JSON.stringify(manifest.name)}); if (Object.keys(m).length === 0) throw new Error(${
    JSON.stringify(`${manifest.name} exports nothing`)
  })`
).join("\n")
writeFileSync(join(consumer, "smoke.mjs"), `${runtime.split("\n").map((line) => `{ ${line} }`).join("\n")}\n`)
run(process.execPath, ["smoke.mjs"], consumer)

step("run the packed CLI")
const cli = packages.find(({ manifest }) => manifest.bin?.steward !== undefined)
if (cli === undefined) fail("no package ships the steward bin")
const bin = join(consumer, "node_modules", ".bin", "steward")
const stateDir = join(work, "state")
mkdirSync(stateDir)
const doctor = JSON.parse(run(bin, ["doctor", "--json", "--state-dir", stateDir], consumer, { capture: true }).stdout)
if (doctor.ok !== true || doctor.packages?.[cli.manifest.name] !== cli.manifest.version) {
  fail(`steward doctor does not report a healthy ${cli.manifest.name}@${cli.manifest.version}: ${JSON.stringify(doctor)}`)
}
const policy = JSON.parse(
  run(bin, ["policy", "check", "--json", "--state-dir", stateDir, "git status"], consumer, { capture: true }).stdout
)
process.stderr.write(`steward doctor: ok; policy check "git status": ${JSON.stringify(policy).slice(0, 120)}\n`)

if (keep) process.stderr.write(`\nrelease:dry: kept ${work}\n`)
else rmSync(work, { recursive: true, force: true })
process.stdout.write(
  `release:dry: ok — ${packages.length} packages packed, installed without peer warnings, declarations type-check, CLI runs\n`
)
