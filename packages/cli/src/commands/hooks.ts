/**
 * `steward hooks`: Steward inside the agent CLIs people already run.
 *
 * - `install <client> [--workspace DIR] [--level L] [--user] [--rules FILE] [--dry-run]` writes
 *   the client's hook settings (merged; nothing else changes; `--dry-run` prints the diff).
 * - `uninstall <client> [--workspace DIR] [--user]` removes exactly what `install` added.
 * - `status [--workspace DIR]` shows what is installed for each client and the last decisions.
 * - `approve ID` approves an ask once (the id a denied-for-approval call named).
 *
 * The hook itself is `steward hook <client> <event>` (`internal/hookClient`).
 *
 * @since 0.3.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Autonomy from "@steward/governance-rules/Autonomy"
import * as Evidence from "@steward/governance-rules/Evidence"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cannotRun, refused } from "../CliError.js"
import * as GlobalOptions from "../GlobalOptions.js"
import * as HookStore from "../hooks/HookStore.js"
import * as Install from "../hooks/Install.js"
import * as Settings from "../hooks/Settings.js"
import * as Wire from "../hooks/Wire.js"
import * as HostSql from "../HostSql.js"
import * as Output from "../Output.js"
import * as StateDir from "../StateDir.js"

const client = Args.choice(Wire.clients.map((c) => [c, c] as const), { name: "CLIENT" }).pipe(
  Args.withDescription("The agent CLI: claude-code, codex or gemini")
)
const workspace = Options.directory("workspace", { exists: "yes" }).pipe(
  Options.withDescription("The project (default: the current directory)"),
  Options.optional
)
const level = Options.choice("level", Autonomy.levels).pipe(
  Options.withDescription("Autonomy level the hook decides at (default execute)"),
  Options.withDefault("execute" as const)
)
const user = Options.boolean("user").pipe(
  Options.withDescription("The user's settings instead of the project's (each event's own directory is the workspace)")
)
const rules = Options.file("rules", { exists: "yes" }).pipe(
  Options.withDescription("Policy file (default: the workspace's .steward/policy.yaml|yml|json when present)"),
  Options.optional
)
const dryRun = Options.boolean("dry-run").pipe(Options.withDescription("Print the change as a diff; write nothing"))

const targetOf = (o: {
  readonly client: Wire.Client
  readonly workspace: Option.Option<string>
  readonly level: Autonomy.Level
  readonly user: boolean
  readonly rules: Option.Option<string>
  readonly stateDir: Option.Option<string>
}): Install.Target => {
  const ws = path.resolve(Option.getOrElse(o.workspace, () => process.cwd()))
  const fallback = o.user ? path.join(os.homedir(), ".steward") : path.join(ws, ".steward")
  return {
    client: o.client,
    user: o.user,
    workspace: ws,
    level: o.level,
    stateDir: path.resolve(Option.getOrElse(o.stateDir, () => fallback)),
    rules: Option.match(o.rules, { onNone: () => undefined, onSome: (r) => path.resolve(r) })
  }
}

const renderChange = (verb: string, dry: boolean) => (doc: { readonly file: string; readonly diff: string }) =>
  `${dry ? `would ${verb}` : `${verb}ed`} ${doc.file}${doc.diff === "" ? "" : `\n${doc.diff}`}`

const install = Command.make(
  "install",
  { ...GlobalOptions.global, client, workspace, level, user, rules, dryRun },
  (o) =>
    Effect.gen(function*() {
      const target = targetOf(o)
      const change = yield* Install.planInstall(target)
      if (!o.dryRun) yield* Install.applyInstall(target, change)
      yield* Output.result(
        o.json,
        { file: change.file, dryRun: o.dryRun, changed: change.after !== change.before, diff: change.diff, target },
        renderChange("install", o.dryRun)
      )
    })
).pipe(Command.withDescription("Write the client's hook settings (merged with what is there)"))

const uninstall = Command.make(
  "uninstall",
  { ...GlobalOptions.global, client, workspace, user, dryRun },
  (o) =>
    Effect.gen(function*() {
      const target = targetOf({ ...o, level: "execute", rules: Option.none() })
      const change = yield* Install.planUninstall(target)
      if (!o.dryRun) yield* Install.applyUninstall(target, change)
      yield* Output.result(
        o.json,
        {
          file: change.file,
          dryRun: o.dryRun,
          changed: change.after !== change.before,
          removed: change.after === null
        },
        (doc) =>
          `${o.dryRun ? "would uninstall from" : "uninstalled from"} ${doc.file}${doc.removed ? " (removed)" : ""}`
      )
    })
).pipe(Command.withDescription("Remove exactly what install added"))

/** The state directory's stores, opened for reading the evidence and approvals. */
const storesOf = (stateDir: string) =>
  Layer.mergeAll(Evidence.layerSql, HookStore.layer).pipe(
    Layer.provideMerge(Layer.unwrapEffect(Effect.map(StateDir.open(Option.some(stateDir)), HostSql.layer)))
  )

