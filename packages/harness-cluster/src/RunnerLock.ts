/**
 * `runner.lock`: at most one single runner per state directory. Two single runners on one
 * `cluster.sqlite` share one runner identity and break each other (issue 36, pitfall 7), so a
 * runner takes this lock before it starts and holds it while it runs. A live holder refuses a
 * second runner with `BUSY` naming its pid; a lock whose pid is dead, or that cannot be read (a
 * crash left it damaged), is stale and taken over.
 *
 * A pid alone can name another process after a reboot or once pids wrap, which would refuse every
 * runner until someone deleted the lock by hand. So on Linux the record also holds the boot id and
 * the process's start time (`/proc`); a live pid whose boot or start time differs is stale too.
 * Where `/proc` is absent the pid alone decides.
 *
 * Taking over a stale lock happens under a second, short-lived guard file (`runner.lock.takeover`),
 * so two takers that both judged it stale cannot both end up holding it.
 *
 * The lock is created whole: the record is written to a private file first and then hard-linked to
 * `runner.lock`, which fails when the name exists. So a live runner's lock is never half written,
 * and an unreadable lock is always garbage.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import { ClusterError } from "./ClusterError.js"

/**
 * The lock file's content.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LockRecord = Schema.Struct({
  pid: Schema.Number.pipe(Schema.int(), Schema.positive()),
  address: Schema.String,
  /** Tells this holder's lock from a later one at release. */
  token: Schema.String,
  /** The kernel's boot id when the lock was taken (Linux). */
  boot: Schema.optional(Schema.String),
  /** The holder's start time in clock ticks since boot (Linux `/proc/<pid>/stat`, field 22). */
  started: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type LockRecord = typeof LockRecord.Type

const decodeRecord = Schema.decodeUnknownEither(Schema.parseJson(LockRecord))

/**
 * The lock's file name inside the state directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const fileName = "runner.lock"

/**
 * The held lock.
 *
 * @since 0.1.0
 * @category tags
 */
export class RunnerLock extends Context.Tag("@steward/harness-cluster/RunnerLock")<RunnerLock, {
  readonly path: string
  readonly record: LockRecord
}>() {}

/** Whether a process with this pid exists (a signal-0 probe: `EPERM` means it exists under another user). */
const isAlive = (pid: number) =>
  Effect.sync(() => {
    try {
      process.kill(pid, 0)
      return true
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM"
    }
  })

/** What `/proc` says of the machine's boot and a process's start; `undefined` where it cannot say. */
const identity = (fs: FileSystem.FileSystem, pid: number) =>
  Effect.all({
    boot: fs.readFileString("/proc/sys/kernel/random/boot_id").pipe(
      Effect.map((text): string | undefined => text.trim()),
      Effect.orElseSucceed(() => undefined)
    ),
    // the command name (field 2) may hold spaces and parentheses: count fields after its last ")"
    started: fs.readFileString(`/proc/${pid}/stat`).pipe(
      Effect.map((text): string | undefined => text.slice(text.lastIndexOf(")") + 2).split(" ")[19]),
      Effect.orElseSucceed(() => undefined)
    )
  })

/** Whether the recorded holder is this live process: the pid lives, and its boot and start match where known. */
const holds = (fs: FileSystem.FileSystem, record: LockRecord) =>
  Effect.gen(function*() {
    if (!(yield* isAlive(record.pid))) return false
    const now = yield* identity(fs, record.pid)
    const same = (recorded: string | undefined, current: string | undefined) =>
      recorded === undefined || current === undefined || recorded === current
    return same(record.boot, now.boot) && same(record.started, now.started)
  })

const lockFailed = (path: string) => (cause: unknown) =>
  new ClusterError({ code: "LOCK_FAILED", message: `${path}: ${String(cause)}`, cause })

const reasonOf = (error: unknown) =>
  typeof error === "object" && error !== null && "reason" in error ? error.reason : undefined

/** What the attempt found: the lock is ours, or someone else's text to judge. */
type Attempt = { readonly _tag: "Held" } | { readonly _tag: "Taken"; readonly text: string | undefined }

const maxAttempts = 100

