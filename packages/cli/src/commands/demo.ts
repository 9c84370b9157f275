/**
 * `steward demo`: the SDK in one minute, on the embedded SQLite default, in a fresh state
 * directory it names. It runs the real commands in-process, in order, and reports what each
 * showed:
 *
 * 1. a bundled synthetic history imported into the settle reflex — a dry run, then for real — so
 *    the stopped_short head certifies and the confirm head does not, with the evidence;
 * 2. a governed session on a scripted model: one tool call allowed, one denied with its rule's
 *    citation, one asked, where the run pauses for the person; a new request's turn ends settled
 *    by the reflexes;
 * 3. a past reflex decision replayed to the identical receipt digest;
 * 4. `session verify` on the demo's run; and where everything is stored.
 *
 * Every run uses a new directory (under `--state-dir` when given, else the system's temporary
 * directory), so running it twice is safe.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { tmpdir } from "node:os"
import { cannotRun } from "../CliError.js"
import * as GlobalOptions from "../GlobalOptions.js"
import * as DemoData from "../internal/demoData.js"
import { main } from "../Main.js"
import * as Output from "../Output.js"
import * as Progress from "../Progress.js"

interface Step {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

// A console that keeps what a command prints (the demo reads the commands' JSON documents).
const capturing = () => {
  const out: Array<string> = []
  const err: Array<string> = []
  const text = (args: ReadonlyArray<unknown>) => args.map(String).join(" ")
  const unsafe = {
    ...globalThis.console,
    log: (...args: ReadonlyArray<unknown>) => void out.push(text(args)),
    info: (...args: ReadonlyArray<unknown>) => void out.push(text(args)),
    error: (...args: ReadonlyArray<unknown>) => void err.push(text(args)),
    warn: (...args: ReadonlyArray<unknown>) => void err.push(text(args))
  } as Console.UnsafeConsole
  const noop = () => Effect.void
  const console: Console.Console = {
    [Console.TypeId]: Console.TypeId,
    unsafe,
    assert: noop,
    clear: Effect.void,
    count: noop,
    countReset: noop,
    debug: noop,
    dir: noop,
    dirxml: noop,
    error: (...args) => Effect.sync(() => unsafe.error(...args)),
    group: noop,
    groupEnd: Effect.void,
    info: (...args) => Effect.sync(() => unsafe.info(...args)),
    log: (...args) => Effect.sync(() => unsafe.log(...args)),
    table: noop,
    time: noop,
    timeEnd: noop,
    timeLog: noop,
    trace: noop,
    warn: (...args) => Effect.sync(() => unsafe.warn(...args))
  }
  return { console, out, err }
}

/** NDJSON (a session verb's `--json`: one event per line; ADR 0014) as its events. */
const ndjson = (stdout: string): ReadonlyArray<any> =>
  stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))

/** A drive's outcome: its last event (a settle, or a pause: `paused`), with its session. */
const outcomeOf = (events: ReadonlyArray<any>) => {
  const last = events.at(-1)
  return {
    session: String(last?.session ?? ""),
    status: last?.type === "run.pause" ? "paused" : String(last?.data?.status ?? "unknown")
  }
}

/** The demo's report (`--json` prints it as is). */
export interface Report {
  readonly stateDir: string
  readonly database: string
  readonly workspace: string
  readonly history: string
  readonly importDryRun: ReadonlyArray<Certificate>
  readonly import: { readonly inserted: number; readonly certificates: ReadonlyArray<Certificate> }
  readonly session: {
    readonly id: string
    readonly status: string
    /** Sessions run before this one whose stopped-short turn was held back for the person. */
    readonly heldBack: number
    readonly calls: ReadonlyArray<
      {
        readonly tool: string
        readonly resource: string
        readonly decision: string
        readonly outcome: string
        readonly rule: string | null
      }
    >
    readonly settles: ReadonlyArray<
      {
        readonly category: string
        readonly certified: boolean
        readonly held: boolean
        readonly acts: boolean
        readonly action: string
        readonly gate: string
      }
    >
  }
  readonly replay: { readonly observation: string; readonly receipt: string; readonly matches: boolean }
  readonly verify: { readonly verified: boolean; readonly revisions: number }
}

