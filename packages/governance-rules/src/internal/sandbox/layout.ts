/**
 * The boundary as mounts: what the sandboxed command sees of the host, computed from a profile
 * and what exists on disk. Pure except for the look-ups it makes through `lstat`/`readdir`, so the
 * argument list is testable without bubblewrap.
 *
 * Order matters in bubblewrap (later mounts cover earlier ones): the host read-only, then private
 * `/dev`, `/proc`, `/tmp` and `/run` (Unix sockets of host daemons live there and a read-only
 * mount does not stop `connect()`), then the workspace (writable unless `read_only`), then the
 * protected paths read-only, then the masks.
 *
 * @internal
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as ProtectedPaths from "../../ProtectedPaths.js"

/** @internal */
export interface LayoutInput {
  readonly workspace: string
  readonly home: string
  readonly writable: boolean
  readonly cwd: string
  /** A read-only empty directory, and a read-only file holding `content`, for masks and placeholders. */
  readonly emptyDir: string
  readonly fileWith: (content: string) => string
  /** The proxy's Unix socket on the host, bound into the sandbox at `PROXY_SOCKET`. */
  readonly proxySocket: string | null
  readonly extraProtected: ReadonlyArray<string>
  readonly scanLimit: number
}

/** A protected path that does not exist: the sandbox holds its place with an empty one. @internal */
export interface Placeholder {
  readonly path: string
  readonly kind: "dir" | "file"
  /** A file placeholder's content (empty unless the list says otherwise). */
  readonly content: string
  /** The path exists: the content is bound over it and nothing is created. */
  readonly over?: boolean
}

/** @internal */
export interface Layout {
  readonly args: ReadonlyArray<string>
  readonly placeholders: ReadonlyArray<Placeholder>
  readonly protectedPaths: ReadonlyArray<string>
  readonly maskedPaths: ReadonlyArray<string>
  /** Whether the secret scan stopped at its limit (secrets past it are not masked). */
  readonly scanTruncated: boolean
}

/** Where the proxy socket appears inside the sandbox. @internal */
export const PROXY_SOCKET = "/run/steward/proxy.sock"

const SYSTEM_SECRETS = ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh/ssh_host_rsa_key"]

const kindOf = (p: string): "dir" | "file" | "link" | undefined => {
  try {
    const stat = fs.lstatSync(p, { throwIfNoEntry: false })
    if (stat === undefined) return undefined
    return stat.isSymbolicLink() ? "link" : stat.isDirectory() ? "dir" : "file"
  } catch {
    return undefined
  }
}