/**
 * Take `runner.lock` in `directory` for this process, advertising `address`. Released (removed if it
 * is still ours) when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const acquire = Effect.fn("RunnerLock.acquire")(function*(directory: string, address: string) {
  const fs = yield* FileSystem.FileSystem
  const path = (yield* Path.Path).join(directory, fileName)
  const failed = lockFailed(path)
  const token = `${process.pid}-${(yield* Random.nextInt).toString(36)}`
  const own = yield* identity(fs, process.pid)
  const record: LockRecord = {
    pid: process.pid,
    address,
    token,
    ...(own.boot === undefined ? {} : { boot: own.boot }),
    ...(own.started === undefined ? {} : { started: own.started })
  }
  const draft = `${path}.${token}.draft`

  const readOf = (file: string) =>
    fs.readFileString(file).pipe(
      Effect.map((text): string | undefined => text),
      Effect.catchIf((e) => reasonOf(e) === "NotFound", () => Effect.succeed(undefined)),
      Effect.mapError(failed)
    )
  const read = readOf(path)
  const attempt = fs.link(draft, path).pipe(
    Effect.as<Attempt>({ _tag: "Held" }),
    Effect.catchIf(
      (e) => reasonOf(e) === "AlreadyExists",
      () => Effect.map(read, (text): Attempt => ({ _tag: "Taken", text }))
    ),
    Effect.mapError(failed)
  )
  const guard = `${path}.takeover`
  /**
   * Remove a stale lock, one taker at a time: under the `runner.lock.takeover` guard (created whole,
   * like the lock), and only if the lock still holds the text judged stale. Without the guard, a
   * taker that judged a lock stale could remove the lock another taker has just created. A guard
   * whose taker died mid-takeover is itself stale and removed.
   */
  const takeOver = (seen: string) =>
    Effect.gen(function*() {
      const guarded = yield* fs.link(draft, guard).pipe(
        Effect.as(true),
        Effect.catchIf((e) => reasonOf(e) === "AlreadyExists", () => Effect.succeed(false)),
        Effect.mapError(failed)
      )
      if (!guarded) {
        const text = yield* readOf(guard)
        if (text === undefined) return
        const taker = decodeRecord(text)
        if (Either.isRight(taker) && (yield* holds(fs, taker.right))) return yield* Effect.sleep("10 millis")
        return yield* fs.remove(guard).pipe(
          Effect.catchIf((e) => reasonOf(e) === "NotFound", () => Effect.void),
          Effect.mapError(failed)
        )
      }
      yield* Effect.gen(function*() {
        if ((yield* read) === seen) yield* fs.remove(path).pipe(Effect.mapError(failed))
      }).pipe(Effect.ensuring(fs.remove(guard).pipe(Effect.ignore)))
    })

  const take = Effect.gen(function*() {
    yield* fs.makeDirectory(directory, { recursive: true }).pipe(Effect.mapError(failed))
    yield* fs.writeFileString(draft, JSON.stringify(record)).pipe(Effect.mapError(failed))
    for (let n = 0; n < maxAttempts; n++) {
      const result = yield* attempt
      if (result._tag === "Held") return
      if (result.text === undefined) continue
      const holder = decodeRecord(result.text)
      if (Either.isRight(holder) && (yield* holds(fs, holder.right))) {
        return yield* new ClusterError({
          code: "BUSY",
          pid: holder.right.pid,
          message:
            `${path}: a runner is already running here (pid ${holder.right.pid}, ${holder.right.address}); stop it first`
        })
      }
      yield* Effect.logWarning(`${path}: taking over a stale runner lock`).pipe(
        Effect.annotateLogs({ holder: Either.isRight(holder) ? holder.right.pid : "unreadable" })
      )
      yield* takeOver(result.text)
    }
    return yield* failed(`the lock kept changing hands over ${maxAttempts} attempts`)
  }).pipe(Effect.ensuring(fs.remove(draft).pipe(Effect.ignore)))

  const release = read.pipe(
    Effect.flatMap((text) => text === JSON.stringify(record) ? fs.remove(path) : Effect.void),
    Effect.ignore
  )
  yield* Effect.acquireRelease(take, () => release)
  return RunnerLock.of({ path, record })
})

/**
 * The lock as a layer: held for the layer's lifetime.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  directory: string,
  address: string
): Layer.Layer<RunnerLock, ClusterError, FileSystem.FileSystem | Path.Path> =>
  Layer.scoped(RunnerLock, acquire(directory, address))
