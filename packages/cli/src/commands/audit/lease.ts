/**
 * The orchestrator's lease on a project, as xcheck keeps it (spec §5.1): `audit/.lock` is a
 * directory whose creation is the acquisition, holding `owner` (JSON: pid, role, started, host,
 * nonce) and `heartbeat` (epoch seconds). `steward audit loop` holds it while it runs sessions and
 * renews the heartbeat; write verbs from anyone else are refused while it is held; `unlock`
 * reclaims a lease whose heartbeat stopped longer than `lease_ttl` ago and never removes a live
 * one without `--force`.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Project from "@steward/audit-state/Project"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import * as os from "node:os"
import * as BoundedFile from "../../BoundedFile.js"
import { cannotRun, refused } from "../../CliError.js"

/** @internal */
export const Owner = Schema.Struct({
  pid: Schema.Int,
  role: Schema.String,
  started: Schema.String,
  host: Schema.String,
  nonce: Schema.String
})

/** @internal */
export type Owner = typeof Owner.Type

/**
 * What is on disk at `audit/.lock`.
 *
 * @internal
 */
export type Held =
  | { readonly _tag: "Free" }
  | { readonly _tag: "LegacyFile" }
  | {
    readonly _tag: "Held"
    /** `undefined`: the owner file is missing or unparseable. */
    readonly owner: Owner | undefined
    readonly ownerText: string
    /** Seconds since the last heartbeat; `undefined` when there is none. */
    readonly heartbeatAge: number | undefined
  }

/** The default `lease_ttl` (seconds) and its floor (spec §5.1). */
const DEFAULT_TTL = 300
const MIN_TTL = 30

/** `orchestrator.conf` is read as the audit store reads its own files (issue 16). */
const CONF_LIMITS: BoundedFile.Limits = { maxBytes: 64 * 1024 * 1024 }
/** The lease's `owner` (a JSON line) and `heartbeat` (a number): anything larger is not ours. */
const LOCK_FILE_LIMITS: BoundedFile.Limits = { maxBytes: 64 * 1024 }

/**
 * The text of `audit/orchestrator.conf` (empty when there is none), read boundedly: a FIFO or
 * device is refused unopened and the size is checked first, naming the file and the limit.
 *
 * @internal
 */
export const confText = (p: Project.ProjectPaths) =>
  BoundedFile.readText(p.conf, CONF_LIMITS).pipe(
    Effect.catchAll((e) => e.reason === "not-found" ? Effect.succeed("") : Effect.fail(BoundedFile.toFailure(e)))
  )

/** @internal */
export const lockDir = (p: Project.ProjectPaths): string => `${p.audit}/.lock`

const io = (what: string) => (e: { readonly message: string }) => cannotRun("io", `${what}: ${e.message}`)

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

/**
 * `lease_ttl` from `audit/orchestrator.conf` (default 300 s, at least 30 s).
 *
 * @internal
 */
export const leaseTtl = (p: Project.ProjectPaths) =>
  Effect.gen(function*() {
    const text = yield* confText(p)
    const line = text.split(/\r?\n/).map((l) => l.replace(/#.*$/, "").trim()).find((l) => /^lease_ttl\s*[=:]/.test(l))
    if (line === undefined) return DEFAULT_TTL
    const value = line.replace(/^lease_ttl\s*[=:]\s*/, "")
    if (!/^[0-9]+$/.test(value)) {
      return yield* cannotRun(
        "invalid-input",
        `orchestrator.conf: lease_ttl must be a whole number of seconds, found '${value}'`
      )
    }
    return Math.max(MIN_TTL, Number(value))
  })

/**
 * Read the lock.
 *
 * @internal
 */
export const read = (p: Project.ProjectPaths) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = lockDir(p)
    const info = yield* fs.stat(dir).pipe(Effect.option)
    if (info._tag === "None") return { _tag: "Free" } as Held
    if (info.value.type !== "Directory") return { _tag: "LegacyFile" } as Held
    // a lock file that cannot be read (missing, or refused unopened: a FIFO, too large) reads as absent
    const ownerText = yield* BoundedFile.readText(`${dir}/owner`, LOCK_FILE_LIMITS).pipe(Effect.orElseSucceed(() => ""))
    const owner = yield* Schema.decodeUnknown(Schema.parseJson(Owner))(ownerText).pipe(
      Effect.map((o): Owner | undefined => o),
      Effect.orElseSucceed(() => undefined)
    )
    const beat = yield* BoundedFile.readText(`${dir}/heartbeat`, LOCK_FILE_LIMITS).pipe(Effect.option)
    const now = yield* nowSeconds
    const seconds = beat._tag === "Some" && /^\d+$/.test(beat.value.trim()) ? Number(beat.value.trim()) : undefined
    return {
      _tag: "Held",
      owner,
      ownerText: ownerText.trim(),
      heartbeatAge: seconds === undefined ? undefined : Math.max(0, now - seconds)
    } as Held
  })

