/**
 * The filesystem as the policy engine and the built-in hooks see it: the few synchronous look-ups
 * path resolution needs (what a path is, where a symlink points, what a directory holds) and the
 * content of a file (the touched-files bundle digests it), as an injected service with a node
 * layer and an in-memory layer — so a governance decision is testable without a real disk.
 *
 * @example
 * ```ts
 * import { Files } from "@steward/governance-rules"
 *
 * const view = Files.memory({ "/srv/app/.env": "file", "/srv/app/link": { symlink: "/etc" } })
 * view.lstat("/srv/app/link") // { kind: "symlink" }
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Bounded from "./internal/boundedRead.js"

/**
 * The largest file `readFile` returns (bytes); a larger one reads as `undefined`. Use `read`
 * to learn why a file was refused.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_READ_BYTES = 64 * 1024 * 1024

/**
 * The outcome of a bounded read: the bytes, `missing`, or `refused` — a FIFO, device, socket or
 * directory (`not-a-file`), a file over the limit (`too-large`, naming it), or an I/O error.
 *
 * @since 0.1.0
 * @category models
 */
export type Read = Bounded.Read

/**
 * What a path is (without following a final symlink).
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly kind: "file" | "directory" | "symlink"
}

/**
 * The synchronous look-ups the engine makes (`undefined`: missing or unreadable).
 *
 * @since 0.1.0
 * @category models
 */
export interface FileView {
  readonly lstat: (path: string) => Entry | undefined
  readonly readlink: (path: string) => string | undefined
  readonly readdir: (path: string) => ReadonlyArray<string> | undefined
  /**
   * The bytes of a regular file (following symlinks), `undefined` when it is missing, not a
   * regular file, unreadable or larger than `MAX_READ_BYTES`.
   */
  readonly readFile: (path: string) => Uint8Array | undefined
  /**
   * At most `maxBytes` of a regular file (following symlinks), checked before it is read: never
   * blocks on a FIFO or device, never reads past the limit; a refusal names the file and limit.
   */
  readonly read: (path: string, maxBytes: number) => Read
}

/**
 * The file view service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Files extends Context.Tag("@steward/governance-rules/Files")<Files, FileView>() {}

/**
 * The real filesystem (node's synchronous calls).
 *
 * @since 0.1.0
 * @category constructors
 */
export const node: FileView = {
  lstat: (p) => {
    try {
      const stat = fs.lstatSync(p, { throwIfNoEntry: false })
      if (stat === undefined) return undefined
      return { kind: stat.isSymbolicLink() ? "symlink" : stat.isDirectory() ? "directory" : "file" }
    } catch {
      return undefined
    }
  },
  readlink: (p) => {
    try {
      return fs.readlinkSync(p)
    } catch {
      return undefined
    }
  },
  readdir: (p) => {
    try {
      return fs.readdirSync(p)
    } catch {
      return undefined
    }
  },
  readFile: (p) => {
    const result = Bounded.read(p, MAX_READ_BYTES)
    return result._tag === "bytes" ? result.bytes : undefined
  },
  read: Bounded.read
}

/**
 * What an in-memory tree holds at an absolute path: a file (empty, or with its text), a directory,
 * or a symlink.
 *
 * @since 0.1.0
 * @category models
 */
export type MemoryEntry = "file" | "directory" | { readonly symlink: string } | { readonly content: string }

/**
 * An in-memory tree. Parent directories of every entry exist implicitly.
 *
 * @since 0.1.0
 * @category constructors
 */
export const memory = (entries: Readonly<Record<string, MemoryEntry>>): FileView => {
  const table = new Map<string, MemoryEntry>([["/", "directory"]])
  const children = new Map<string, Set<string>>()
  for (const [raw, entry] of Object.entries(entries)) {
    const p = path.resolve("/", raw)
    table.set(p, entry)
    for (let child = p, parent = path.dirname(p); child !== "/"; child = parent, parent = path.dirname(parent)) {
      if (!table.has(parent)) table.set(parent, "directory")
      const names = children.get(parent) ?? new Set<string>()
      names.add(path.basename(child))
      children.set(parent, names)
    }
  }
  const follow = (p: string, hops: number): MemoryEntry | undefined => {
    const entry = table.get(p)
    if (entry === undefined || typeof entry === "string" || !("symlink" in entry) || hops > 40) return entry
    return follow(path.resolve(path.dirname(p), entry.symlink), hops + 1)
  }
  // the same refusals as the real disk: a directory is not a file, a file over the limit is named
  const read = (p: string, maxBytes: number): Read => {
    const entry = follow(p, 0)
    if (entry === undefined || (typeof entry !== "string" && "symlink" in entry)) return { _tag: "missing" }
    if (entry === "directory") {
      return { _tag: "refused", reason: "not-a-file", message: `${p}: is a directory, not a regular file` }
    }
    const bytes = entry === "file" ? new Uint8Array() : new TextEncoder().encode(entry.content)
    if (bytes.length > maxBytes) {
      return {
        _tag: "refused",
        reason: "too-large",
        message: `${p}: ${Bounded.size(bytes.length)} is larger than the limit of ${Bounded.size(maxBytes)}`,
        limit: maxBytes
      }
    }
    return { _tag: "bytes", bytes }
  }
  return {
    lstat: (p) => {
      const entry = table.get(p)
      if (entry === undefined) return undefined
      return { kind: typeof entry === "string" ? entry : "symlink" in entry ? "symlink" : "file" }
    },
    readlink: (p) => {
      const entry = table.get(p)
      return entry !== undefined && typeof entry !== "string" && "symlink" in entry ? entry.symlink : undefined
    },
    readdir: (p) => table.get(p) === "directory" ? [...(children.get(p) ?? [])] : undefined,
    readFile: (p) => {
      const result = read(p, MAX_READ_BYTES)
      return result._tag === "bytes" ? result.bytes : undefined
    },
    read
  }
}

/**
 * The real filesystem as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNode: Layer.Layer<Files> = Layer.succeed(Files, node)

/**
 * An in-memory tree as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (entries: Readonly<Record<string, MemoryEntry>>): Layer.Layer<Files> =>
  Layer.succeed(Files, memory(entries))
