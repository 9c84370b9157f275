/**
 * The project's files as audit-state reads and writes them — the generated views, record and pass
 * bodies, `orchestrator.conf`, the subject's working tree and its `.git` — as an injected service
 * with a node layer and an in-memory layer, so a project's views, verbs and drift checks are
 * testable without a real disk (issue 18). `Project`'s operations read the service when one is
 * provided and the real disk otherwise; its synchronous helpers take a view argument.
 *
 * @example
 * ```ts
 * import { Project, ProjectFiles } from "@steward/audit-state"
 * import * as Effect from "effect/Effect"
 *
 * const files = ProjectFiles.memory({ "/p/audit/orchestrator.conf": "batch_size = 4\n" })
 * const config = Project.readConfig(Project.paths("/p")).pipe(Effect.provide(ProjectFiles.layerView(files)))
 * ```
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as nodePath from "node:path"
import * as NodeFiles from "./internal/project/files.js"

/**
 * The largest view, body, report or config file the audit area reads (bytes).
 *
 * @since 0.3.0
 * @category constants
 */
export const MAX_FILE_BYTES: number = NodeFiles.MAX_FILE_BYTES

/**
 * A bounded read: the bytes, `missing`, or `refused` with a message naming the file and the rule
 * (a FIFO, device, socket or directory; a file over the limit; bytes that are not the file's).
 *
 * @since 0.3.0
 * @category models
 */
export type Read = NodeFiles.ReadBytes

/**
 * What a path is.
 *
 * @since 0.3.0
 * @category models
 */
export type Kind = "file" | "directory" | "symlink" | "other"

/**
 * The synchronous file operations a project makes (a view check stats one file per record, so
 * they are plain calls, not effects).
 *
 * @since 0.3.0
 * @category models
 */
export interface FileView {
  /** At most `maxBytes` of a regular file, following symlinks; never blocks on a FIFO or device. */
  readonly read: (path: string, maxBytes: number) => Read
  /** What `path` is, following symlinks; `undefined` when it is missing. */
  readonly stat: (path: string) => Kind | undefined
  /**
   * A regular file's mark, not following a final symlink: `size:mtimeMs:ctimeMs:id`, different
   * after any write, even one that keeps the size (ADR 0115); `undefined` when `path` is missing
   * or not a regular file. The second field is the modification time in milliseconds.
   */
  readonly mark: (path: string) => string | undefined
  /**
   * Write `content` atomically (parents created; a temporary file renamed over `path`) with its
   * modification time set to `mtimeMs`; returns the new mark.
   */
  readonly writeAtomic: (path: string, content: string, mtimeMs: number) => string | undefined
  /** The real path of an existing `path` (symlinks resolved); `undefined` when it is missing. */
  readonly realpath: (path: string) => string | undefined
}

/**
 * The project files service.
 *
 * @since 0.3.0
 * @category tags
 */
export class ProjectFiles extends Context.Tag("@steward/audit-state/ProjectFiles")<ProjectFiles, FileView>() {}

/**
 * The real disk (node's synchronous calls, bounded reads).
 *
 * @since 0.3.0
 * @category constructors
 */
export const node: FileView = NodeFiles.nodeView

/**
 * What an in-memory tree holds at an absolute path: a file's text, a directory or a symlink.
 *
 * @since 0.3.0
 * @category models
 */
export type MemoryEntry = string | "directory" | { readonly symlink: string }

interface MemoryFile {
  readonly bytes: Uint8Array
  readonly mtimeMs: number
  readonly id: number
}

/**
 * An in-memory tree (parents of every entry exist implicitly). Writes update it; every write gives
 * the file a new mark. A file given in `entries` was modified at time 0.
 *
 * @since 0.3.0
 * @category constructors
 */
export const memory = (entries: Readonly<Record<string, MemoryEntry>> = {}): FileView => {
  const table = new Map<string, MemoryFile | "directory" | { readonly symlink: string }>([["/", "directory"]])
  let writes = 0
  const mkdirs = (p: string) => {
    for (let d = nodePath.dirname(p); !table.has(d); d = nodePath.dirname(d)) table.set(d, "directory")
  }
  const put = (p: string, text: string, mtimeMs: number) => {
    mkdirs(p)
    table.set(p, { bytes: new TextEncoder().encode(text), mtimeMs, id: ++writes })
  }
  for (const [raw, entry] of Object.entries(entries)) {
    const p = nodePath.resolve("/", raw)
    if (typeof entry === "string" && entry !== "directory") put(p, entry, 0)
    else {
      mkdirs(p)
      table.set(p, entry)
    }
  }
  const follow = (p: string, hops = 0): string | undefined => {
    const entry = table.get(p)
    if (entry === undefined) return undefined
    if (typeof entry === "object" && "symlink" in entry) {
      return hops > 40 ? undefined : follow(nodePath.resolve(nodePath.dirname(p), entry.symlink), hops + 1)
    }
    return p
  }
  const kind = (p: string | undefined): Kind | undefined => {
    const entry = p === undefined ? undefined : table.get(p)
    return entry === undefined
      ? undefined
      : entry === "directory"
      ? "directory"
      : "symlink" in entry
      ? "symlink"
      : "file"
  }
  return {
    read: (p, maxBytes) => {
      const entry = table.get(follow(p) ?? "")
      if (entry === undefined) return { _tag: "missing" }
      if (entry === "directory" || "symlink" in entry) {
        return { _tag: "refused", message: `${p}: is a directory, not a regular file` }
      }
      if (entry.bytes.length > maxBytes) {
        return {
          _tag: "refused",
          message: `${p}: ${NodeFiles.size(entry.bytes.length)} is larger than the limit of ${NodeFiles.size(maxBytes)}`
        }
      }
      return { _tag: "bytes", bytes: entry.bytes }
    },
    stat: (p) => kind(follow(p)),
    mark: (p) => {
      const entry = table.get(p)
      return entry === undefined || entry === "directory" || "symlink" in entry
        ? undefined
        : `${entry.bytes.length}:${entry.mtimeMs}:${entry.id}:${entry.id}`
    },
    writeAtomic: (p, content, mtimeMs) => {
      put(p, content, mtimeMs)
      const entry = table.get(p) as MemoryFile
      return `${entry.bytes.length}:${entry.mtimeMs}:${entry.id}:${entry.id}`
    },
    realpath: (p) => {
      // resolve each existing prefix's symlinks, as the real disk does
      const parts = nodePath.resolve("/", p).split("/").filter((s) => s !== "")
      let at = "/"
      for (const part of parts) {
        const next = follow(nodePath.join(at, part))
        if (next === undefined) return undefined
        at = next
      }
      return at
    }
  }
}

/**
 * The real disk as a layer.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerNode: Layer.Layer<ProjectFiles> = Layer.succeed(ProjectFiles, node)

/**
 * A given view (an in-memory tree from {@link memory}, kept by the caller to look at or edit) as a
 * layer.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerView = (view: FileView): Layer.Layer<ProjectFiles> => Layer.succeed(ProjectFiles, view)

/**
 * An in-memory tree as a layer.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerMemory = (entries: Readonly<Record<string, MemoryEntry>> = {}): Layer.Layer<ProjectFiles> =>
  layerView(memory(entries))

/**
 * The provided view, or the real disk when none is provided.
 *
 * @since 0.3.0
 * @category accessors
 */
export const current: Effect.Effect<FileView> = Effect.map(
  Effect.serviceOption(ProjectFiles),
  (provided) => provided._tag === "Some" ? provided.value : node
)
