/**
 * Control groups for one sandboxed call: the process limit (`pids.max`) and the memory limit
 * (`memory.limit_in_bytes` / `memory.max`) cover the whole process tree, which per-process
 * rlimits cannot — and as root `RLIMIT_NPROC` does not apply at all. A child group is made under
 * the group this process is in (so a container's own limits still hold), the sandbox joins it
 * before bubblewrap starts (a shell writes its own pid, then execs), and afterwards every process
 * left in it is killed and the group removed.
 *
 * @internal
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** @internal */
export type Controller = "pids" | "memory"

/** One controller's group directory and the file its limit goes in. @internal */
export interface Group {
  readonly controller: Controller
  readonly dir: string
}

const ROOT = "/sys/fs/cgroup"

// `/proc/self/cgroup`: `ID:controllers:path` (v1) and `0::path` (v2).
const membership = (): ReadonlyArray<{ readonly controllers: ReadonlyArray<string>; readonly path: string }> => {
  try {
    return fs.readFileSync("/proc/self/cgroup", "utf8").trim().split("\n").map((line) => {
      const [, controllers = "", p = "/"] = line.split(":")
      return { controllers: controllers.split(","), path: p }
    })
  } catch {
    return []
  }
}

const writable = (dir: string): boolean => {
  try {
    fs.accessSync(dir, fs.constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** Where a child group for `controller` can be made, or `null` (none writable). @internal */
export const parentOf = (controller: Controller): { readonly dir: string; readonly v2: boolean } | null => {
  const groups = membership()
  const v1 = groups.find((g) => g.controllers.includes(controller))
  if (v1 !== undefined) {
    const dir = path.join(ROOT, controller, v1.path)
    return fs.existsSync(path.join(dir, "cgroup.procs")) && writable(dir) ? { dir, v2: false } : null
  }
  const v2 = groups.find((g) => g.controllers.length === 1 && g.controllers[0] === "")
  if (v2 === undefined) return null
  const dir = path.join(ROOT, v2.path)
  try {
    const enabled = fs.readFileSync(path.join(dir, "cgroup.subtree_control"), "utf8")
    if (!enabled.split(/\s+/).includes(controller)) return null
  } catch {
    return null
  }
  return writable(dir) ? { dir, v2: true } : null
}

const LIMIT_FILE: Record<Controller, { readonly v1: string; readonly v2: string }> = {
  pids: { v1: "pids.max", v2: "pids.max" },
  memory: { v1: "memory.limit_in_bytes", v2: "memory.max" }
}

/** Make a child group with a limit; `null` when it cannot be made. @internal */
export const create = (controller: Controller, name: string, limit: number): Group | null => {
  const parent = parentOf(controller)
  if (parent === null) return null
  const dir = path.join(parent.dir, name)
  try {
    fs.mkdirSync(dir)
    fs.writeFileSync(path.join(dir, parent.v2 ? LIMIT_FILE[controller].v2 : LIMIT_FILE[controller].v1), String(limit))
    if (controller === "memory" && !parent.v2) {
      // Swap would let the tree grow past the limit; the file is absent without swap accounting.
      const memsw = path.join(dir, "memory.memsw.limit_in_bytes")
      if (fs.existsSync(memsw)) fs.writeFileSync(memsw, String(limit))
    }
    return { controller, dir }
  } catch {
    remove({ controller, dir })
    return null
  }
}

const pidsIn = (group: Group): ReadonlyArray<number> => {
  try {
    return fs.readFileSync(path.join(group.dir, "cgroup.procs"), "utf8").split("\n").filter((s) => s !== "").map(
      Number
    )
  } catch {
    return []
  }
}

/** Kill every process still in the group (a tree that outlived its call). @internal */
export const killAll = (group: Group): number => {
  let killed = 0
  for (let round = 0; round < 20; round++) {
    const pids = pidsIn(group)
    if (pids.length === 0) return killed
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL")
        killed++
      } catch {
        // gone already
      }
    }
  }
  return killed
}

/** Remove the group (after `killAll`); the kernel refuses while a process is still in it. @internal */
export const remove = (group: Group): boolean => {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      fs.rmdirSync(group.dir)
      return true
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === "ENOENT") return true
      if (code !== "EBUSY") return false
      killAll(group)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5)
    }
  }
  return false
}

/** Whether the group's limit was reached at least once (v1 `pids.events`/`memory.failcnt`). @internal */
export const limitHit = (group: Group): boolean => {
  try {
    if (group.controller === "pids") {
      return /max\s+[1-9]/.test(fs.readFileSync(path.join(group.dir, "pids.events"), "utf8"))
    }
    const failcnt = path.join(group.dir, "memory.failcnt")
    if (fs.existsSync(failcnt)) return Number(fs.readFileSync(failcnt, "utf8").trim()) > 0
    return /oom_kill\s+[1-9]/.test(fs.readFileSync(path.join(group.dir, "memory.events"), "utf8"))
  } catch {
    return false
  }
}

/** Put a process (every thread of it) into the group. @internal */
export const enter = (group: Group, pid: number): void =>
  fs.writeFileSync(path.join(group.dir, "cgroup.procs"), String(pid))

/** Put a process back into the group this process runs in (the groups' parent). @internal */
export const leave = (group: Group, pid: number): void =>
  fs.writeFileSync(path.join(path.dirname(group.dir), "cgroup.procs"), String(pid))