interface Certificate {
  readonly head: string
  readonly certified: boolean
  readonly threshold: number
  readonly fired: number
  readonly precision: number
  readonly lower: number
  readonly reason: string
}

const certificateLine = (c: Certificate) =>
  `${c.head.padEnd(10)} ${
    c.certified ? "certified" : "not certified"
  } at ${c.threshold}: fired ${c.fired}, precision ${c.precision}, lower bound ${c.lower} — ${c.reason}`

const render = (r: Report): string =>
  [
    `Steward demo — state in ${r.stateDir}`,
    "",
    "1. A synthetic history of 900 settle turns (examples/data), imported into the settle reflex",
    ...r.importDryRun.map((c) => `   dry run   ${certificateLine(c)}`),
    ...r.import.certificates.map((c) => `   imported  ${certificateLine(c)}`),
    `   ${r.import.inserted} turns stored; the stopped_short head may now act on its own, the confirm head may not.`,
    "",
    `2. A governed session on a scripted model (session ${r.session.id}, ended ${r.session.status})`,
    ...r.session.calls.map((c) =>
      `   ${c.decision.padEnd(5)} ${c.tool} ${c.resource} — ${c.outcome}${c.rule === null ? "" : ` (rule ${c.rule})`}`
    ),
    ...(r.session.heldBack === 0 ? [] : [
      `   (${r.session.heldBack} earlier session(s) had that turn held back for the person — one in ten, by hash — and were run again)`
    ]),
    ...r.session.settles.map((s) =>
      `   turn end: settle reflex says ${s.category}${s.certified ? ", certified" : ""}${
        s.held ? ", held back for the person" : ""
      } → ${s.acts ? `acts (${s.action})` : `does not act (${s.gate})`}`
    ),
    "",
    `3. A past decision replayed: ${r.replay.observation} → ${r.replay.receipt} (${
      r.replay.matches ? "identical" : "DIFFERENT"
    })`,
    `4. session verify: ${r.verify.verified ? "verified" : "FAILED"} (${r.verify.revisions} managed revision(s))`,
    "",
    `Stored: ${r.database} (reflex ledger, sessions, evidence); workspace ${r.workspace}; history ${r.history}`
  ].join("\n")

