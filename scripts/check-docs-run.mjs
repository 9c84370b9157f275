#!/usr/bin/env node
// `node scripts/check-docs-run.mjs [FILE.md…]`: runs every shell block the docs mark runnable and
// fails on the first one that exits non-zero — so a documented command cannot drift from the CLI.
//
// A block is runnable when its fence reads ```sh runnable (or ```bash runnable); other blocks are
// illustrations and are never run. Without arguments it reads README.md, docs/getting-started.md
// and docs/guides/*.md.
//
// Each block runs as one `bash -euo pipefail` script in a fresh scratch folder under
// `.cache/docs-check/` — inside the checkout, so `pnpm steward …` works there as the README says,
// and relative outputs (`--html reflex-status.html`, `./.steward`) land in the scratch folder, not
// in the tree. The scratch folder links the checkout's `examples`, `packages` and `docs`, so the
// paths the docs name resolve as they do from the repository root. `pnpm` is the pinned launcher
// (`node scripts/pnpm.mjs`), as the README says it is interchangeable with an installed pnpm.
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const fence = /^(`{3,})(sh|bash)\s+runnable\s*$/
const linked = ["examples", "packages", "docs"]
const blockTimeoutMs = 600_000

/** The runnable blocks of one Markdown file, with the line each starts on. */
export const runnableBlocks = (text) => {
  const blocks = []
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const open = fence.exec(lines[i])
    if (open === null) continue
    const body = []
    let j = i + 1
    while (j < lines.length && !lines[j].startsWith(open[1])) body.push(lines[j++])
    if (j === lines.length) throw new Error(`line ${i + 1}: a runnable block is never closed`)
    blocks.push({ line: i + 1, script: body.join("\n") })
    i = j
  }
  return blocks
}

const defaultFiles = () => {
  const guides = join(root, "docs", "guides")
  return [
    join(root, "README.md"),
    join(root, "docs", "getting-started.md"),
    ...readdirSync(guides).filter((name) => name.endsWith(".md")).sort().map((name) => join(guides, name))
  ]
}

/** A scratch folder inside the checkout, with the launcher shims and the checkout's folders linked. */
const scratchFolder = () => {
  const base = join(root, ".cache", "docs-check")
  mkdirSync(base, { recursive: true })
  const folder = mkdtempSync(join(base, "run-"))
  for (const name of linked) symlinkSync(join(root, name), join(folder, name))
  const bin = join(folder, ".bin")
  mkdirSync(bin)
  const pnpm = join(bin, "pnpm")
  // The shim takes its own folder off PATH first: the launcher looks for an installed pnpm there.
  writeFileSync(pnpm, `#!/bin/sh\nPATH="\${PATH#${bin}:}" exec node ${JSON.stringify(join(root, "scripts", "pnpm.mjs"))} "$@"\n`)
  chmodSync(pnpm, 0o755)
  return { folder, bin }
}

/** The caller's environment, without the Steward settings that would point a block elsewhere. */
const blockEnv = (bin) => {
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` }
  delete env.STEWARD_STATE_DIR
  delete env.STEWARD_CWD
  return env
}

/** Runs one block; returns undefined when it exits 0, else what went wrong. */
const runBlock = (block) => {
  const { bin, folder } = scratchFolder()
  try {
    const result = spawnSync("bash", ["-euo", "pipefail", "-c", block.script], {
      cwd: folder,
      encoding: "utf8",
      timeout: blockTimeoutMs,
      maxBuffer: 64 * 1024 * 1024,
      env: blockEnv(bin)
    })
    if (result.error !== undefined) return `could not run (${result.error.message})`
    if (result.status === 0) return undefined
    const output = `${result.stdout}${result.stderr}`.trimEnd().split("\n").slice(-20).join("\n")
    return `exited ${result.status ?? result.signal}\n${output}`
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

const main = () => {
  const files = process.argv.length > 2 ? process.argv.slice(2).map((file) => resolve(file)) : defaultFiles()
  let blocks = 0
  const failures = []
  for (const file of files) {
    if (!existsSync(file)) {
      process.stderr.write(`check-docs-run: ${file}: no such file\n`)
      process.exit(2)
    }
    const name = relative(root, file) || file
    let found
    try {
      found = runnableBlocks(readFileSync(file, "utf8"))
    } catch (error) {
      process.stderr.write(`check-docs-run: ${name}: ${error.message}\n`)
      process.exit(2)
    }
    for (const block of found) {
      blocks++
      const failure = runBlock(block)
      process.stdout.write(`${failure === undefined ? "ok  " : "FAIL"} ${name}:${block.line}\n`)
      if (failure !== undefined) failures.push(`${name}:${block.line}: ${failure}`)
    }
  }
  if (failures.length > 0) {
    process.stderr.write(`\ncheck-docs-run: ${failures.length} of ${blocks} runnable blocks failed\n\n${failures.join("\n\n")}\n`)
    process.exit(1)
  }
  process.stdout.write(`check-docs-run: ${blocks} runnable blocks in ${files.length} files ran and exited 0\n`)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
