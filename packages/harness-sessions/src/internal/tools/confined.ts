/**
 * Opening a workspace file without following any link (issue 31 item 4, ADR 0564). Checking a
 * path and then opening it is a race: a directory swapped for a symbolic link between the check
 * and the open moves the write outside the workspace. Instead the directory that holds the file is
 * *pinned*: the workspace root is opened, and each component below it is opened from the one
 * before with `O_NOFOLLOW | O_DIRECTORY` — `openat` walking, done through `/proc/self/fd/N/NAME`
 * because Node has no `openat` (and `@effect/platform`'s `FileSystem` has no `O_NOFOLLOW`). The
 * file itself is then opened as `/proc/self/fd/DIR/NAME` with `O_NOFOLLOW` (see `boundedFile`), so
 * no component of the path can be a link at the moment it is used. Missing directories are
 * created the same way (`mkdir` never follows a link). Where `/proc/self/fd` does not exist (not
 * Linux) the file's directory is opened by its real path and checked to be inside the workspace.
 *
 * @internal
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"

/** The file's directory held open; `file` names the file inside it, whatever happens to its path. */
export interface Pinned {
  readonly file: string
  readonly release: () => void
}

const PROC = "/proc/self/fd"
const procFd = fs.existsSync(PROC)

const DIR_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW

const describe = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code
  return code === "ELOOP" || code === "ENOTDIR"
    ? "a component of it is a symbolic link or not a directory"
    : error instanceof Error
    ? error.message
    : String(error)
}

/**
 * Pin the directory holding `relative` (a workspace-relative path with `/` separators) under the
 * workspace `root` (its real path); `create`: make missing directories. A refusal is a sentence
 * naming `relative`.
 */
export const pin = (root: string, relative: string, create: boolean): Pinned | { readonly refused: string } => {
  const parts = relative.split("/").filter((p) => p !== "" && p !== ".")
  const name = parts.pop()
  if (name === undefined || parts.includes("..") || name === "..") {
    return { refused: `${relative} is not a file path inside the workspace` }
  }
  if (!procFd) return pinByRealPath(root, parts, name, relative, create)
  let fd: number
  try {
    fd = fs.openSync(root, DIR_FLAGS)
  } catch (error) {
    return { refused: `the workspace ${root} cannot be opened (${describe(error)})` }
  }
  try {
    for (const part of parts) {
      const next = `${PROC}/${fd}/${part}`
      if (create) {
        try {
          fs.mkdirSync(next)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
        }
      }
      const child = fs.openSync(next, DIR_FLAGS)
      fs.closeSync(fd)
      fd = child
    }
  } catch (error) {
    fs.closeSync(fd)
    const code = (error as NodeJS.ErrnoException).code
    return {
      refused: code === "ENOENT"
        ? `${relative} does not exist; check the path (list it with shell)`
        : `${relative} cannot be opened inside the workspace: ${describe(error)}; use a path inside it`
    }
  }
  const held = fd
  return { file: `${PROC}/${held}/${name}`, release: () => fs.closeSync(held) }
}

// Without /proc/self/fd: the directory's real path must lie inside the workspace (a check, then
// the open: the race stays open there, which ADR 0564 states).
const pinByRealPath = (root: string, parts: ReadonlyArray<string>, name: string, relative: string, create: boolean) => {
  const dir = nodePath.join(root, ...parts)
  try {
    if (create) fs.mkdirSync(dir, { recursive: true })
    const real = fs.realpathSync(dir)
    const rel = nodePath.relative(root, real)
    if (rel.startsWith("..") || nodePath.isAbsolute(rel)) {
      return { refused: `${relative} leads outside the workspace (through a symbolic link); use a path inside it` }
    }
    return { file: nodePath.join(real, name), release: () => {} }
  } catch (error) {
    return { refused: `${relative} cannot be opened inside the workspace: ${describe(error)}` }
  }
}
