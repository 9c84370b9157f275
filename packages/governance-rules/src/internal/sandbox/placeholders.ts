/**
 * Missing protected paths (`.claude`, `.mcp.json`, `.git/commondir`, …) must not be creatable by
 * the sandboxed command, and a mount needs a mountpoint — which, inside the writable workspace,
 * is a real file or directory on the host. So Steward creates the empty mountpoints itself before
 * the call and removes them after it, never leaving them behind:
 *
 * - every run on a workspace registers itself (`users/<pid>-<nonce>`) in a per-workspace
 *   directory under the runtime root, and records each mountpoint it created (`created/`);
 * - a mountpoint is removed only when no other live run is registered: removing a mountpoint that
 *   another run's namespace still uses would detach that run's mount (Linux lazily unmounts a
 *   mountpoint unlinked from another namespace) and open the hole it held;
 * - registration, creation and removal happen under a mutex (an atomic `mkdir`, stolen only from
 *   a dead owner), held by a starting run until bubblewrap has made its mounts;
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

/** Take the workspace's mutex (waits; steals it from a dead owner). @internal */
export const lock = async (dir: string): Promise<void> => {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const mutex = path.join(dir, "mutex")
  for (let attempt = 0;; attempt++) {
    try {
      fs.mkdirSync(mutex)
      fs.writeFileSync(path.join(mutex, "owner"), String(process.pid))
      return
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // the last run of another process removed the empty registry just now: make it again
      if (code === "ENOENT") {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
        continue
      }
      if (code !== "EEXIST") throw error
    }
    let owner = NaN
    try {
      owner = Number(fs.readFileSync(path.join(mutex, "owner"), "utf8"))
    } catch {
      // being written or removed: wait
    }
    if (Number.isInteger(owner) && owner !== process.pid && !alive(owner)) {
      fs.rmSync(mutex, { recursive: true, force: true })
      continue
    }
    if (attempt > 3000) throw new Error(`the sandbox registry ${dir} stayed locked for 30 s`)
    await sleep(10)
  }
}

/** @internal */
export const unlock = (dir: string): void => fs.rmSync(path.join(dir, "mutex"), { recursive: true, force: true })

/** Register a run (under the mutex). @internal */
export const register = (dir: string): Registry => {
  const users = path.join(dir, "users")
  fs.mkdirSync(users, { recursive: true })
  const user = `${process.pid}-${crypto.randomBytes(6).toString("hex")}`
  fs.writeFileSync(path.join(users, user), "")
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
  const temporary = `${manifestOf(dir)}.${process.pid}`
  fs.writeFileSync(temporary, JSON.stringify(records))
  fs.renameSync(temporary, manifestOf(dir))
}

/** Create the missing mountpoints (and missing parents), recording each (under the mutex). @internal */
export const create = (dir: string, placeholders: ReadonlyArray<Placeholder>): void => {
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
  for (const item of planned) {
    if (item.kind === "dir") fs.mkdirSync(item.target)
    else fs.writeFileSync(item.target, item.content, { flag: "wx" })
  }
}

// Only what Steward put there: an empty directory, or a file still holding the placeholder's content.
const removeUntouched = (target: string, content: string): boolean => {
  try {
    const stat = fs.lstatSync(target)
    if (stat.isDirectory()) fs.rmdirSync(target)
    else if (stat.isFile() && stat.size === Buffer.byteLength(content) && fs.readFileSync(target, "utf8") === content) {
      fs.unlinkSync(target)
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
export const release = (registry: Registry): void => {
  const users = path.join(registry.dir, "users")
  fs.rmSync(path.join(users, registry.user), { force: true })
  const others = (fs.existsSync(users) ? fs.readdirSync(users) : []).filter((user) => {
    if (alive(Number(user.split("-")[0]))) return true
    fs.rmSync(path.join(users, user), { force: true })
    return false
  })
  if (others.length > 0) return
  const records = readManifest(registry.dir)
  if (records.length === 0) return
  records.sort((a, b) => b.target.length - a.target.length)
  // One that was filled by someone outside the sandbox is kept (and forgotten).
  for (const { content, target } of records) removeUntouched(target, content)
  writeManifest(registry.dir, [])
}

/** After the last run on a workspace: its empty registry goes (non-recursive removals only). @internal */
export const forget = (registry: Registry): void => {
  try {
    if (readManifest(registry.dir).length > 0) return
    fs.rmdirSync(path.join(registry.dir, "users"))
    fs.rmSync(manifestOf(registry.dir), { force: true })
  } catch {
    // another run is registered: it stays
  }
}
