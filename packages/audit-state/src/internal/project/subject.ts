/**
 * The audited subject: its git HEAD and the working-tree resolver `file-finding` checks locators
 * against — both reading bounded (issue 16).
 *
 * @internal
 */
import { createHash } from "node:crypto"
import * as nodePath from "node:path"
import type { FileView } from "../../ProjectFiles.js"
import type * as Verbs from "../../Verbs.js"
import * as Files from "./files.js"

/**
 * The subject's git HEAD (what xcheck records as `head_before`), read from `.git` without
 * running git: `HEAD`, then the loose ref or `packed-refs`. `undefined` when the project is not
 * a git work tree or HEAD cannot be read.
 */
export const subjectHead = (project: string, view: FileView): string | undefined => {
  // git's own files, bounded (issue 16): a FIFO or an oversized file reads as no HEAD
  const read = (file: string, max = 1024 * 1024) => {
    const r = Files.readText(view, file, max)
    return r._tag === "text" ? r.text : undefined
  }
  let gitDir = nodePath.join(project, ".git")
  const kind = view.stat(gitDir)
  if (kind === undefined) return undefined
  if (kind === "file") {
    const m = /^gitdir:\s*(.+)$/m.exec(read(gitDir) ?? "")
    if (!m) return undefined
    gitDir = nodePath.resolve(project, m[1]!.trim())
  }
  const head = read(nodePath.join(gitDir, "HEAD"))?.trim()
  if (head === undefined) return undefined
  const sha = (s: string | undefined) => s !== undefined && /^[0-9a-f]{40}$/.test(s) ? s : undefined
  const ref = /^ref:\s*(\S+)$/.exec(head)?.[1]
  if (ref === undefined) return sha(head)
  const loose = read(nodePath.join(gitDir, ref))
  if (loose !== undefined) return sha(loose.trim())
  for (const line of (read(nodePath.join(gitDir, "packed-refs"), Files.MAX_FILE_BYTES) ?? "").split("\n")) {
    const [id, name] = line.trim().split(" ")
    if (name === ref) return sha(id)
  }
  return undefined
}

/**
 * A subject resolver reading the audited material from the project's working tree: the path
 * must exist, the line range must be inside the file, and the hash must be the sha-256 of
 * its bytes.
 */
export const workingTreeSubject = (project: string, view: FileView): Verbs.SubjectResolver => ({
  check: (rel, lines, sourceHash) => {
    const full = nodePath.resolve(project, rel)
    if (!full.startsWith(nodePath.resolve(project) + nodePath.sep)) {
      return `--locator '${rel}' is not a path inside the subject`
    }
    // bounded (issue 16): a FIFO, a device or an oversized file is refused, not read
    const read = view.read(full, Files.MAX_FILE_BYTES)
    if (read._tag === "missing") {
      return `--locator '${rel}' does not exist in the subject commit (the working tree of ${project})`
    }
    if (read._tag === "refused") return `--locator ${read.message}`
    const bytes = read.bytes
    if (lines !== undefined) {
      let newlines = 0
      for (let k = 0; k < bytes.length; k++) if (bytes[k] === 10) newlines++
      const count = newlines + 1 - (bytes.at(-1) === 10 ? 1 : 0)
      if (lines[1] > count || lines[0] < 1 || lines[0] > lines[1]) {
        return `--locator ${rel}:${lines[0]}${lines[1] !== lines[0] ? `-${lines[1]}` : ""} names line ${
          lines[1]
        }, but ${rel} has ${count} line(s)`
      }
    }
    const actual = createHash("sha256").update(bytes).digest("hex")
    if (actual !== sourceHash) return `--source-hash ${sourceHash} is not the sha-256 of ${rel} (${actual})`
    return undefined
  }
})
