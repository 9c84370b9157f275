#!/usr/bin/env node
// Runs the pinned pnpm (from package.json "packageManager") on a machine that may have only Node
// and npm: a matching pnpm on PATH is used as is, otherwise npx fetches that exact version.
//
// It also helps node-gyp build better-sqlite3 from source without network access to Node's header
// tarball: when npm_config_nodedir is unset and this Node's own headers are installed next to it
// (<prefix>/include/node/node_api.h), it points node-gyp there. Nothing is hard-coded: a machine
// without local headers keeps node-gyp's default behaviour.
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const { packageManager } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
const version = packageManager.replace(/^pnpm@/, "")
const env = { ...process.env }

if (!env.npm_config_nodedir) {
  const prefix = resolve(dirname(process.execPath), "..")
  if (existsSync(join(prefix, "include", "node", "node_api.h"))) env.npm_config_nodedir = prefix
}

// pnpm runs scripts in the repository root: `steward` gets the caller's folder for relative paths.
if (process.argv[2] === "steward" && !env.STEWARD_CWD) env.STEWARD_CWD = process.cwd()

const onPath = spawnSync("pnpm", ["--version"], { encoding: "utf8", env, shell: process.platform === "win32" })
const args = process.argv.slice(2)
const [command, commandArgs] = onPath.status === 0 && onPath.stdout.trim() === version
  ? ["pnpm", args]
  : ["npx", ["--yes", `pnpm@${version}`, ...args]]

const result = spawnSync(command, commandArgs, { stdio: "inherit", env, cwd: root, shell: process.platform === "win32" })
process.exit(result.status ?? 1)
