/**
 * The workspace around one dispatched session (issue 39 item 3, ADR 0019): a snapshot taken before
 * the session (every file's bytes stored by digest outside the project, every symbolic link's
 * target, every directory), the diff against it afterwards, and, for any outcome but `ok`, that
 * diff captured into `audit/quarantine/<session>/` (the changed files' new bytes and a manifest)
 * and the workspace restored to the snapshot — so a session that did not end `ok` is applied to
 * nothing. `.git`, the audit directory and Steward's state directory are not the session's
 * workspace: the audit directory changes only through the verbs, and a commit the session made is
 * reported through the envelope's HEAD after.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { cannotRun } from "../../CliError.js"

/**
 * One entry of the workspace.
 *
 * @since 0.1.0
 * @category models
 */
export type Entry =
  | { readonly kind: "file"; readonly sha256: string; readonly mode: number }
  | { readonly kind: "link"; readonly target: string }
  | { readonly kind: "dir" }

/**
 * The workspace at one moment: entries by path relative to the root (`/`-separated).
 *
 * @since 0.1.0
 * @category models
 */
export interface Snapshot {
  readonly root: string
  readonly excluded: ReadonlyArray<string>
  readonly blobs: string
  readonly entries: ReadonlyMap<string, Entry>
}

/**
 * One changed path.
 *
 * @since 0.1.0
 * @category models
 */
export interface Change {
  readonly path: string
  readonly change: "added" | "modified" | "deleted"
  readonly before: Entry | null
  readonly after: Entry | null
}

const io = (what: string) => (e: unknown) => cannotRun("io", `${what}: ${(e as Error).message}`)

const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** Walk the tree below `root`, skipping the excluded relative paths; `onFile` sees each file's bytes. */
const walk = (root: string, excluded: ReadonlyArray<string>, onFile?: (sha: string, bytes: Buffer) => void) => {
  const entries = new Map<string, Entry>()
  const visit = (rel: string) => {
    for (const name of fs.readdirSync(nodePath.join(root, rel))) {
      const child = rel === "" ? name : `${rel}/${name}`
      if (excluded.includes(child)) continue
      const full = nodePath.join(root, child)
      const info = fs.lstatSync(full)
      if (info.isSymbolicLink()) {
        entries.set(child, { kind: "link", target: fs.readlinkSync(full) })
      } else if (info.isDirectory()) {
        entries.set(child, { kind: "dir" })
        visit(child)
      } else if (info.isFile()) {
        const bytes = fs.readFileSync(full)
        const sha = digest(bytes)
        onFile?.(sha, bytes)
        entries.set(child, { kind: "file", sha256: sha, mode: info.mode & 0o7777 })
      }
      // sockets, FIFOs and devices are not content a session can hand over
    }
  }
  visit("")
  return entries
}

/**
 * Take the snapshot of `root` before a session; file bytes are stored by digest in `blobs`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const take = (root: string, excluded: ReadonlyArray<string>, blobs: string) =>
  Effect.try({
    try: (): Snapshot => {
      fs.mkdirSync(blobs, { recursive: true })
      const entries = walk(root, excluded, (sha, bytes) => {
        const file = nodePath.join(blobs, sha)
        if (!fs.existsSync(file)) fs.writeFileSync(file, bytes)
      })
      return { root, excluded, blobs, entries }
    },
    catch: io(`cannot snapshot ${root}`)
  })

const same = (a: Entry, b: Entry) =>
  a.kind === b.kind &&
  (a.kind === "file"
    ? a.sha256 === (b as typeof a).sha256 && a.mode === (b as typeof a).mode
    : a.kind === "link"
    ? a.target === (b as typeof a).target
    : true)

/**
 * What changed since the snapshot, in path order.
 *
 * @since 0.1.0
 * @category diff
 */
export const diff = (snapshot: Snapshot) =>
  Effect.try({
    try: (): ReadonlyArray<Change> => {
      const now = walk(snapshot.root, snapshot.excluded)
      const changes: Array<Change> = []
      for (const [path, after] of now) {
        const before = snapshot.entries.get(path)
        if (before === undefined) changes.push({ path, change: "added", before: null, after })
        else if (!same(before, after)) changes.push({ path, change: "modified", before, after })
      }
      for (const [path, before] of snapshot.entries) {
        if (!now.has(path)) changes.push({ path, change: "deleted", before, after: null })
      }
      return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    },
    catch: io(`cannot compare ${snapshot.root} with its snapshot`)
  })

/**
 * Capture the changes into `dir` (the quarantine bundle): each added or modified file's new bytes
 * under `files/`, and `manifest.json` naming every change with its before and after entries.
 *
 * @since 0.1.0
 * @category quarantine
 */
export const quarantine = (
  snapshot: Snapshot,
  changes: ReadonlyArray<Change>,
  dir: string,
  about: Readonly<Record<string, unknown>>
) =>
  Effect.try({
    try: () => {
      fs.mkdirSync(nodePath.join(dir, "files"), { recursive: true })
      for (const c of changes) {
        if (c.after?.kind !== "file") continue
        const to = nodePath.join(dir, "files", c.path)
        fs.mkdirSync(nodePath.dirname(to), { recursive: true })
        fs.copyFileSync(nodePath.join(snapshot.root, c.path), to)
      }
      const manifest = { ...about, changes }
      fs.writeFileSync(nodePath.join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`)
    },
    catch: io(`cannot write the quarantine bundle ${dir}`)
  })

/**
 * Put the workspace back as the snapshot had it: added paths removed (deepest first), modified
 * and deleted ones rewritten from the stored bytes (parents first).
 *
 * @since 0.1.0
 * @category quarantine
 */
export const restore = (snapshot: Snapshot, changes: ReadonlyArray<Change>) =>
  Effect.try({
    try: () => {
      const root = snapshot.root
      for (const c of [...changes].reverse()) {
        if (c.after !== null && c.change !== "modified") {
          fs.rmSync(nodePath.join(root, c.path), { force: true, recursive: true })
        }
        if (c.change === "modified" && c.before?.kind !== c.after?.kind) {
          fs.rmSync(nodePath.join(root, c.path), { force: true, recursive: true })
        }
      }
      for (const c of changes) {
        const before = c.before
        if (before === null) {
          continue
        }
        const full = nodePath.join(root, c.path)
        if (before.kind === "dir") {
          fs.mkdirSync(full, { recursive: true })
        } else if (before.kind === "link") {
          fs.rmSync(full, { force: true })
          fs.symlinkSync(before.target, full)
        } else {
          fs.mkdirSync(nodePath.dirname(full), { recursive: true })
          // a modified file may be a symlink now pointing outside: replace the entry, never write through it
          fs.rmSync(full, { force: true })
          fs.writeFileSync(full, fs.readFileSync(nodePath.join(snapshot.blobs, before.sha256)), { mode: before.mode })
          fs.chmodSync(full, before.mode)
        }
      }
    },
    catch: io(`cannot restore ${snapshot.root} from its snapshot`)
  })
