/**
 * Path normalization: absolute real paths with final *and intermediate* symlinks resolved,
 * `..` applied after resolution (as the kernel does), and a display form relative to the
 * workspace (`.` for the root, `~` for home, absolute when outside).
 *
 * @internal
 */
import * as path from "node:path"
import * as Files from "../Files.js"

/** @internal */
export interface PathContext {
  /** Real path of the workspace root. */
  readonly workspace: string
  /** Real path of the home directory. */
  readonly home: string
  /** Directory relative paths resolve against (the workspace unless stated). */
  readonly cwd: string
  /** Where symlinks and entries are looked up (the real filesystem unless stated). */
  readonly files?: Files.FileView
}

const MAX_LINKS = 40

const walk = (
  files: Files.FileView,
  absolute: string,
  start: string,
  parts: ReadonlyArray<string>,
  budget: { n: number }
): string => {
  let current = start
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (part === "" || part === ".") continue
    if (part === "..") {
      current = path.dirname(current)
      continue
    }
    const next = current === "/" ? `/${part}` : `${current}/${part}`
    const stat = files.lstat(next)
    if (stat === undefined) return path.resolve(next, ...parts.slice(i + 1))
    if (stat.kind === "symlink") {
      budget.n -= 1
      if (budget.n < 0) return path.resolve(next, ...parts.slice(i + 1))
      const target = files.readlink(next)
      if (target === undefined) return path.resolve(next, ...parts.slice(i + 1))
      const targetAbsolute = path.resolve(current, target)
      current = walk(files, targetAbsolute, "/", targetAbsolute.split("/"), budget)
    } else {
      current = next
    }
  }
  return current === "" ? absolute : current
}

/**
 * Resolve `p` (absolute, relative to `cwd`, or `~`-prefixed) to an absolute real path. Missing
 * tails are appended lexically after the longest existing prefix is resolved.
 *
 * @internal
 */
export const realPath = (p: string, context: PathContext): string => {
  let input = p
  if (input === "~" || input.startsWith("~/")) input = context.home + input.slice(1)
  const absolute = input.startsWith("/") ? input : `${context.cwd}/${input}`
  const parts = absolute.split("/")
  const budget = { n: MAX_LINKS }
  // Fast path: lexically inside the (already real) workspace without `..`: walk only the tail.
  const files = context.files ?? Files.node
  const ws = context.workspace
  if (absolute.startsWith(`${ws}/`) && !parts.includes("..")) {
    return walk(files, absolute, ws, absolute.slice(ws.length + 1).split("/"), budget)
  }
  return walk(files, absolute, "/", parts, budget)
}

/**
 * Display form used as the resource of `read`/`write` checks: `.` or a workspace-relative path
 * inside the workspace; `~` for home itself; otherwise the absolute path.
 *
 * @internal
 */
export const display = (real: string, context: PathContext): string => {
  if (real === context.workspace) return "."
  if (real.startsWith(`${context.workspace}/`)) return real.slice(context.workspace.length + 1)
  if (real === context.home) return "~"
  return real
}

/** Whether a display form is inside the workspace. @internal */
export const isInside = (shown: string): boolean => !shown.startsWith("/") && shown !== "~"

/** Pseudo-devices that are not files for policy purposes. @internal */
export const PSEUDO_DEVICES = new Set([
  "/dev/null",
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
  "/dev/stdin",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/tty",
  "/proc/self/fd/1",
  "/proc/self/fd/2"
])

/** @internal */
export const isPseudoDevice = (p: string): boolean =>
  PSEUDO_DEVICES.has(p) || p.startsWith("/dev/fd/") || p.startsWith("/dev/pts/")

/** Real path of a directory (symlinks resolved; lexical where it does not exist). @internal */
export const realDirectory = (dir: string, files: Files.FileView = Files.node): string => {
  const absolute = path.resolve(dir)
  return walk(files, absolute, "/", absolute.split("/"), { n: MAX_LINKS })
}
