/**
 * What both ways of running a sandboxed command share on the host: finding tools, the runtime
 * directory and its read-only files, the environment a command inherits, the rlimits set before
 * bubblewrap starts and the control groups of one command.
 *
 * @internal
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as Sandbox from "../../Sandbox.js"
import type { Profile } from "../../SandboxProfile.js"
import { error } from "../../SandboxProfile.js"
import * as Cgroup from "./cgroup.js"

/** An executable on `PATH` (or the given path), or `null`. @internal */
export const which = (name: string): string | null => {
  if (name.includes("/")) return fs.existsSync(name) ? name : null
  for (const dir of (process.env["PATH"] ?? "/usr/bin:/bin").split(":")) {
    const candidate = path.join(dir, name)
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      return candidate
    } catch {
      // next
    }
  }
  return null
}

// Variables whose name says they hold a credential; the command does not inherit them.
const SECRET_ENV = /TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|API_?KEY|PRIVATE_KEY|ACCESS_KEY|SESSION_KEY|AUTH/i
const DROPPED_ENV = new Set(["SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "LD_PRELOAD"])

/** The environment a command gets from the one it was given. @internal */
export const environment = (given: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || SECRET_ENV.test(name) || DROPPED_ENV.has(name) || /_PROXY$/i.test(name)) continue
    env[name] = value
  }
  env["TMPDIR"] = "/tmp"
  return env
}

/** The runtime directory (made on first use) with its read-only empty directory. @internal */
export const runtimeOf = (options: Sandbox.LinuxOptions): string => {
  const dir = options.runtimeDir ?? path.join(os.tmpdir(), `steward-sandbox-${process.getuid?.() ?? "user"}`)
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const emptyDir = path.join(dir, "empty-dir")
  if (!fs.existsSync(emptyDir)) fs.mkdirSync(emptyDir, { mode: 0o555 })
  return dir
}

/** A read-only file holding `content` (masks and placeholders are bound from these). @internal */
export const fileWith = (runtime: string) => (content: string): string => {
  const file = path.join(runtime, `file-${crypto.createHash("sha256").update(content).digest("hex").slice(0, 16)}`)
  if (!fs.existsSync(file)) {
    const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}`
    fs.writeFileSync(temporary, content, { mode: 0o444 })
    fs.renameSync(temporary, file)
  }
  return file
}

/** Per-process rlimits, set by the shell that becomes bubblewrap (every process inherits them). @internal */
export const limitsOf = (profile: Profile, memoryByGroup: boolean): ReadonlyArray<string> => [
  `ulimit -t ${profile.limits.cpuSeconds}`,
  // dash and bash in POSIX mode count -f in 512-byte blocks
  `ulimit -f ${Math.ceil(profile.limits.fileSizeBytes / 512)}`,
  ...(memoryByGroup ? [] : [`ulimit -d ${Math.ceil(profile.limits.memoryBytes / 1024)}`])
]

/** The control groups of one command: the process limit (required unless `null`) and memory. @internal */
export const groupsFor = (profile: Profile, name: string): Array<Cgroup.Group> => {
  const groups: Array<Cgroup.Group> = []
  if (profile.limits.processes !== null) {
    const pids = Cgroup.create("pids", name, profile.limits.processes)
    if (pids === null) {
      throw error(
        "sandbox-unavailable",
        "no writable pids control group to enforce the process limit (as root RLIMIT_NPROC does not apply); " +
          "set limits.processes: null to run without one"
      )
    }
    groups.push(pids)
  }
  const memory = Cgroup.create("memory", name, profile.limits.memoryBytes)
  if (memory !== null) groups.push(memory)
  return groups
}
