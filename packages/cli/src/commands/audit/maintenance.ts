/**
 * Keeping a project's audit state healthy: `unlock` (clear a stale lease, refusing a live one),
 * `recover` (diagnose after a crash, and with `--apply` repair what a crash leaves behind) and
 * `doctor` (a preflight of everything `next` and `loop` need).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as AuditStore from "@steward/audit-state/AuditStore"
import * as Project from "@steward/audit-state/Project"
import * as State from "@steward/audit-state/State"
import * as Views from "@steward/audit-state/Views"
import * as Effect from "effect/Effect"
import { NegativeResult, refused } from "../../CliError.js"
import * as HostSql from "../../HostSql.js"
import * as Output from "../../Output.js"
import * as Lease from "./lease.js"
import { common, resolveProject } from "./options.js"
import { withStore } from "./store.js"

/** The executable recorded on the dispatches `steward audit loop` opens. */
export const LOOP_EXECUTABLE = "steward-audit-loop"

// ---------------------------------------------------------------------------------------------
// unlock

/** @internal */
export const unlock = Command.make(
  "unlock",
  {
    ...common,
    force: Options.boolean("force").pipe(Options.withDescription("Remove the lock whatever its state"))
  },
  ({ force, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      const held = yield* Lease.read(p)
      const ttl = yield* Lease.leaseTtl(p)
      const verdict = Lease.unlockVerdict(held, ttl, force)
      if (verdict._tag === "Refuse") return yield* refused("refused", verdict.reason)
      if (verdict._tag !== "Free") yield* Lease.remove(p)
      const age = held._tag === "Held" ? held.heartbeatAge : undefined
      const message = verdict._tag === "Free"
        ? "no lock present"
        : verdict._tag === "Reclaim"
        ? `lock reclaimed: its lease heartbeat stopped ${age}s ago (lease_ttl ${ttl}s); was ${
          Lease.describe(held, ttl)
        }`
        : `lock removed (--force); was ${Lease.describe(held, ttl)}`
      yield* Output.result(json, { action: verdict._tag.toLowerCase(), message }, (r) => r.message)
    })
).pipe(Command.withDescription("Clear a stale audit/.lock lease (a live one only with --force)"))

// ---------------------------------------------------------------------------------------------
// cancel

/**
 * `steward audit cancel`: stop the running loop's session (its group gets SIGTERM, the grace,
 * SIGKILL; the session ends `cancelled`, its changes are quarantined and undone).
 *
 * @since 0.1.0
 * @category commands
 */
export const cancel = Command.make("cancel", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    const held = yield* Lease.requestCancel(p)
    const ttl = yield* Lease.leaseTtl(p)
    yield* Output.result(
      json,
      { action: "cancel", message: `cancel requested; ${Lease.describe(held, ttl)}` },
      (r) => r.message
    )
  })).pipe(Command.withDescription("Cancel the session a running `steward audit loop` dispatched"))

// ---------------------------------------------------------------------------------------------
// recover

interface Finding {
  readonly check: string
  readonly ok: boolean
  readonly detail: string
  /** What `--apply` did (or would do) about it. */
  readonly repair?: string | undefined
}

/** `*.tmp` files a render interrupted mid-way leaves beside the views. */
const tmpLeftovers = (p: Project.ProjectPaths) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const out: Array<string> = []
    for (const dir of ["", "findings", "passes", "plans", "construals"]) {
      const at = dir === "" ? p.audit : `${p.audit}/${dir}`
      const names = yield* fs.readDirectory(at).pipe(Effect.orElseSucceed(() => [] as Array<string>))
      for (const name of names) if (name.endsWith(".tmp")) out.push(dir === "" ? name : `${dir}/${name}`)
    }
    return out.sort()
  })

const integrity = (p: Project.ProjectPaths) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.unsafe<{ readonly integrity_check: string }>("PRAGMA integrity_check")
    return rows.map((r) => r.integrity_check)
  }).pipe(
    Effect.provide(HostSql.layerFile(p.database)),
    Effect.catchAll((e) => Effect.succeed([`cannot check: ${e.message}`]))
  )

