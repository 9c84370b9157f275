/**
 * Paths as the shell produces them: tilde expansion (`~`, `~user`, `~+`), the current directory
 * after `cd`, filename globs expanded against the directory they name, and the read and write
 * checks a path operand yields.
 *
 * @internal
 */
import * as Files from "../../Files.js"
import * as ProtectedPaths from "../../ProtectedPaths.js"
import * as Glob from "../glob.js"
import * as Network from "../network.js"
import * as Paths from "../paths.js"
import type { Word } from "../shellSyntax.js"
import { type Analyzer, guard, type Segment } from "./model.js"

/** Names that hold secrets wherever they are (so a bare operand with such a name is a path). @internal */
export const SECRET_NAME =
  /^\.env(\.|$)|\.env$|\.envrc$|\.pem$|\.key$|^id_(rsa|dsa|ecdsa|ed25519)|^\.netrc$|^\.npmrc$|^\.pypirc$|credentials|\.p12$|\.pfx$|^\.git-credentials$|^\.htpasswd$|\.kdbx$|\.tfstate/

/** @internal */
export const pathContext = (analyzer: Analyzer): Paths.PathContext => ({
  workspace: analyzer.context.workspace,
  home: analyzer.context.home,
  cwd: analyzer.cwd ?? analyzer.context.cwd,
  files: analyzer.context.files ?? Files.node
})

/** `~user` → that user's home (`/root`, `/home/user`); `~+` → the current directory; `~-` → unknown. */
const tildeOf = (analyzer: Analyzer, text: string): string | null => {
  if (text === "~" || text.startsWith("~/")) return text
  const slash = text.indexOf("/")
  const head = slash < 0 ? text.slice(1) : text.slice(1, slash)
  const tail = slash < 0 ? "" : text.slice(slash)
  if (head === "+") return analyzer.cwd === null ? null : analyzer.cwd + tail
  if (head === "-") return null
  if (!/^[a-z_][a-z0-9_.-]*$/i.test(head)) return null
  return (head === "root" ? "/root" : `/home/${head}`) + tail
}

/** The real path of an operand, and its display form; `null` when it cannot be resolved. @internal */
export const pathOf = (
  analyzer: Analyzer,
  raw: string
): { readonly real: string; readonly shown: string } | null => {
  if (raw.length === 0) return null
  const text = raw.startsWith("~") ? tildeOf(analyzer, raw) : raw
  if (text === null) return null
  // After a `cd` the engine could not follow, relative paths cannot be resolved.
  if (analyzer.cwd === null && !text.startsWith("/") && !text.startsWith("~")) return null
  const context = pathContext(analyzer)
  const real = Paths.realPath(text, context)
  return { real, shown: Paths.display(real, context) }
}

// A user's home directory, by where homes live.
const HOME_DIR = /^\/(?:root|home\/[^/]+|Users\/[^/]+)$/

/** A catastrophic-delete target: root or a home, or a glob directly under them. @internal */
// A last part made only of glob syntax (`*`, `?`, `.*`, `{,.}*`, `[!.]*`: bracket classes match any
// one character) names every entry of its directory, so the delete is of the directory itself.
const collapses = (leaf: string): boolean => {
  if (leaf === "..") return false
  const bare = leaf.replace(/\[!?\^?\]?[^\]]*\]/g, "")
  return /^[*?.[\]{}]+$/.test(leaf) || (bare !== leaf && /^[*?.{},]+$/.test(bare))
}

export const deleteTarget = (analyzer: Analyzer, text: string): string | null => {
  const p = pathOf(analyzer, text)
  if (p === null) return null
  const real = p.real
  const slash = real.lastIndexOf("/")
  const parent = slash <= 0 ? "/" : real.slice(0, slash)
  const leaf = real.slice(slash + 1)
  const home = (dir: string) => dir === analyzer.context.home || HOME_DIR.test(dir)
  if (collapses(leaf)) {
    if (parent === "/") return "/"
    if (home(parent)) return "~"
    return Paths.display(real, pathContext(analyzer))
  }
  if (home(real)) return "~"
  return p.shown
}

/** Whether a plain word is a path (for programs whose operands may or may not be files). @internal */
export const looksLikePath = (analyzer: Analyzer, text: string): boolean => {
  if (text.length === 0 || text.length > 4096 || Network.isUrl(text)) return false
  if (text.includes("/") || text.startsWith(".") || text.startsWith("~")) return true
  if (SECRET_NAME.test(text)) return true
  return (analyzer.context.files ?? Files.node).lstat(`${analyzer.cwd ?? analyzer.context.cwd}/${text}`) !== undefined
}

const MAX_GLOB_MATCHES = 256

/**
 * What a glob operand names: the entries of its directory its last part matches (dotfiles too:
 * failing closed), or `null` when the directory part is itself a pattern or cannot be listed.
 */