/**
 * Whether the owner is provably dead: same host, an integer pid, and no such process.
 *
 * @internal
 */
export const provablyDead = (owner: Owner | undefined): boolean => {
  if (owner === undefined || owner.host !== os.hostname()) return false
  try {
    process.kill(owner.pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH"
  }
}

/**
 * One line saying who holds the lock and how it stands.
 *
 * @internal
 */
export const describe = (held: Held, ttl: number): string => {
  if (held._tag === "Free") return "no lock present"
  if (held._tag === "LegacyFile") return "audit/.lock is a legacy lock file (not a lease directory)"
  const who = held.owner === undefined
    ? `an unreadable owner (${held.ownerText === "" ? "no owner file" : held.ownerText})`
    : `${held.owner.role} (pid ${held.owner.pid} on ${held.owner.host}, since ${held.owner.started})`
  const state = provablyDead(held.owner) ? "STALE (pid dead)" : "LIVE or unverifiable"
  const beat = held.heartbeatAge === undefined
    ? "no heartbeat"
    : `heartbeat ${held.heartbeatAge}s ago (lease_ttl ${ttl}s)`
  return `audit/.lock is held — ${state}: ${who}; ${beat}`
}

/**
 * Refuse a write while someone else holds the lease (`nonce`: the caller's own lease).
 *
 * @internal
 */
export const refuseIfHeld = (p: Project.ProjectPaths, nonce?: string) =>
  Effect.gen(function*() {
    const held = yield* read(p)
    if (held._tag === "Free") return
    if (held._tag === "Held" && nonce !== undefined && held.owner?.nonce === nonce) return
    const ttl = yield* leaseTtl(p)
    return yield* refused(
      "refused",
      `${describe(held, ttl)}. Nothing was written: wait for the running \`steward audit loop\` to finish, ` +
        "or, if it crashed, run `steward audit unlock` (reclaims a lease whose heartbeat stopped)"
    )
  })

/**
 * Acquire the lease for `role` (fails `refused` naming the holder). Returns the nonce.
 *
 * @internal
 */
export const acquire = (p: Project.ProjectPaths, role: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = lockDir(p)
    const made = yield* fs.makeDirectory(dir).pipe(
      Effect.as(true),
      Effect.catchIf(
        (e) => e._tag === "SystemError" && e.reason === "AlreadyExists",
        () => Effect.succeed(false)
      ),
      Effect.mapError(io(`cannot acquire ${dir}`))
    )
    if (!made) {
      const held = yield* read(p)
      return yield* refused(
        "refused",
        `${describe(held, yield* leaseTtl(p))}; run \`steward audit unlock\` if it crashed`
      )
    }
    const nonce = randomBytes(8).toString("hex")
    const started = new Date(yield* Clock.currentTimeMillis).toISOString().slice(0, 19) + "+00:00"
    const owner: Owner = { pid: process.pid, role, started, host: os.hostname(), nonce }
    yield* fs.writeFileString(`${dir}/owner`, JSON.stringify(owner) + "\n").pipe(
      Effect.zipRight(beat(p)),
      Effect.tapError(() => fs.remove(dir, { recursive: true }).pipe(Effect.ignore)),
      Effect.mapError((e) => "message" in e ? io(dir)(e) : e)
    )
    return nonce
  })