/**
 * `steward demo`.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "demo",
  { ...GlobalOptions.global },
  ({ json, stateDir }) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const parent = Option.getOrElse(stateDir, () => tmpdir())
      yield* fs.makeDirectory(parent, { recursive: true }).pipe(
        Effect.mapError((e) => cannotRun("io", `cannot create ${parent}: ${e.message}`))
      )
      const state = yield* fs.makeTempDirectory({ directory: parent, prefix: "steward-demo-" }).pipe(
        Effect.mapError((e) => cannotRun("io", `cannot create a demo directory in ${parent}: ${e.message}`))
      )
      const workspace = path.join(state, "workspace")
      const history = path.join(state, "settle-history.jsonl")
      const scriptFile = path.join(state, "model-script.jsonl")
      const write = (file: string, text: string) =>
        fs.writeFileString(file, text).pipe(
          Effect.mapError((e) => cannotRun("io", `cannot write ${file}: ${e.message}`))
        )
      yield* fs.makeDirectory(workspace).pipe(Effect.mapError((e) => cannotRun("io", e.message)))
      yield* write(path.join(workspace, "README.md"), "# Demo workspace\n\nA scratch project for `steward demo`.\n")
      yield* write(history, DemoData.history())
      yield* write(scriptFile, DemoData.script.map((turn) => JSON.stringify(turn)).join("\n") + "\n")

      /** Run `steward ARGS --json --state-dir STATE` in-process and read its stdout. */
      const output = (args: ReadonlyArray<string>, accept: ReadonlyArray<number>) =>
        Effect.gen(function*() {
          const { console, err, out } = capturing()
          const exitCode = yield* main(["node", "steward", ...args, "--json", "--state-dir", state]).pipe(
            Effect.withConsole(console)
          )
          const result: Step = { exitCode, stdout: out.join("\n"), stderr: err.join("\n") }
          if (!accept.includes(exitCode)) {
            return yield* cannotRun(
              "internal",
              `demo step \`steward ${args.join(" ")}\` exited ${exitCode}: ${result.stderr}`
            )
          }
          return result.stdout
        })
      /** A verb's JSON document. */
      const step = (args: ReadonlyArray<string>, accept: ReadonlyArray<number> = [0]) =>
        Effect.map(output(args, accept), (stdout) => JSON.parse(stdout) as any)
      /** A session verb's events: NDJSON under `--json`, one event per line (ADR 0014). */
      const lines = (args: ReadonlyArray<string>, accept: ReadonlyArray<number> = [0]) =>
        Effect.map(output(args, accept), ndjson)

      const report = yield* Progress.around(json, "steward demo", (progress) =>
        Effect.gen(function*() {
          yield* progress.stage("1 of 4: importing the synthetic history (dry run, then for real)")
          const dry = yield* step(["reflex", "import", "settle", history, "--dry-run"])
          const imported = yield* step(["reflex", "import", "settle", history])
          yield* progress.stage("2 of 4: running a governed session on the scripted model")
          // one session of the scripted model: its calls with their outcomes, and its settle decisions
          const governed = () =>
            Effect.gen(function*() {
              const outcome = outcomeOf(
                yield* lines([
                  "session",
                  "run",
                  "--script",
                  scriptFile,
                  "--workspace",
                  workspace,
                  "Tidy up the workspace"
                ], [
                  0,
                  1
                ])
              )
              const second = outcomeOf(
                yield* lines(["session", "continue", outcome.session, "Wire the parser into the CLI"], [0, 1])
              )
              const events = yield* lines(["session", "events", outcome.session])
              const ended = new Map<string, string>()
              for (const e of events) {
                if (e.type === "tool.result") ended.set(e.data.callId, e.data.ok === true ? "ran" : "failed")
                if (e.type === "tool.refused") ended.set(e.data.callId, "refused")
                // an ask nobody answered pauses the run at the call; a new request settles it
                if (e.type === "run.pause") ended.set(e.data.callId, "asked (the run paused for the person)")
              }
              const calls = events.filter((e) => e.type === "tool.call").map((e) => ({
                tool: String(e.data.tool),
                resource: String(e.data.citation?.resource ?? ""),
                decision: String(e.data.decision),
                outcome: ended.get(e.data.callId) ?? "—",
                rule: e.data.citation?.ruleId ?? null
              }))
              const settles = events.filter((e) => e.type === "reflex.decision" && e.data.reflex === "settle").map((
                e
              ) => ({
                category: e.data.category,
                certified: e.data.certified,
                held: e.data.held,
                acts: e.data.acts,
                action: e.data.action,
                gate: e.data.gate
              }))
              return { outcome, second, calls, settles }
            })
          // One turn in ten is held back for the person, by a hash of the run: the demo is there to
          // show the certified head acting, so a session whose stopped-short turn was held back is
          // said (heldBack) and run again, at most five times.
          let governedRun = yield* governed()
          let heldBack = 0
          while (heldBack < 5 && governedRun.settles.some((x) => x.category === "stopped_short" && x.held)) {
            heldBack++
            governedRun = yield* governed()
          }
          const { calls, outcome, second, settles } = governedRun
          yield* progress.stage("3 of 4: deciding and replaying a settle turn")
          const decided = yield* step([
            "reflex",
            "decide",
            "settle",
            "--text",
            "Parser updated. Next, I'll wire the CLI:",
            "--tool-calls",
            "60",
            "--subject",
            "demo"
          ])
          const replayed = yield* step(["reflex", "replay", decided.observation])
          yield* progress.stage("4 of 4: verifying the session")
          const verified = yield* step(["session", "verify", outcome.session], [0, 1])
          const report: Report = {
            stateDir: state,
            database: path.join(state, "steward.sqlite"),
            workspace,
            history,
            importDryRun: dry.certificates,
            import: { inserted: imported.inserted, certificates: imported.certificates },
            session: {
              id: outcome.session,
              status: [outcome.status, second.status].join(", then "),
              calls,
              settles,
              heldBack
            },
            replay: {
              observation: decided.observation,
              receipt: replayed.replayed?.receipt ?? "",
              matches: replayed.matches === true
            },
            verify: { verified: verified.verified === true, revisions: verified.revisions ?? 0 }
          }
          return report
        }))
      yield* Output.result(json, report, render)
    })
).pipe(
  Command.withDescription(
    "Steward end to end in a fresh state directory: reflexes certify, a governed session, replay, verify"
  )
)