const diagnose = (p: Project.ProjectPaths, store: AuditStore.AuditStoreShape, apply: boolean) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const out: Array<Finding> = []
    const checks = yield* integrity(p)
    out.push({
      check: "database",
      ok: checks.length === 1 && checks[0] === "ok",
      detail: checks.length === 1 && checks[0] === "ok" ? `${p.database}: integrity ok` : checks.join("; ")
    })
    const stream = yield* store.streamStatus
    out.push({
      check: "events",
      ok: stream.state === "intact",
      detail: stream.state === "intact"
        ? `the event stream is intact (${stream.events} event(s), head ${stream.head.slice(0, 16)})`
        : `the event stream is ${stream.state}${stream.detail ? ` (${stream.detail})` : ""}: it cannot be repaired ` +
          "in place — re-import an exported state.json + events.jsonl (`steward audit import-state`)"
    })
    const ttl = yield* Lease.leaseTtl(p)
    const held = yield* Lease.read(p)
    const stale = held._tag === "Held" && held.heartbeatAge !== undefined && held.heartbeatAge > ttl
    if (stale && apply) yield* Lease.remove(p)
    out.push({
      check: "lease",
      ok: held._tag === "Free" || !stale,
      detail: Lease.describe(held, ttl),
      repair: stale ? "reclaim the expired lease" : undefined
    })
    const lockFree = held._tag === "Free" || stale
    const doc = yield* store.load
    const open = State.openDispatch(doc)
    const orphan = open !== undefined && open.executable === LOOP_EXECUTABLE && lockFree
    if (orphan && apply) {
      yield* store.finishDispatch({
        sessionId: open.session_id,
        outcome: "crash",
        note: "abandoned: the steward audit loop that ran this session ended before finishing it (recovered)"
      })
    }
    out.push({
      check: "dispatch",
      ok: open === undefined || !orphan,
      detail: open === undefined
        ? "no dispatch is open"
        : `dispatch ${open.session_id} (${open.role}, ${open.executable}) is open${
          orphan
            ? " and the loop that opened it holds no lease"
            : open.executable === LOOP_EXECUTABLE
            ? " under a live loop"
            : " — an external session; finish it with `steward audit dispatch finish --outcome crash` if it is gone"
        }`,
      repair: orphan ? "finish the abandoned dispatch as outcome crash" : undefined
    })
    const now = yield* store.load
    const drifts = yield* Project.verifyViews(p, now)
    if (drifts.length > 0 && apply) yield* Project.renderViews(p, now)
    out.push({
      check: "views",
      ok: drifts.length === 0,
      detail: drifts.length === 0
        ? "LEDGER.md and every frontmatter block match the state"
        : Views.driftMessage(drifts).split("\n").slice(0, -1).join("\n"),
      repair: drifts.length > 0 ? "re-render the views from state (a render a crash interrupted)" : undefined
    })
    const tmp = yield* tmpLeftovers(p)
    if (tmp.length > 0 && apply) {
      for (const f of tmp) yield* fs.remove(`${p.audit}/${f}`).pipe(Effect.ignore)
    }
    out.push({
      check: "leftovers",
      ok: tmp.length === 0,
      detail: tmp.length === 0 ? "no half-written view files" : `half-written view files: ${tmp.join(", ")}`,
      repair: tmp.length > 0 ? "delete the half-written files" : undefined
    })
    return out
  })

const renderFindings = (findings: ReadonlyArray<Finding>, apply: boolean): string =>
  findings.map((f) => {
    const mark = f.ok ? "ok  " : f.repair !== undefined ? (apply ? "done" : "fix ") : "FAIL"
    const repair = f.repair === undefined || f.ok ? "" : apply ? ` [repaired: ${f.repair}]` : ` [--apply: ${f.repair}]`
    return `${mark} ${f.check}: ${f.detail.split("\n").join("\n       ")}${repair}`
  }).join("\n")

/** @internal */
export const recover = Command.make(
  "recover",
  {
    ...common,
    apply: Options.boolean("apply").pipe(Options.withDescription("Repair what can be repaired (default: report)"))
  },
  ({ apply, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      yield* withStore(p, false, (store) =>
        Effect.gen(function*() {
          const found = yield* diagnose(p, store, apply)
          // after --apply, what was repaired counts as healthy; what cannot be repaired does not
          const healthy = found.every((f) => f.ok || (apply && f.repair !== undefined))
          yield* Output.result(json, { applied: apply, healthy, checks: found }, (r) =>
            [
              renderFindings(r.checks, apply),
              r.healthy
                ? apply ? "recovered: the project is consistent" : "nothing to recover"
                : found.some((f) => !f.ok && f.repair === undefined)
                ? "not recoverable in place: see the FAIL lines"
                : "run `steward audit recover --apply` to repair the lines marked fix"
            ].join("\n"))
          if (!healthy) return yield* new NegativeResult({ reason: "recover found problems" })
        }))
    })
).pipe(Command.withDescription("Diagnose the store after a crash; --apply repairs leases, dispatches, views"))

