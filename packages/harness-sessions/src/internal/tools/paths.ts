/**
 * Resolving a path the model gave inside the run's workspace. A relative path is taken from the
 * workspace root; an absolute one must already lie inside it. Symlinks are followed on the
 * longest existing prefix, so a link pointing out of the workspace is refused as well.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"

/** @internal */
export interface Resolved {
  /** Absolute path (symlinks of the existing prefix resolved). */
  readonly absolute: string
  /** Workspace-relative path with `/` separators, as events and checkpoints record it. */
  readonly relative: string
  /** The path as given, made workspace-relative without resolving any link (what the file tools open). */
  readonly lexical: string
}

const inside = (path: Path.Path, root: string, candidate: string): string | undefined => {
  const rel = path.relative(root, candidate)
  if (rel === "") return "."
  if (rel.startsWith("..") || path.isAbsolute(rel)) return undefined
  return rel.split(path.sep).join("/")
}

/** @internal */
export const resolve = (
  workspace: string,
  raw: string
): Effect.Effect<Either.Either<Resolved, string>, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    if (raw.trim() === "") return Either.left("the path is empty")
    if (raw.includes("\0")) return Either.left(`the path ${JSON.stringify(raw)} contains a NUL byte`)
    const root = yield* fs.realPath(workspace).pipe(Effect.orElseSucceed(() => path.resolve(workspace)))
    const lexical = path.resolve(root, raw)
    if (inside(path, root, lexical) === undefined) {
      return Either.left(`${raw} is outside the workspace ${root}; use a path inside it`)
    }
    // Follow symlinks on the longest prefix that exists; the rest is created later.
    let existing = lexical
    const rest: Array<string> = []
    while (!(yield* fs.exists(existing).pipe(Effect.orElseSucceed(() => false)))) {
      const parent = path.dirname(existing)
      if (parent === existing) break
      rest.unshift(path.basename(existing))
      existing = parent
    }
    const real = yield* fs.realPath(existing).pipe(Effect.orElseSucceed(() => existing))
    const absolute = rest.length === 0 ? real : path.join(real, ...rest)
    const relative = inside(path, root, absolute)
    if (relative === undefined) {
      return Either.left(`${raw} leads outside the workspace (through a symbolic link); use a path inside it`)
    }
    return Either.right({ absolute, relative, lexical: inside(path, root, lexical)! })
  })
