/**
 * The bubblewrap probe's result, remembered per state directory (issue 38 item 4): a trial
 * bubblewrap run costs a process spawn at every CLI start. The result is reused only while what it
 * depends on is unchanged — the bwrap binary (real path, device, inode, size, modification and
 * change times), the kernel release, the user, and the user-namespace settings — and is otherwise
 * probed again; only a success is kept. It fails closed: a record that is missing, unreadable, too large, not a regular
 * file, of another shape or of another key is ignored, and a record that cannot be written is not
 * (the probe's answer stands). A stale "available" can only make a run fail, never run it outside
 * a sandbox.
 *
 * @internal
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as Sandbox from "../../Sandbox.js"
import * as BoundedRead from "../boundedRead.js"

const FILE = "bwrap-probe.json"
const MAX_BYTES = 16 * 1024

// Settings a trial's outcome depends on besides the binary (absent files read as "").
const USERNS_SETTINGS = [
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
]

const Availability = Schema.Union(
  Schema.Struct({
    available: Schema.Literal(true),
    backend: Schema.Literal("bubblewrap"),
    detail: Schema.String
  }),
  Schema.Struct({ available: Schema.Literal(false), reason: Schema.String })
)

const Record_ = Schema.Struct({ key: Schema.String, availability: Availability })
const decodeRecord = Schema.decodeUnknownOption(Schema.parseJson(Record_))

const settings = (): string =>
  USERNS_SETTINGS.map((file) => {
    try {
      return fs.readFileSync(file, "utf8").trim()
    } catch {
      return ""
    }
  }).join(",")

/** What the probe's outcome depends on, or null when the binary cannot be looked at. @internal */
export const keyOf = (bwrap: string): string | null => {
  try {
    const real = fs.realpathSync(bwrap)
    const s = fs.statSync(real)
    const uid = typeof process.getuid === "function" ? process.getuid() : -1
    return JSON.stringify([real, s.dev, s.ino, s.size, s.mtimeMs, s.ctimeMs, os.release(), uid, settings()])
  } catch {
    return null
  }
}

/** The remembered availability for `key`, or null. @internal */
export const read = (dir: string, key: string): Sandbox.Availability | null => {
  const file = BoundedRead.read(path.join(dir, FILE), MAX_BYTES)
  if (file._tag !== "bytes") return null
  const record = decodeRecord(Buffer.from(file.bytes).toString("utf8"))
  return Option.isSome(record) && record.value.key === key ? record.value.availability : null
}

/** Remember an availability for `key` (atomically; a failure leaves nothing behind). @internal */
export const write = (dir: string, key: string, availability: Sandbox.Availability): void => {
  // only a success is kept: a failure (a timeout, a transient limit) is probed again next time
  if (!availability.available || availability.backend !== "bubblewrap") return
  const target = path.join(dir, FILE)
  const temporary = `${target}.${process.pid}.tmp`
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    fs.writeFileSync(temporary, JSON.stringify({ key, availability }), { mode: 0o600 })
    fs.renameSync(temporary, target)
  } catch {
    try {
      fs.rmSync(temporary, { force: true })
    } catch {
      // nothing to clean
    }
  }
}
