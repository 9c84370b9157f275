/**
 * The paths a verb reads or writes on a user's behalf (issue 16): inside `audit/`, never a store
 * file, symlinks resolved.
 *
 * @internal
 */
import * as nodePath from "node:path"
import type { FileView } from "../../ProjectFiles.js"
import * as Files from "./files.js"

const STORE_FILES = ["state.sqlite", "state.sqlite-wal", "state.sqlite-shm", "state.sqlite-journal", ".lock"]

/** Why `rel` is not a path the store may use for `what`, or `undefined` (`Project.userPathIssue`). */
export const userPathIssue = (view: FileView, audit: string, rel: string, what: string): string | undefined => {
  const full = nodePath.resolve(audit, rel)
  if (!full.startsWith(audit + nodePath.sep) || nodePath.isAbsolute(rel) || rel.split(/[\\/]/).includes("..")) {
    return `${what} '${rel}' is not a relative path inside ${audit}`
  }
  const owned = (f: string, root: string) => STORE_FILES.includes(nodePath.relative(root, f))
  if (owned(full, audit)) {
    return `${what} '${rel}' names ${full}, a file the audit store owns (its database, WAL, journal or lock); a store file is never a user path`
  }
  const root = Files.realish(view, audit)
  const real = Files.realish(view, full)
  if (!real.startsWith(root + nodePath.sep)) {
    return `${what} '${rel}' resolves through a symlink to ${real}, outside ${audit}; a path the store reads or writes stays inside it`
  }
  if (owned(real, root)) {
    return `${what} '${rel}' resolves through a symlink to ${real}, a file the audit store owns; a store file is never a user path`
  }
  return undefined
}
