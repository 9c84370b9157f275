/**
 * The project's git state around one dispatched session (issue 39 item 3, ADR 0022): HEAD (the
 * branch it is on, or its detached commit), every branch and tag, and the index's bytes, taken
 * before the session. A session that does not end `ok` and moved any of them has its commits
 * bundled into its quarantine (`commits.bundle`, every new tip against every tip from before, so
 * nothing it committed is lost) and the repository put back: the refs it moved, added or deleted,
 * HEAD (re-attached to the branch it was on) and the index. The working tree is the workspace
 * snapshot's (`workspaceSnapshot.ts`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { cannotRun } from "../../CliError.js"

/**
 * The repository at one moment.
 *
 * @since 0.1.0
 * @category models
 */
export interface GitState {
  readonly root: string
  /** The branch HEAD is on (`refs/heads/…`); `undefined` when detached. */
  readonly branch: string | undefined
  /** HEAD's commit; `undefined` on an unborn branch. */
  readonly head: string | undefined
  /** Every branch and tag: name → object. */
  readonly refs: ReadonlyMap<string, string>
  readonly index: Uint8Array | undefined
  readonly indexFile: string
}

const git = (root: string, args: ReadonlyArray<string>): string =>
  execFileSync("git", ["-c", "core.hooksPath=/dev/null", ...args], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  }).trim()

const attempt = (root: string, args: ReadonlyArray<string>): string | undefined => {
  try {
    return git(root, args)
  } catch {
    return undefined
  }
}

const io = (what: string) => (e: unknown) => cannotRun("io", `${what}: ${(e as Error).message}`)

/**
 * The repository's state at `root`; `undefined` when `root` is not the top of a git work tree.
 *
 * @since 0.1.0
 * @category constructors
 */
export const capture = (root: string) =>
  Effect.try({
    try: (): GitState | undefined => {
      if (!fs.existsSync(nodePath.join(root, ".git"))) return undefined
      const refs = new Map<string, string>()
      const listed = git(root, ["for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags"])
      for (const line of listed.split("\n")) {
        const [name, sha] = line.split(" ")
        if (name !== undefined && sha !== undefined && name !== "") refs.set(name, sha)
      }
      const indexFile = nodePath.resolve(root, git(root, ["rev-parse", "--git-path", "index"]))
      return {
        root,
        branch: attempt(root, ["symbolic-ref", "-q", "HEAD"]),
        head: attempt(root, ["rev-parse", "-q", "--verify", "HEAD^{commit}"]),
        refs,
        index: fs.existsSync(indexFile) ? fs.readFileSync(indexFile) : undefined,
        indexFile
      }
    },
    catch: io(`cannot read the git state of ${root}`)
  })

const sameBytes = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
  a === undefined || b === undefined ? a === b : Buffer.compare(a, b) === 0

/**
 * What the session moved: each ref it changed, added or deleted, and whether HEAD or the index moved.
 *
 * @since 0.1.0
 * @category diff
 */
export interface Moved {
  readonly refs: ReadonlyArray<{ readonly ref: string; readonly before: string | null; readonly after: string | null }>
  readonly head: { readonly before: string | null; readonly after: string | null } | null
  readonly branch: { readonly before: string | null; readonly after: string | null } | null
  readonly index: boolean
}

/**
 * Compare two states; `undefined` when nothing moved.
 *
 * @since 0.1.0
 * @category diff
 */
export const moved = (before: GitState, after: GitState): Moved | undefined => {
  const refs: Array<Moved["refs"][number]> = []
  for (const ref of [...new Set([...before.refs.keys(), ...after.refs.keys()])].sort()) {
    const b = before.refs.get(ref) ?? null
    const a = after.refs.get(ref) ?? null
    if (a !== b) refs.push({ ref, before: b, after: a })
  }
  const head = before.head === after.head ? null : { before: before.head ?? null, after: after.head ?? null }
  const branch = before.branch === after.branch ? null : { before: before.branch ?? null, after: after.branch ?? null }
  const index = !sameBytes(before.index, after.index)
  return refs.length === 0 && head === null && branch === null && !index ? undefined : { refs, head, branch, index }
}

/**
 * Bundle the commits the session made (reachable from the refs it moved or added, or from HEAD,
 * and not from any tip it started with) into `file`. Returns `false` when it made none (a bundle
 * cannot be empty).
 *
 * @since 0.1.0
 * @category quarantine
 */
export const bundle = (before: GitState, m: Moved, file: string) =>
  Effect.try({
    try: (): boolean => {
      const tips = [...m.refs.filter((r) => r.after !== null).map((r) => r.ref), ...(m.head?.after ? ["HEAD"] : [])]
      if (tips.length === 0) return false
      const known = [...new Set([...before.refs.values(), ...(before.head === undefined ? [] : [before.head])])]
      const fresh = git(before.root, ["rev-list", ...tips, "--not", ...known])
      if (fresh === "") return false
      fs.mkdirSync(nodePath.dirname(file), { recursive: true })
      git(before.root, ["bundle", "create", file, ...tips, "--not", ...known])
      return true
    },
    catch: io(`cannot bundle the session's commits into ${file}`)
  })

/**
 * Put the repository back as `before` had it: refs, HEAD and the index.
 *
 * @since 0.1.0
 * @category quarantine
 */
export const restore = (before: GitState, m: Moved) =>
  Effect.try({
    try: () => {
      const root = before.root
      for (const r of m.refs) {
        if (r.before === null) git(root, ["update-ref", "-d", r.ref])
        else git(root, ["update-ref", r.ref, r.before])
      }
      if (before.branch !== undefined) git(root, ["symbolic-ref", "HEAD", before.branch])
      else if (before.head !== undefined) git(root, ["update-ref", "--no-deref", "HEAD", before.head])
      if (before.index === undefined) fs.rmSync(before.indexFile, { force: true })
      else fs.writeFileSync(before.indexFile, before.index)
    },
    catch: io(`cannot restore the git state of ${before.root}`)
  })
