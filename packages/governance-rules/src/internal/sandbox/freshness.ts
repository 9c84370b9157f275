/**
 * Whether a persistent sandbox's mounts still make the boundary the workspace needs now. Its
 * mounts were planned when it started; since then the host may have
 *
 * - created a secret (`.env.local`) or a protected path the list matches by pattern
 *   (`.git/modules/x/config`): the plan made now names a path the mounts do not cover;
 * - replaced or removed a path a mount sits on (an editor's save is a rename; git rewrites
 *   `.git/config` the same way): Linux detaches a mount whose mountpoint is unlinked from another
 *   namespace, so the sandbox would see — and could write — the new file.
 *
 * A path is covered by a mount on itself or on a directory above it (a masked directory hides
 * everything under it; a read-only one protects it); a secret only by a mask. The check costs the
 * plan (the bounded secret scan) and one `lstat` per mount.
 *
 * @internal
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { Layout } from "./layout.js"

/** The mounts a sandbox was built with and the inode each sits on. @internal */
export interface Mounts {
  readonly entries: ReadonlyMap<string, { readonly inode: string; readonly masked: boolean }>
}

const inodeOf = (p: string): string => {
  const stat = fs.lstatSync(p, { throwIfNoEntry: false, bigint: true })
  return stat === undefined ? "-" : `${stat.dev}:${stat.ino}`
}

/** Record a layout's mounts (after its placeholders exist). @internal */
export const record = (layout: Layout): Mounts => {
  const entries = new Map<string, { inode: string; masked: boolean }>()
  for (const p of layout.protectedPaths) entries.set(p, { inode: inodeOf(p), masked: false })
  for (const p of layout.maskedPaths) entries.set(p, { inode: inodeOf(p), masked: true })
  return { entries }
}

const covered = (mounts: Mounts, target: string, needsMask: boolean): boolean => {
  for (let p = target;; p = path.dirname(p)) {
    const mount = mounts.entries.get(p)
    if (mount !== undefined && (mount.masked || !needsMask)) return true
    if (path.dirname(p) === p) return false
  }
}

/** Whether the mounts still stand and cover what `now` (a plan made now) protects and masks. @internal */
export const holds = (mounts: Mounts, now: Layout): boolean => {
  if (now.scanTruncated) return false
  for (const [p, mount] of mounts.entries) if (inodeOf(p) !== mount.inode) return false
  return now.protectedPaths.every((p) => covered(mounts, p, false)) &&
    now.maskedPaths.every((p) => covered(mounts, p, true))
}