const expandGlob = (analyzer: Analyzer, text: string): Array<string> | null => {
  const slash = text.lastIndexOf("/")
  const dir = slash < 0 ? "." : slash === 0 ? "/" : text.slice(0, slash)
  const leaf = text.slice(slash + 1)
  if (/[*?[]/.test(dir)) return null
  const base = pathOf(analyzer, dir)
  if (base === null) return null
  const entries = (analyzer.context.files ?? Files.node).readdir(base.real) ?? []
  const glob = Glob.compile(leaf)
  const prefix = slash < 0 ? "" : text.slice(0, slash + 1)
  const out = entries.filter((e) => glob.test(e)).map((e) => prefix + e)
  return out.length > MAX_GLOB_MATCHES ? null : out
}

// Names a glob's leaf is tried against: the files without a leading dot that hold secrets or run
// code later (every other protected or secret name starts with a dot).
const PROBES = ["a", "id_rsa", "credentials", "gha-creds-a", "bunfig.toml"]

/**
 * Whether a glob whose directories are patterns (`src/** /*.ts`) stays among the workspace's
 * ordinary files: relative, no `..`, no part naming a dotfile, globs that do not match dotfiles
 * (no `shopt -s dotglob`), and a leaf that matches no secret or protected name. Then it is decided
 * as the workspace path it spells; otherwise it asks.
 */
const workspaceGlob = (analyzer: Analyzer, action: "read" | "write", text: string): boolean => {
  if (analyzer.dotglob || text.startsWith("/") || text.startsWith("~")) return false
  const parts = text.split("/")
  if (parts.some((part) => part === ".." || part.startsWith(".") && part !== ".")) return false
  const leaf = Glob.compile(parts[parts.length - 1]!)
  const suffix = /[^*?[\]]*$/.exec(parts[parts.length - 1]!)![0]
  const names = [...PROBES, ...PROBES.map((probe) => probe + suffix)]
  if (names.some((name) => leaf.test(name) && ProtectedPaths.isSecretName(name))) return false
  return action === "read" || !names.some((name) => leaf.test(name) && name === "bunfig.toml")
}

/**
 * Add the read or write check for an operand. Unresolved (an expansion) asks; a glob is also
 * decided for every file it matches now; pseudo-devices are not files.
 *
 * @internal
 */
export const addPath = (analyzer: Analyzer, segment: Segment, action: "read" | "write", w: Word | string): void => {
  const operand = typeof w === "string" ? { text: w, resolved: true } : w
  if (!operand.resolved) {
    guard(segment, "unresolved-target", operand.text)
    return
  }
  const text = operand.text
  if (operand.glob === true) {
    const matches = expandGlob(analyzer, text)
    if (matches === null && !workspaceGlob(analyzer, action, text)) guard(segment, "unresolved-target", text)
    else for (const match of matches ?? []) addPathText(analyzer, segment, action, match)
  }
  addPathText(analyzer, segment, action, text)
}

const addPathText = (analyzer: Analyzer, segment: Segment, action: "read" | "write", text: string): void => {
  // bash's /dev/tcp and /dev/udp open network connections.
  const socket = /^\/dev\/(?:tcp|udp)\/([^/]+)\/(\d+)/.exec(text)
  if (socket !== null) {
    const url = Network.normalizeUrl(`http://${socket[1]}:${socket[2]}/`)
    if (url !== null) segment.checks.push({ action: "fetch", resource: url })
    return
  }
  const p = pathOf(analyzer, text)
  if (p === null) {
    guard(segment, "unresolved-target", text)
    return
  }
  if (Paths.isPseudoDevice(p.real)) return
  segment.checks.push({ action, resource: p.shown })
}

/** Record that the segment runs a file (checked against files the same command writes). @internal */
export const executes = (analyzer: Analyzer, segment: Segment, text: string): void => {
  const p = pathOf(analyzer, text)
  if (p !== null) analyzer.executed.push([p.shown, segment])
}

const CD_FLAGS = new Set(["-L", "-P", "-e", "-@"])

/** Follow a `cd`: the directory later segments resolve against (`null` when unknown). @internal */
export const changeDirectory = (analyzer: Analyzer, args: ReadonlyArray<Word>): void => {
  const target = args.find((a) => !(a.resolved && CD_FLAGS.has(a.text)))
  if (target === undefined) {
    analyzer.cwd = analyzer.context.home
    return
  }
  if (!target.resolved || target.text === "-" || target.glob === true) {
    analyzer.cwd = null
    return
  }
  // With CDPATH set, a relative `cd` may land in any of its directories.
  if (analyzer.cdpath && !target.text.startsWith("/") && !target.text.startsWith("~") && !target.text.startsWith(".")) {
    analyzer.cwd = null
    return
  }
  const p = pathOf(analyzer, target.text)
  analyzer.cwd = p === null ? null : p.real
}

const STANDARD_BIN =
  /^\/(?:usr\/(?:local\/)?)?s?bin\/([^/]+)$|^\/opt\/homebrew\/bin\/([^/]+)$|^\/bin\/([^/]+)$|^\/usr\/(?:lib|libexec)\/git-core\/(git(?:-[a-z-]+)?)$/

/** @internal */
export const baseName = (name: string): string => {
  const m = STANDARD_BIN.exec(name)
  return m === null ? name : (m[1] ?? m[2] ?? m[3] ?? m[4] ?? name)
}

/**
 * The command's name for matching: standard bin directories are stripped, and a path-like name
 * that resolves (through symlinks) to a standard bin is that binary (`./x` → `/usr/bin/rm` → `rm`).
 *
 * @internal
 */
export const commandName = (analyzer: Analyzer, text: string): string => {
  const base = baseName(text)
  if (base !== text || !text.includes("/")) return base
  const p = pathOf(analyzer, text)
  if (p === null) return text
  const resolved = baseName(p.real)
  return resolved !== p.real ? resolved : text
}

/** Whether a command name is a file inside the workspace (a project script). @internal */
export const isWorkspaceFile = (analyzer: Analyzer, text: string): boolean => {
  if (!text.includes("/")) return false
  const p = pathOf(analyzer, text)
  return p !== null && Paths.isInside(p.shown)
}
