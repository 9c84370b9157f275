/**
 * Replays one corpus sequence the way the CLI runs it — drift check, one transaction, views
 * re-rendered — over the library (an in-memory store per sequence, a real project directory),
 * and records Steward's outcome at every step beside xcheck's.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as AuditError from "../../src/AuditError.js"
import * as AuditStore from "../../src/AuditStore.js"
import * as Decision from "../../src/Decision.js"
import type * as Events from "../../src/Events.js"
import * as Metrics from "../../src/Metrics.js"
import * as Project from "../../src/Project.js"
import * as State from "../../src/State.js"
import { parse, type Parsed, toRequest } from "./argv.js"
import type { Expect, FileOp, Sequence, Step } from "./corpus.js"
import { digest, mask } from "./mask.js"

export interface Observed {
  readonly accepted: boolean
  readonly message: string
  readonly next: unknown
  readonly lint: { readonly clean: boolean; readonly subjects: ReadonlyArray<string> } | null
  readonly state: string | null
  readonly stateDoc: unknown
  /** Event kinds this step appended. */
  readonly events: ReadonlyArray<Events.AuditEvent>
  readonly viewsClean: boolean
}

export interface StepResult {
  readonly index: number
  readonly step: Step
  readonly observed: Observed
}

export interface SequenceRun {
  readonly sequence: Sequence
  readonly steps: ReadonlyArray<StepResult>
  readonly skipped?: { readonly at: number; readonly reason: string } | undefined
  readonly metricsIssues: ReadonlyArray<string>
}

let template: string | undefined
/** A git repository holding the subject (`src/core.py` committed as the README prescribes). */
const subjectTemplate = (files: Readonly<Record<string, string>>): string => {
  if (template !== undefined) return template
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "xcheck-subject-"))
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    fs.writeFileSync(path.join(dir, rel), text)
  }
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@t",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@t",
    GIT_AUTHOR_DATE: "2026-01-01T00:00:00+00:00",
    GIT_COMMITTER_DATE: "2026-01-01T00:00:00+00:00"
  }
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: dir, env, stdio: "pipe" })
  git("init", "-q")
  git("add", ...Object.keys(files))
  git("-c", "commit.gpgsign=false", "commit", "-q", "-m", "subject")
  template = dir
  return dir
}

const LINT_SUBJECTS = /\b(?:CF|F)-\d{4}\b|\bRP-\d{4}\b|\bP-\d{2}\b|[\w./-]+\.md\b|\b[0-9a-f]{16}\b/g

const applyFile = (project: string, op: FileOp) => {
  const file = path.join(project, op.path)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  if (op.op === "write") fs.writeFileSync(file, op.text)
  else if (op.op === "append") fs.appendFileSync(file, op.text)
  else if (op.op === "replace") {
    let text = fs.readFileSync(file, "utf8")
    for (let k = 0; k < op.count; k++) text = text.replace(op.old, op.new)
    fs.writeFileSync(file, text)
  }
}

const messageOf = (e: unknown): string =>
  e instanceof AuditError.AuditError ? e.message : e instanceof Error ? e.message : String(e)