const lastDecisions = (stateDir: string) =>
  Effect.gen(function*() {
    if (!fs.existsSync(stateDir)) return { decisions: [], approvals: [] }
    const log = yield* Evidence.EvidenceLog
    const events = Chunk.toReadonlyArray(yield* Stream.runCollect(log.stream()))
    const decisions = events.filter((e) => e.kind === "decision" && typeof e.runId === "string" && e.hook !== null)
      .slice(-10)
      .map((e) => ({ seq: e.seq, at: e.at, run: e.runId, event: e.hook, ...(e.data as object) }))
    const approvals = (yield* (yield* HookStore.HookStore).approvals).filter((a) => a.usedAt === null).slice(0, 10)
    return { decisions, approvals }
  }).pipe(Effect.provide(storesOf(stateDir)))

const status = Command.make("status", { ...GlobalOptions.global, workspace }, (o) =>
  Effect.gen(function*() {
    const ws = path.resolve(Option.getOrElse(o.workspace, () => process.cwd()))
    const stateDir = path.resolve(Option.getOrElse(o.stateDir, () => path.join(ws, ".steward")))
    const clients = Wire.clients.flatMap((c) =>
      [false, true].map((scope) => {
        const file = Install.settingsFile(c, scope, ws)
        const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null
        const doc = Settings.parse(text, file)
        return {
          client: c,
          scope: scope ? "user" : "project",
          file,
          exists: text !== null,
          events: doc._tag === "Right" ? Settings.installed(doc.right) : {},
          error: doc._tag === "Left" ? doc.left : null
        }
      })
    )
    const recent = yield* lastDecisions(stateDir).pipe(
      Effect.mapError((e) => cannotRun("storage", `${stateDir}: ${"message" in e ? e.message : String(e)}`))
    )
    yield* Output.result(o.json, { workspace: ws, stateDir, clients, ...recent }, (doc) =>
      [
        ...doc.clients.map((c) =>
          `${c.client.padEnd(11)} ${c.scope.padEnd(7)} ${
            c.error ?? (Object.keys(c.events).length === 0 ? "not installed" : Object.keys(c.events).join(", "))
          }  (${c.file})`
        ),
        `last decisions (${doc.stateDir}):`,
        ...(doc.decisions.length === 0 ? ["  none"] : doc.decisions.map((d) => {
          const x = d as unknown as {
            run: string
            tool: string
            decision: string
            answer: string
            citation?: { ruleId: string | null }
          }
          return `  ${x.decision.padEnd(5)} ${x.answer.padEnd(5)} ${x.tool} [${x.citation?.ruleId ?? "-"}]  ${x.run}`
        })),
        ...(doc.approvals.length === 0 ? [] : [
          "waiting for approval:",
          ...doc.approvals.map((a) => `  ${a.id}  ${a.approvedAt === null ? "asked" : "approved"}  ${a.reason}`)
        ])
      ].join("\n"))
  })).pipe(Command.withDescription("What is installed for each client, the last decisions and open approvals"))

const approve = Command.make(
  "approve",
  { ...GlobalOptions.global, workspace, id: Args.text({ name: "ID" }).pipe(Args.withDescription("The ask's id")) },
  (o) =>
    Effect.gen(function*() {
      const ws = path.resolve(Option.getOrElse(o.workspace, () => process.cwd()))
      const stateDir = path.resolve(Option.getOrElse(o.stateDir, () => path.join(ws, ".steward")))
      const found = yield* Effect.flatMap(HookStore.HookStore, (s) => s.approve(o.id)).pipe(
        Effect.provide(storesOf(stateDir)),
        Effect.mapError((e) => cannotRun("storage", `${stateDir}: ${"message" in e ? e.message : String(e)}`))
      )
      if (found === undefined) return yield* refused("not-found", `no ask ${o.id} in ${stateDir}`)
      yield* Output.result(o.json, found, (a) => `approved ${a.id} once: ${a.reason}`)
    })
).pipe(Command.withDescription("Approve an ask once: the same call is allowed the next time"))

/**
 * @since 0.3.0
 * @category commands
 */
export const command = Command.make("hooks").pipe(
  Command.withDescription("Steward's hooks in Claude Code, Codex and Gemini CLI: install, uninstall, status, approve"),
  Command.withSubcommands([install, uninstall, status, approve])
)