// ---------------------------------------------------------------------------------------------
// doctor

interface Check {
  readonly name: string
  readonly status: "ok" | "warn" | "fail"
  readonly detail: string
}

const preflight = (p: Project.ProjectPaths) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const checks: Array<Check> = []
    const add = (name: string, status: Check["status"], detail: string) => checks.push({ name, status, detail })
    const isDir = (d: string) =>
      fs.stat(d).pipe(Effect.map((i) => i.type === "Directory"), Effect.orElseSucceed(() => false))
    if (!(yield* isDir(p.project))) {
      add("project", "fail", `${p.project} is not a directory`)
      return checks
    }
    add("project", "ok", p.project)
    const head = Project.subjectHead(p.project)
    add(
      "subject",
      head === undefined ? "warn" : "ok",
      head === undefined
        ? "not a git repository with a commit: file-finding cannot resolve locators against a subject commit"
        : `git HEAD ${head}`
    )
    if (!(yield* fs.exists(p.database).pipe(Effect.orElseSucceed(() => false)))) {
      add(
        "state",
        "fail",
        `no audit state at ${p.database}: run \`steward audit init\`, \`steward audit migrate\` (a Markdown ` +
          "audit) or `steward audit import-state FILE` (xcheck's state.json)"
      )
      return checks
    }
    const conf = yield* Project.readConfig(p).pipe(Effect.either)
    add(
      "config",
      conf._tag === "Right" ? "ok" : "fail",
      conf._tag === "Right" ? `${p.conf} (or its defaults) reads` : conf.left.message
    )
    const ttl = yield* Lease.leaseTtl(p).pipe(Effect.orElseSucceed(() => 300))
    const held = yield* Lease.read(p)
    add("lease", held._tag === "Free" ? "ok" : "warn", Lease.describe(held, ttl))
    const opened = yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const doc = yield* store.load
        add(
          "database",
          "ok",
          `${p.database} opens and migrates; schema ${doc.schema_version}, revision ${doc.state_revision}`
        )
        const stream = yield* store.streamStatus
        add(
          "events",
          stream.state === "intact" ? "ok" : "fail",
          `the event stream is ${stream.state} (${stream.events} event(s))${stream.detail ? `: ${stream.detail}` : ""}`
        )
        const drifts = yield* Project.verifyViews(p, doc)
        add(
          "views",
          drifts.length === 0 ? "ok" : "fail",
          drifts.length === 0
            ? "LEDGER.md and the frontmatter blocks match the state"
            : `${drifts.length} view(s) drifted: \`steward audit render-views\` repairs them`
        )
        const issues = yield* Project.lint(p, doc).pipe(Effect.orElseSucceed(() => [] as ReadonlyArray<string>))
        add(
          "lint",
          issues.length === 0 ? "ok" : "warn",
          issues.length === 0 ? "clean" : `${issues.length} issue(s): \`steward audit lint\` lists them`
        )
        const open = State.openDispatch(doc)
        add(
          "dispatch",
          open === undefined || held._tag !== "Free" || open.executable !== LOOP_EXECUTABLE ? "ok" : "warn",
          open === undefined
            ? "no dispatch is open"
            : `dispatch ${open.session_id} (${open.role}) is open${
              held._tag === "Free" && open.executable === LOOP_EXECUTABLE
                ? " with no loop holding the lease: `steward audit recover --apply` finishes it"
                : ""
            }`
        )
      })).pipe(Effect.either)
    if (opened._tag === "Left") add("database", "fail", opened.left.message)
    return checks
  })

/** @internal */
export const doctor = Command.make("doctor", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    const checks = yield* preflight(p)
    const ok = checks.every((c) => c.status !== "fail")
    yield* Output.result(json, { ok, project: p.project, checks }, (r) =>
      [
        ...r.checks.map((c) =>
          `${c.status === "ok" ? "ok  " : c.status === "warn" ? "warn" : "FAIL"} ${c.name}: ${c.detail}`
        ),
        r.ok ? "the audit is ready for `steward audit next` / `loop`" : "fix the FAIL lines first"
      ].join("\n"))
    if (!ok) return yield* new NegativeResult({ reason: "audit doctor found failures" })
  })).pipe(Command.withDescription("Check the project, subject, store, events, views, lease and config for the loop"))