/** Run `seq` from its setup to its last (or first skipped) step. */
export const runSequence = (seq: Sequence) =>
  Effect.gen(function*() {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "xcheck-conf-"))
    const project = path.join(root, "project")
    const input = path.join(root, "input")
    fs.cpSync(subjectTemplate(seq.setup.git.files), project, { recursive: true })
    fs.mkdirSync(input)
    const p = Project.paths(project)
    const store = yield* AuditStore.AuditStore
    let hasState = false
    const today = yield* Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString().slice(0, 10))
    const subject = Project.workingTreeSubject(project)

    const importFile = (file: string) =>
      Effect.gen(function*() {
        const bytes = fs.readFileSync(file)
        const text = yield* Effect.try({
          try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
          catch: () => AuditError.make("invalid-state", `${file}: not valid UTF-8`)
        })
        const doc = yield* State.decodeText(text, file)
        const outside = Project.pathsOutsideAudit(p, doc)
        if (outside.length > 0) {
          return yield* Effect.fail(
            AuditError.make("invalid-input", `${file}: path(s) outside ${p.audit}: ${outside.join(", ")}`)
          )
        }
        fs.mkdirSync(p.audit, { recursive: true })
        yield* store.importState(text)
        hasState = true
        yield* Project.renderViews(p, yield* store.load)
        return "imported"
      })

    // setup
    if (seq.start === "shared") {
      const doc = yield* store.init("tests")
      hasState = true
      for (const d of ["findings", "passes", "plans", "construals"]) {
        fs.mkdirSync(path.join(p.audit, d), { recursive: true })
      }
      yield* Project.renderViews(p, doc)
    } else if (seq.start === "fresh") {
      for (const d of seq.setup.init?.mkdirs ?? []) fs.mkdirSync(path.join(p.audit, d), { recursive: true })
      for (const [name, text] of Object.entries(seq.setup.init?.input ?? {})) {
        fs.writeFileSync(path.join(input, name), text)
      }
      yield* importFile(path.join(input, "state.json"))
    }

    const loadChecked = Effect.gen(function*() {
      const doc = yield* store.load
      yield* Project.refuseOnDrift(p, doc)
      return doc
    })

    const runStep = (parsed: Parsed): Effect.Effect<string, unknown, FileSystem.FileSystem | Path.Path> => {
      switch (parsed.command) {
        case "render-views":
          return Effect.map(
            Effect.flatMap(store.load, (doc) => Project.renderViews(p, doc)),
            () => "rendered"
          )
        case "dispatch open": {
          const o = parsed.options
          return Effect.gen(function*() {
            yield* loadChecked
            const a = yield* store.openDispatch({
              role: o.role!,
              executable: o.executable!,
              charter: o.charter!,
              prompt: o.prompt ?? "",
              agentModel: o.model,
              provider: o.provider,
              sessionId: o.session,
              sandboxProfile: o["sandbox-profile"],
              headBefore: o["head-before"]
            })
            return a.message
          })
        }
        case "dispatch finish": {
          const o = parsed.options
          return Effect.gen(function*() {
            yield* loadChecked
            const a = yield* store.finishDispatch({
              sessionId: o.session,
              outcome: o.outcome!,
              exitStatus: o["exit-status"] === undefined ? undefined : Number(o["exit-status"]),
              durationS: o.duration === undefined ? undefined : Number(o.duration),
              headAfter: o["head-after"],
              logDigest: o["log-digest"]
            })
            return a.message
          })
        }
        case "next":
          return Effect.gen(function*() {
            const decision = yield* decide
            if (!decision.kind.startsWith("run-")) {
              yield* store.recordGate(decision, { dryRun: parsed.flags.has("dry-run") })
            }
            return JSON.stringify(decision)
          })
        case "import-state":
          return importFile(parsed.positionals[0]!)
        default:
          return Effect.gen(function*() {
            const doc = yield* store.load
            let bodyText: string | undefined
            if (parsed.command === "record-refusal") {
              const rel = State.records(doc).find((r) => r.id === parsed.positionals[0])?.body_path
              const file = rel === undefined ? undefined : path.join(p.audit, rel)
              bodyText = file !== undefined && fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined
            }
            const config = yield* Project.readConfig(p)
            const applied = yield* store.apply(toRequest(parsed, bodyText), {
              subject,
              headBefore: Project.subjectHead(project),
              policy: config.verbPolicy,
              guard: (d) =>
                Effect.provide(
                  Project.refuseOnDrift(
                    p,
                    d,
                    new Set([
                      parsed.positionals[0] ?? parsed.options.id ?? "",
                      ...(parsed.options.members ?? "").split(",")
                    ])
                  ),
                  NodeContext.layer
                )
            })
            yield* Project.renderViews(p, applied.doc, Project.changedRecords(doc, applied.doc))
            return applied.message
          })
      }
    }

    const decide = Effect.gen(function*() {
      const doc = yield* loadChecked
      const config = yield* Project.readConfig(p)
      const history = config.embargo === true ? yield* store.embargoHistory : []
      return Decision.stateAndDecision(doc, config, history)
    })

    const observe = (accepted: boolean, message: string, before: number, isNext: boolean) =>
      Effect.gen(function*() {
        if (!hasState) {
          return {
            accepted,
            message,
            next: null,
            lint: null,
            state: null,
            stateDoc: null,
            events: [],
            viewsClean: true
          }
        }
        const next = isNext
          ? JSON.parse(message)
          : yield* Effect.match(decide, {
            onFailure: (e) => ({ error: messageOf(e) }),
            onSuccess: (d) => ({ kind: d.kind, detail: d.detail })
          })
        const doc = yield* store.load
        const issues = [...(yield* Project.lint(p, doc))]
        const stream = yield* store.streamStatus
        if (stream.state !== "intact") issues.push(`events: the stream is ${stream.state}`)
        const subjects = [...new Set(issues.join("\n").match(LINT_SUBJECTS) ?? [])].sort()
        const masked = mask(JSON.parse(yield* store.exportState), today)
        const all = yield* store.events
        const drift = yield* Project.verifyViews(p, doc)
        return {
          accepted,
          message,
          next,
          lint: { clean: issues.length === 0, subjects: issues.length === 0 ? [] : subjects },
          state: digest(masked),
          stateDoc: masked,
          events: all.slice(before),
          viewsClean: drift.length === 0
        } satisfies Observed
      })

    const results: Array<StepResult> = []
    let skipped: SequenceRun["skipped"]
    for (let k = 0; k < seq.steps.length; k++) {
      const step = seq.steps[k]!
      if (step.originalBug) {
        skipped = { at: k, reason: typeof step.originalBug === "string" ? step.originalBug : "originalBug (README D5)" }
        break
      }
      if (step.kind === "file") {
        applyFile(project, step.file!)
        continue
      }
      if (step.input !== undefined) {
        for (const [name, text] of Object.entries(step.input)) fs.writeFileSync(path.join(input, name), text)
      }
      const before = hasState ? (yield* Effect.orElseSucceed(Effect.map(store.events, (e) => e.length), () => 0)) : 0
      const parsed = parse(step.argv!, project, input)
      const outcome = yield* Effect.either(runStep(parsed))
      const accepted = outcome._tag === "Right"
      const message = outcome._tag === "Right" ? outcome.right : messageOf(outcome.left)
      const observed = yield* observe(accepted, message, before, step.kind === "next" && accepted)
      results.push({ index: k, step, observed })
    }
    const metricsIssues = hasState
      ? yield* Effect.map(
        Effect.zip(store.load, store.events),
        ([doc, events]) => Metrics.outputIssues(Metrics.metrics(doc, events, project), Metrics.METRICS_SCHEMA)
      )
      : []
    fs.rmSync(root, { recursive: true, force: true })
    return { sequence: seq, steps: results, skipped, metricsIssues } satisfies SequenceRun
  }).pipe(Effect.provide(AuditStore.layerMemory), Effect.provide(NodeContext.layer))

export type { Expect }
