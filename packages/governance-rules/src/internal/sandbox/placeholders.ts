/**
 * Missing protected paths (`.claude`, `.mcp.json`, `.git/commondir`, …) must not be creatable by
 * the sandboxed command, and a mount needs a mountpoint — which, inside the writable workspace,
 * is a real file or directory on the host. So Steward creates the empty mountpoints itself before
 * the call and removes them after it, never leaving them behind:
 *
 * - every run on a workspace registers itself (a file `user-<pid>-<nonce>`) in a per-workspace
 *   directory under the runtime root, and records each mountpoint it created (`created.json`);
 * - a mountpoint is removed only when no other live run is registered: removing a mountpoint that
 *   another run's namespace still uses would detach that run's mount (Linux lazily unmounts a
 *   mountpoint unlinked from another namespace) and open the hole it held;
 * - registration, creation and removal happen under a mutex (a symbolic link naming its owner's
 *   pid, made atomically; stolen only from a dead owner), held by a starting run until bubblewrap
 *   has made its mounts;
 * - the mountpoints of one depth are made and removed concurrently: on a disk mounted with
 *   `discard` each `rmdir` waits milliseconds for the device, and they do not depend on each other;
 * - only an empty directory (`rmdir`) or an empty file is removed, so nothing a person wrote there
 *   in the meantime is lost; a run that crashed leaves its record, and the next run cleans it.
 *
 * @internal
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Placeholder } from "./layout.js"

/** @internal */
export interface Registry {
  readonly dir: string
  readonly user: string
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The per-workspace directory under the runtime root. @internal */
export const registryDir = (runtimeRoot: string, workspace: string): string =>
  path.join(runtimeRoot, "ws-" + crypto.createHash("sha256").update(workspace).digest("hex").slice(0, 24))

const mutexOf = (dir: string) => path.join(dir, "mutex")

const ownerOf = (mutex: string): number => {
  try {
    return Number(fs.readlinkSync(mutex))
  } catch {
    try {
      // an earlier version's mutex: a directory holding the owner's pid
      return Number(fs.readFileSync(path.join(mutex, "owner"), "utf8"))
    } catch {
      return NaN // being removed: wait
    }
  }
}

/** Take the workspace's mutex (waits; steals it from a dead owner). @internal */
export const lock = async (dir: string): Promise<void> => {
  const mutex = mutexOf(dir)
  for (let attempt = 0;; attempt++) {
    try {
      // a symbolic link naming the owner: made atomically in one call, and no directory block
      // to allocate and free (on a disk mounted with `discard`, rmdir costs milliseconds)
      fs.symlinkSync(String(process.pid), mutex)
      return
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === "ENOENT") {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
        continue
      }
      if (code !== "EEXIST") throw error
    }
    const owner = ownerOf(mutex)
    if (Number.isInteger(owner) && owner !== process.pid && !alive(owner)) {
      fs.rmSync(mutex, { recursive: true, force: true })
      continue
    }
    if (attempt > 3000) throw new Error(`the sandbox registry ${dir} stayed locked for 30 s`)
    await sleep(10)
  }
}

/** @internal */
export const unlock = (dir: string): void => fs.rmSync(mutexOf(dir), { force: true })

const USER = "user-"

/** Register a run (under the mutex). @internal */
export const register = (dir: string): Registry => {
  const user = `${USER}${process.pid}-${crypto.randomBytes(6).toString("hex")}`
  fs.writeFileSync(path.join(dir, user), "")
  return { dir, user }
}

interface Record_ {
  readonly target: string
  readonly content: string
}

// One manifest per workspace (read and written under the mutex): every mountpoint created and
// not yet removed, with the content its placeholder was given.
const manifestOf = (dir: string) => path.join(dir, "created.json")

const readManifest = (dir: string): Array<Record_> => {
  try {
    return JSON.parse(fs.readFileSync(manifestOf(dir), "utf8")) as Array<Record_>
  } catch {
    return []
  }
}

const writeManifest = (dir: string, records: ReadonlyArray<Record_>) => {
  if (records.length === 0) {
    fs.rmSync(manifestOf(dir), { force: true })
    return
  }
  const temporary = `${manifestOf(dir)}.${process.pid}`
  fs.writeFileSync(temporary, JSON.stringify(records))
  fs.renameSync(temporary, manifestOf(dir))
}

const depth = (target: string) => target.split(path.sep).length

// Paths of one depth do not depend on each other: each level's creations or removals run at
// once (the file system's latency, not the CPU, is the cost), parents before children on the
// way in and children before parents on the way out.
const byLevel = async <A extends Record_>(
  items: ReadonlyArray<A>,
  order: "parents-first" | "children-first",
  each: (item: A) => Promise<unknown>
): Promise<void> => {
  const levels = [...new Set(items.map((item) => depth(item.target)))].sort((a, b) =>
    order === "parents-first" ? a - b : b - a
  )
  for (const level of levels) await Promise.all(items.filter((item) => depth(item.target) === level).map(each))
}

/** Create the missing mountpoints (and missing parents), recording each (under the mutex). @internal */
export const create = async (dir: string, placeholders: ReadonlyArray<Placeholder>): Promise<void> => {
  // Another run may have made some since the layout was planned: those are recorded already.
  const planned: Array<Record_ & { readonly kind: "dir" | "file" }> = []
  for (const hole of placeholders) {
    if (fs.existsSync(hole.path)) continue
    const parents: Array<string> = []
    for (let parent = path.dirname(hole.path); !fs.existsSync(parent); parent = path.dirname(parent)) {
      parents.unshift(parent)
    }
    for (const parent of parents) {
      if (!planned.some((p) => p.target === parent)) planned.push({ target: parent, content: "", kind: "dir" })
    }
    planned.push({ target: hole.path, content: hole.content, kind: hole.kind })
  }
  if (planned.length === 0) return
  // recorded before they are made, so a crash in between still leaves records to clean
  writeManifest(dir, [...readManifest(dir), ...planned.map(({ content, target }) => ({ target, content }))])
  await byLevel(
    planned,
    "parents-first",
    (item) =>
      item.kind === "dir"
        ? fs.promises.mkdir(item.target)
        : fs.promises.writeFile(item.target, item.content, { flag: "wx" })
  )
}

// Only what Steward put there: an empty directory, or a file still holding the placeholder's content.
const removeUntouched = async ({ content, target }: Record_): Promise<boolean> => {
  try {
    const stat = await fs.promises.lstat(target)
    if (stat.isDirectory()) await fs.promises.rmdir(target)
    else if (
      stat.isFile() && stat.size === Buffer.byteLength(content) &&
      (stat.size === 0 || await fs.promises.readFile(target, "utf8") === content)
    ) {
      await fs.promises.unlink(target)
    } else return false
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT"
  }
}

/**
 * Unregister a run and, when no live run remains, remove every recorded mountpoint (deepest
 * first). Under the mutex. @internal
 */
export const release = async (registry: Registry): Promise<void> => {
  fs.rmSync(path.join(registry.dir, registry.user), { force: true })
  const others = fs.readdirSync(registry.dir).filter((name) => {
    if (!name.startsWith(USER)) return false
    if (alive(Number(name.slice(USER.length).split("-")[0]))) return true
    fs.rmSync(path.join(registry.dir, name), { force: true })
    return false
  })
  if (others.length > 0) return
  const records = readManifest(registry.dir)
  if (records.length === 0) return
  // One that was filled by someone outside the sandbox is kept (and forgotten).
  await byLevel(records, "children-first", removeUntouched)
  writeManifest(registry.dir, [])
}