const list = (dir: string): ReadonlyArray<fs.Dirent> => {
  try {
    return fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
}

/** `a/* /b` patterns resolved against what exists; plain paths as they are. */
const expand = (workspace: string, relative: string): ReadonlyArray<string> => {
  const star = relative.indexOf("/*/")
  if (star < 0) return [path.join(workspace, relative)]
  const base = path.join(workspace, relative.slice(0, star))
  const tail = relative.slice(star + 3)
  return list(base).filter((d) => d.isDirectory()).map((d) => path.join(base, d.name, tail))
}

// The git hooks directory a repository's config names (`core.hooksPath`), when it is inside the
// workspace: husky and friends move hooks there, so it is protected like `.git/hooks`.
const hooksPath = (workspace: string): string | null => {
  let text: string
  try {
    text = fs.readFileSync(path.join(workspace, ".git", "config"), "utf8")
  } catch {
    return null
  }
  const match = /^\s*hookspath\s*=\s*(.+?)\s*$/im.exec(text)
  if (match === null) return null
  const target = path.resolve(workspace, match[1]!.replace(/^"|"$/g, ""))
  return target.startsWith(workspace + path.sep) ? target : null
}

// Inside the sandbox git must not see the placeholders as new files (`git add -A` would commit
// an empty `.mcp.json`): a copy of `.git/info/exclude` that also names them is bound over it.
const excludePlaceholders = (workspace: string, missing: Array<Placeholder>, existing: Array<string>) => {
  const files = missing.filter((hole) => hole.kind === "file" && !hole.path.startsWith(path.join(workspace, ".git/")))
  if (files.length === 0) return
  const exclude = path.join(workspace, ".git", "info", "exclude")
  let original = ""
  try {
    original = fs.readFileSync(exclude, "utf8")
  } catch {
    // none yet
  }
  const names = files.map((hole) => "/" + path.relative(workspace, hole.path).split(path.sep).join("/"))
  const content = `${original}${original === "" || original.endsWith("\n") ? "" : "\n"}` +
    `# steward sandbox: placeholders of protected paths (this copy exists only inside the sandbox)\n${
      names.join("\n")
    }\n`
  const index = existing.indexOf(exclude)
  if (index >= 0) existing.splice(index, 1)
  missing.push({ path: exclude, kind: "file", content, ...(kindOf(exclude) === undefined ? {} : { over: true }) })
}

/** Protected paths that exist (bound read-only) and missing ones (held by placeholders). */
const protectedOf = (input: LayoutInput) => {
  const existing: Array<string> = []
  const missing: Array<Placeholder> = []
  const git = kindOf(path.join(input.workspace, ".git"))
  for (const entry of ProtectedPaths.workspaceProtected) {
    if (entry.path.startsWith(".git/") && git !== "dir") continue
    for (const target of expand(input.workspace, entry.path)) {
      const kind = kindOf(target)
      if (kind !== undefined) existing.push(target)
      else if (!entry.path.includes("*")) {
        missing.push({ path: target, kind: entry.kind, content: entry.placeholder ?? "" })
      }
    }
  }
  // No repository: `.git` itself cannot be created (it would bring hooks and config).
  if (git === undefined) missing.push({ path: path.join(input.workspace, ".git"), kind: "dir", content: "" })
  if (git === "dir") excludePlaceholders(input.workspace, missing, existing)
  const hooks = hooksPath(input.workspace)
  if (hooks !== null && kindOf(hooks) !== undefined) existing.push(hooks)
  for (const extra of input.extraProtected) {
    const target = path.resolve(input.workspace, extra)
    if (kindOf(target) !== undefined) existing.push(target)
  }
  return { existing, missing }
}

/** Secret files in the workspace, breadth-first, bounded. */
const secretsOf = (workspace: string, limit: number) => {
  const found: Array<string> = []
  const queue = [workspace]
  let seen = 0
  while (queue.length > 0) {
    const dir = queue.shift()!
    for (const dirent of list(dir)) {
      if (++seen > limit) return { found, truncated: true }
      const full = path.join(dir, dirent.name)
      if (dirent.isDirectory()) {
        if (!ProtectedPaths.scanSkips.has(dirent.name)) queue.push(full)
      } else if ((dirent.isFile() || dirent.isSymbolicLink()) && ProtectedPaths.isSecretName(dirent.name)) {
        found.push(full)
      }
    }
  }
  return { found, truncated: false }
}

/** The namespaces and privileges of every sandbox (the bench's bubblewrap floor uses them too). @internal */
export const isolationArgs: ReadonlyArray<string> = [
  "--unshare-pid",
  "--unshare-net",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-cgroup-try",
  "--die-with-parent",
  "--new-session",
  "--cap-drop",
  "ALL"
]

/** The bubblewrap arguments (before `--`) and the placeholders to create first. @internal */
export const plan = (input: LayoutInput): Layout => {
  const args: Array<string> = [
    ...isolationArgs,
    "--hostname",
    "sandbox",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--tmpfs",
    "/run"
  ]
  if (kindOf("/var/run") === "dir") args.push("--tmpfs", "/var/run")
  if (kindOf("/var/tmp") === "dir") args.push("--tmpfs", "/var/tmp")
  args.push(input.writable ? "--bind" : "--ro-bind", input.workspace, input.workspace)

  const { existing, missing } = protectedOf(input)
  const protectedPaths: Array<string> = []
  if (input.writable) {
    for (const target of existing) {
      args.push("--ro-bind", target, target)
      protectedPaths.push(target)
    }
    for (const hole of missing) {
      args.push("--ro-bind", hole.kind === "dir" ? input.emptyDir : input.fileWith(hole.content), hole.path)
      protectedPaths.push(hole.path)
    }
  }

  const masked: Array<string> = []
  const mask = (target: string) => {
    const kind = kindOf(target)
    if (kind === undefined) return
    // A symlink is masked at what it points to when that is a file or directory.
    const real = kind === "link" ? realOrNull(target) : target
    if (real === null) return
    args.push("--ro-bind", kindOf(real) === "dir" ? input.emptyDir : input.fileWith(""), real)
    masked.push(real)
  }
  for (const entry of ProtectedPaths.homeMasked) mask(path.join(input.home, entry.path))
  for (const file of SYSTEM_SECRETS) mask(file)
  const secrets = secretsOf(input.workspace, input.scanLimit)
  for (const file of secrets.found) mask(file)

  if (input.proxySocket !== null) args.push("--ro-bind", input.proxySocket, PROXY_SOCKET)
  args.push("--chdir", input.cwd)
  return {
    args,
    placeholders: input.writable ? missing.filter((hole) => hole.over !== true) : [],
    protectedPaths,
    maskedPaths: masked,
    scanTruncated: secrets.truncated
  }
}

const realOrNull = (p: string): string | null => {
  try {
    return fs.realpathSync(p)
  } catch {
    return null
  }
}
