/**
 * A small coding-agent product built on the SDK. Everything it knows about agents comes from
 * three layers over one SQLite file:
 *
 * - `@steward/harness-sessions`: the session store (`EventStore.layerSql`) and the run loop
 *   (`Session.layer`) with the default toolkit;
 * - `@steward/governance-rules`: the product's own policy (rules handed to each session) and a
 *   `Responder` that answers asks the way the product's operator chose;
 * - `@steward/reflex-core`: the route and settle reflexes on a SQL ledger in the same database,
 *   so every turn end is categorised and every act is an event naming its receipt.
 *
 * The model is the scripted one (`script.jsonl`) unless `OPENAI_API_KEY` or `ANTHROPIC_API_KEY`
 * is set, then a real provider (`Providers`), model from `STEWARD_EXAMPLE_MODEL` or a default.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Responder, type Rule } from "@steward/governance-rules"
import { EventStore, Providers, ScriptedModel, Session, Tools } from "@steward/harness-sessions"
import { ReflexConfig, Reflexes, ReflexLedger } from "@steward/reflex-core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** The product's policy: on top of the autonomy level, agents never publish and never touch CI. */
export const productRules: ReadonlyArray<Rule.RuleInput> = [
  { id: "product.no-publish", action: "shell", resource: "git push *", effect: "deny", note: "agents never publish" },
  {
    id: "product.ci-is-owned",
    action: "write",
    resource: ".github/**",
    effect: "deny",
    note: "CI is the platform team's"
  }
]

/** Which model the host runs: a real provider when its key is in the environment, else the script. */
export const modelChoice = (env: Readonly<Record<string, string | undefined>>): string => {
  if (env["STEWARD_EXAMPLE_MODEL"] !== undefined && env["STEWARD_EXAMPLE_MODEL"] !== "") {
    return env["STEWARD_EXAMPLE_MODEL"]
  }
  if (env["OPENAI_API_KEY"]) return "openai:gpt-4.1-mini"
  if (env["ANTHROPIC_API_KEY"]) return "anthropic:claude-sonnet-4-5"
  return "scripted"
}

/** The bundled script the default model follows. */
export const scriptFile = path.join(import.meta.dirname, "..", "script.jsonl")

const modelLayer = (choice: string): Layer.Layer<LanguageModel.LanguageModel, unknown> =>
  choice === "scripted"
    ? ScriptedModel.layerFromText(fs.readFileSync(scriptFile, "utf8"))
    : Providers.layer(choice).pipe(Layer.provide(FetchHttpClient.layer))

/** What the host is started with. */
export interface HostOptions {
  /** The database file (sessions, events, receipts and the reflex ledger). */
  readonly database: string
  /** The model: `scripted` or `PROVIDER:MODEL` (see `modelChoice`). */
  readonly model: string
  /** How the operator answers asks: allow, deny, or nobody there (default). */
  readonly answer?: "allow" | "deny" | "none"
}

/** The host's layers: one SQLite client under the store and the ledger. */
export const layer = (options: HostOptions) => {
  const sql = SqliteClient.layer({ filename: options.database })
  const store = EventStore.layerSql
  const reflexes = Reflexes.layer({ config: ReflexConfig.defaults }).pipe(Layer.provideMerge(ReflexLedger.layerSql))
  const responder = options.answer === undefined || options.answer === "none"
    ? Responder.layerNone
    : Responder.layerConstant(options.answer, "operator")
  const platform = Layer.mergeAll(NodeContext.layer, FetchHttpClient.layer, Tools.layerAskUserUnavailable, responder)
  return Session.layer({ modelName: options.model, home: os.homedir() }).pipe(
    Layer.provideMerge(Layer.mergeAll(store, reflexes, modelLayer(options.model), platform)),
    Layer.provide(sql)
  )
}

/** One tool call as the report shows it. */
export interface CallReport {
  readonly tool: string
  readonly decision: string
  readonly rule: string | null
  readonly approvedBy: string | null
  readonly ok: boolean | null
  /** The first line of what the tool returned (for calls that ran). */
  readonly output: string | null
}

/** What one task produced. */
export interface TaskReport {
  readonly session: string
  readonly workspace: string
  readonly database: string
  readonly model: string
  readonly status: string
  readonly code: string | null
  readonly calls: ReadonlyArray<CallReport>
  /** Each reflex decision: the route's tier, the settle head's category and what the harness did. */
  readonly reflexes: ReadonlyArray<
    { readonly reflex: string; readonly outcome: string; readonly receipt: string | null }
  >
  /** Every session in the database, oldest first. */
  readonly sessions: ReadonlyArray<string>
  readonly filesTouched: ReadonlyArray<string>
  readonly verified: boolean
  readonly revisions: number
}

const obj = (u: unknown): Record<string, any> => (typeof u === "object" && u !== null ? u as Record<string, any> : {})

/** Run one task in a new session and report what governance, the reflexes and the store recorded. */
export const runTask = (task: { readonly workspace: string; readonly prompt: string }, options: HostOptions) =>
  Effect.gen(function*() {
    const sessions = yield* Session.Sessions
    const store = yield* EventStore.EventStore
    const created = yield* sessions.create({
      workspace: task.workspace,
      level: "execute",
      rules: productRules,
      host: { product: "coding-agent-host", model: options.model }
    })
    const outcome = yield* sessions.run(created.id, task.prompt)
    const events = yield* store.read(created.id)
    const results = new Map(
      events.filter((e) => e.type === "tool.result").map((e) => [obj(e.data)["callId"], obj(e.data)])
    )
    const calls = events.filter((e) => e.type === "tool.call").map((e): CallReport => {
      const d = obj(e.data)
      return {
        tool: String(d["tool"]),
        decision: String(d["decision"]),
        rule: d["citation"]?.ruleId ?? null,
        approvedBy: d["approval"]?.by ?? null,
        ok: results.has(d["callId"]) ? results.get(d["callId"])!["ok"] === true : null,
        output: results.has(d["callId"]) ? String(results.get(d["callId"])!["output"]).split("\n")[0]! : null
      }
    })
    const reflexes = events.filter((e) => e.type === "reflex.decision").map((e) => {
      const d = obj(e.data)
      return {
        reflex: String(d["reflex"]),
        outcome: d["reflex"] === "route"
          ? `tier ${d["tier"]}${d["acts"] === true ? "" : " (not acting: uncertified)"}`
          : `${d["category"] ?? "skipped"}, ${d["certified"] === true ? "certified" : "uncertified"}: ${d["action"]}`,
        receipt: d["receipt"] ?? null
      }
    })
    const verification = yield* sessions.verify(created.id)
    const all = yield* store.list
    return {
      session: created.id,
      workspace: created.workspace,
      database: options.database,
      model: options.model,
      status: outcome.status,
      code: outcome.code,
      calls,
      reflexes,
      filesTouched: outcome.checkpoint.filesTouched,
      sessions: all.map((row) => row.id),
      verified: verification.verified,
      revisions: verification.revisions
    } satisfies TaskReport
  }).pipe(Effect.provide(layer(options)))
