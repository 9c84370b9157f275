/**
 * The read-only audit commands: `status`, `next`, `lint`, `metrics`, `dashboard`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as AuditError from "@steward/audit-state/AuditError"
import type * as AuditStore from "@steward/audit-state/AuditStore"
import * as Checked from "@steward/audit-state/Checked"
import * as Decision from "@steward/audit-state/Decision"
import * as Metrics from "@steward/audit-state/Metrics"
import * as Next from "@steward/audit-state/Next"
import * as Project from "@steward/audit-state/Project"
import * as State from "@steward/audit-state/State"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { NegativeResult } from "../../CliError.js"
import * as Output from "../../Output.js"
import * as DashboardPage from "./dashboardPage.js"
import * as Lease from "./lease.js"
import { nextStep } from "./nextSteps.js"
import { common, resolveProject } from "./options.js"
import { withStore } from "./store.js"

const today = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString().slice(0, 10))

export const statusPayload = (p: Project.ProjectPaths, store: AuditStore.AuditStoreShape) =>
  Effect.gen(function*() {
    const doc = yield* Checked.load(p, store)
    const config = yield* Project.readConfig(p)
    // the embargo reads the dispatch history (§4.3); the stream is only read when it is on
    const history = config.embargo === true ? yield* store.embargoHistory : []
    const decision = Decision.stateAndDecision(doc, config, history)
    return { doc, decision, status: Metrics.status(doc, decision, p.project, yield* today) }
  })

const metricsPayload = (p: Project.ProjectPaths, store: AuditStore.AuditStoreShape, doc: State.StateDoc) =>
  Effect.map(store.events, (events) => Metrics.metrics(doc, events, p.project))

const checked = <A>(value: A, schema: Metrics.OutputSchema, name: string) => {
  const out = Metrics.checkOutput(value, schema, name)
  return out instanceof AuditError.AuditError ? Effect.fail(out) : Effect.succeed(out)
}

export const status = Command.make("status", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const { status } = yield* statusPayload(p, store)
        const checkedStatus = yield* checked(status, Metrics.STATUS_SCHEMA, "status")
        // the lease a running `steward audit loop` holds (xcheck's `lock`; null when free)
        const held = yield* Lease.read(p)
        const ttl = yield* Lease.leaseTtl(p)
        const payload = {
          ...checkedStatus,
          lock: held._tag === "Held"
            ? {
              ...(held.owner ?? { owner: held.ownerText }),
              heartbeat_age_s: held.heartbeatAge ?? null,
              lease_ttl_s: ttl,
              state: Lease.provablyDead(held.owner) ? "STALE" : "LIVE"
            }
            : held._tag === "LegacyFile"
            ? { legacy_file: true, state: "LIVE" }
            : null
        }
        yield* Output.result(json, payload, (s) =>
          [
            `project: ${s.project} (xcheck ${s.xcheck_version} semantics)`,
            `state: schema ${s.schema_version}, revision ${s.state_revision}, head ${s.head_before ?? "unknown"}`,
            `passes: ${s.passes.done} done, ${s.passes.queued.length} queued [${s.passes.queued.join(", ")}]`,
            `findings: ${s.findings.total} total — ${
              Object.entries(s.findings.by_status).map(([k, v]) => `${k}:${v}`).join(" ")
            }`,
            `full sweep: ${
              s.full_sweep.last === null
                ? s.full_sweep.note
                : `${s.full_sweep.pass} on ${s.full_sweep.last} (${s.full_sweep.days} day(s) ago)`
            }`,
            ...(held._tag === "Free" ? [] : [`lock: ${Lease.describe(held, ttl)}`]),
            `decision: ${s.decision.kind} -> ${JSON.stringify(s.decision.detail)}`,
            Decision.describe({ kind: s.decision.kind, detail: s.decision.detail as Decision.Detail })
          ].join("\n"))
      }))
  })).pipe(Command.withDescription("Show the state, the passes, the findings and the decision"))

export const next = Command.make(
  "next",
  { ...common, dryRun: Options.boolean("dry-run").pipe(Options.withDescription("Print the decision; record nothing")) },
  ({ dryRun, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      yield* withStore(p, false, (store) =>
        Effect.gen(function*() {
          // remembered per revision while the views are unchanged (ADR 0141)
          const { decision, revision, sessionId } = yield* Next.decide(p, store)
          const rc = Decision.roleAndCharter(decision)
          const isGate = !decision.kind.startsWith("run-")
          // a gate is recorded either way (xcheck's `next --dry-run` appends gate_reached too)
          if (isGate) yield* store.recordGate(decision, { dryRun, known: { revision, sessionId } })
          const construal = decision.kind === "run-construal" ? (decision.detail as ReadonlyArray<string>) : undefined
          const out = {
            decision,
            message: Decision.describe(decision),
            state_revision: revision,
            session: rc !== undefined
              ? { role: rc.role, charter: rc.charter, construal_key: State.construalKey(rc.role, rc.charter) }
              : construal !== undefined
              ? {
                role: construal[0]!,
                charter: construal[1]!,
                construal_key: construal[2]!,
                prompt: Decision.construalPrompt(construal[0]!, construal[1]!, construal[3]!)
              }
              : null,
            dry_run: dryRun
          }
          yield* Output.result(json, out, (o) => {
            const step = nextStep(o.decision)
            const lines = [step.decision, step.message]
            if (o.session !== null && "prompt" in o.session) lines.push(String(o.session.prompt))
            if (step.session !== null) {
              lines.push(`=== ${step.session.role} session ===`, `charter: ${step.session.charter}`, ...step.commands)
            }
            if (o.dry_run) lines.push("dry-run: not executing.")
            return lines.join("\n")
          })
        }))
    })
).pipe(Command.withDescription("Decide what happens next (a session to dispatch, or a gate for a human)"))

export const lint = Command.make("lint", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const doc = yield* store.load
        const stream = yield* store.streamStatus
        const issues = [...(yield* Project.lint(p, doc))]
        if (stream.state !== "intact") {
          issues.push(`events: the stream is ${stream.state}${stream.detail ? ` (${stream.detail})` : ""}`)
        }
        yield* Output.result(json, { clean: issues.length === 0, issues }, (r) =>
          r.clean
            ? `steward audit lint: clean (${State.records(doc).length} record(s), ${stream.events} event(s))`
            : `steward audit lint: ${r.issues.length} issue(s)\n${r.issues.map((i) => `  - ${i}`).join("\n")}`)
        if (issues.length > 0) return yield* Effect.fail(new NegativeResult({ reason: "lint issues" }))
      }))
  })).pipe(Command.withDescription("Check state, views, referenced files, orphans, refusal prose and ruling tokens"))

export const metrics = Command.make("metrics", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const doc = yield* Checked.load(p, store)
        const payload = yield* checked(yield* metricsPayload(p, store, doc), Metrics.METRICS_SCHEMA, "metrics")
        yield* Output.result(json, payload, Metrics.renderMetrics)
      }))
  })).pipe(Command.withDescription("The eight health metrics (read-only; launches nothing, appends no event)"))

export const dashboard = Command.make("dashboard", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    const fs = yield* FileSystem.FileSystem
    yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const { doc, status } = yield* statusPayload(p, store)
        const s = yield* checked(status, Metrics.STATUS_SCHEMA, "status")
        const m = yield* checked(yield* metricsPayload(p, store, doc), Metrics.METRICS_SCHEMA, "metrics")
        const file = `${p.audit}/dashboard.html`
        // the same words as `next` (its decision function, read-only: no gate is recorded here)
        const step = nextStep({ kind: s.decision.kind, detail: s.decision.detail as Decision.Detail })
        yield* fs.writeFileString(file, DashboardPage.render(s, m, State.records(doc), step)).pipe(
          Effect.mapError((e) => AuditError.make("io", `${file}: ${e.message}`))
        )
        if (json) {
          yield* Console.log(
            JSON.stringify({ output_schema_version: s.output_schema_version, status: s, metrics: m }, null, 2)
          )
        } else yield* Console.log(`wrote ${file}`)
      }))
  })).pipe(Command.withDescription(
    "Write audit/dashboard.html (self-contained, no script): the next step, the independence warning, the findings, the metrics"
  ))