/**
 * Renew the heartbeat.
 *
 * @internal
 */
export const beat = (p: Project.ProjectPaths) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    yield* fs.writeFileString(`${lockDir(p)}/heartbeat`, `${yield* nowSeconds}\n`).pipe(
      Effect.mapError(io(`${lockDir(p)}/heartbeat`))
    )
  })

/**
 * Release the lease, only when it is still ours (owner-checked, as xcheck's).
 *
 * @internal
 */
export const release = (p: Project.ProjectPaths, nonce: string) =>
  Effect.gen(function*() {
    const held = yield* read(p)
    if (held._tag !== "Held" || held.owner?.nonce !== nonce) return
    yield* remove(p)
  }).pipe(Effect.ignore)

/**
 * Remove the lock directory unconditionally.
 *
 * @internal
 */
export const remove = (p: Project.ProjectPaths) =>
  Effect.flatMap(
    FileSystem.FileSystem,
    (fs) => fs.remove(lockDir(p), { recursive: true }).pipe(Effect.mapError(io(`cannot remove ${lockDir(p)}`)))
  )

/**
 * What `unlock` does with what it finds: `Free`, `Reclaim` (heartbeat older than the TTL),
 * `Force` (with `--force`), or `Refuse` with the reason.
 *
 * @internal
 */
export const unlockVerdict = (
  held: Held,
  ttl: number,
  force: boolean
): { readonly _tag: "Free" | "Reclaim" | "Force" } | { readonly _tag: "Refuse"; readonly reason: string } => {
  if (held._tag === "Free") return { _tag: "Free" }
  if (force) return { _tag: "Force" }
  if (held._tag === "LegacyFile") {
    return { _tag: "Refuse", reason: `${describe(held, ttl)}; non-force unlock never removes it — use --force` }
  }
  if (held.heartbeatAge !== undefined && held.heartbeatAge > ttl) return { _tag: "Reclaim" }
  const why = provablyDead(held.owner)
    ? "its owner's process is gone but the lease has not expired (a session it started may still be writing); " +
      "non-force `unlock` no longer removes it before lease_ttl — wait, or use --force"
    : "the lease is live or cannot be shown dead; non-force unlock never removes it — use --force only if you " +
      "know its owner is gone"
  return { _tag: "Refuse", reason: `${describe(held, ttl)}: ${why}` }
}

/**
 * The file `steward audit cancel` writes inside the lock: the loop stops its running session.
 *
 * @internal
 */
export const cancelFile = (p: Project.ProjectPaths): string => `${lockDir(p)}/cancel`

/**
 * Completes once a cancel has been requested (polled, as xcheck's orchestrator does).
 *
 * @internal
 */
export const cancelRequested = (p: Project.ProjectPaths): Effect.Effect<void, never, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    fs.exists(cancelFile(p)).pipe(
      Effect.orElseSucceed(() => false),
      Effect.repeat({ until: (found) => found, schedule: Schedule.spaced("250 millis") }),
      Effect.asVoid
    ))

/**
 * Ask the running loop to cancel its session (`audit/.lock/cancel`, an ISO timestamp). Refused when
 * no lease is held: there is no session to cancel.
 *
 * @internal
 */
export const requestCancel = (p: Project.ProjectPaths) =>
  Effect.gen(function*() {
    const held = yield* read(p)
    if (held._tag !== "Held") return yield* refused("refused", "no lock present — no session to cancel")
    const fs = yield* FileSystem.FileSystem
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* fs.writeFileString(cancelFile(p), `${at}\n`).pipe(Effect.mapError(io(cancelFile(p))))
    return held
  })
