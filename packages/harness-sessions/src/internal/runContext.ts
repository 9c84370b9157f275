/**
 * What every runner operation works over: the service's environment, the run's toolkits, the
 * compiled policy engines (cached by what they are compiled from), the session's hooks and one
 * read of a session from the store.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as AlgalRuntime from "@steward/algal-runtime/AlgalRuntime"
import * as Evidence from "@steward/governance-rules/Evidence"
import * as Hooks from "@steward/governance-rules/Hooks"
import * as Policy from "@steward/governance-rules/Policy"
import type * as Responder from "@steward/governance-rules/Responder"
import * as Rule from "@steward/governance-rules/Rule"
import type * as Sandbox from "@steward/governance-rules/Sandbox"
import * as ShellParser from "@steward/governance-rules/ShellParser"
import type * as Reflexes from "@steward/reflex-core/Reflexes"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import { createHash } from "node:crypto"
import type * as Event from "../Event.js"
import type * as EventStore from "../EventStore.js"
import type * as Goal from "../Goal.js"
import { HarnessError } from "../HarnessError.js"
import type * as Limits from "../Limits.js"
import type * as PromptCompiler from "../PromptCompiler.js"
import * as Tools from "../Tools.js"
import * as Loop from "./loop.js"
import * as Meta from "./meta.js"
import type { Ctx } from "./step.js"
import * as Transcript from "./transcript.js"

/** What the runner works with (the service's dependencies and options). */
export interface Env {
  /** Who drives this service's runs (every commit of a run renews and checks its lease). */
  readonly owner: EventStore.Owner
  readonly store: EventStore.EventStore["Type"]
  readonly model: LanguageModel.Service
  readonly checker: Goal.Checker["Type"]
  readonly responder: Option.Option<Responder.Responder["Type"]>
  readonly reflexes: Option.Option<Reflexes.Reflexes["Type"]>
  readonly executor: Option.Option<CommandExecutor.CommandExecutor>
  /** The OS boundary shell calls run in, when the host provides one and has not turned it off. */
  readonly sandbox: Option.Option<Sandbox.Service>
  readonly parser: ShellParser.ShellParser["Type"]
  readonly runtime: AlgalRuntime.AlgalRuntime["Type"]
  readonly services: Context.Context<never>
  readonly tools: ReadonlyArray<Tools.Any>
  readonly compiler: PromptCompiler.Compiler
  readonly sliceEnv: Option.Option<string>
  readonly home: string
  readonly modelName: string
  readonly hooks: ReadonlyArray<Hooks.Hook> | undefined
  readonly tiers: Partial<Record<"frontier" | "standard", LanguageModel.Service>> | undefined
  readonly limits: Limits.Resolved
}

/** What a run is asked to do (stored in its `run.start` event, read back by `resume`). */
export interface RunInput {
  readonly prompt: string
  readonly trigger: "person" | "approval" | "resume"
  readonly goal: Goal.Spec | null
  readonly plan: boolean
}

/** A session as one read of the store left it: its row, its decoded meta, its events. */
export interface Snapshot {
  readonly row: EventStore.SessionRow
  readonly meta: Meta.Meta
  readonly events: ReadonlyArray<Event.SessionEvent>
}

/** The context the runner's operations share. */
export interface RunContext {
  readonly env: Env
  readonly toolkits: Ctx["toolkits"]
  /** The policy engine for a session's rules (and the remembered rules given, else its own). */
  readonly engineFor: (
    meta: Meta.Meta,
    remembered?: Meta.Meta["remembered"]
  ) => Effect.Effect<Policy.Engine, HarnessError>
  /** The built-in hooks for the session's workspace and home, then the host's. */
  readonly hooksFor: (meta: Meta.Meta) => Effect.Effect<Hooks.Hooks["Type"]>
  /** One read of a session; `view`: only the events its view reads (`Transcript.viewTypes`). */
  readonly load: (id: string, options?: { readonly view?: boolean }) => Effect.Effect<Snapshot, HarnessError>
}

const invalid = (message: string) => new HarnessError({ code: "INVALID_INPUT", message })

// Compiled engines by the digest of what they are compiled from (level, workspace, home, rules).
const ENGINES = 64

// The policy is compiled once per distinct rule set, not per run or per call: the key is the
// digest of the level, the workspace, the home and the rules in order, so a rule saved by
// approve-and-remember (a new rule set) compiles a new engine and the old one stays valid for it.
const engineCache = (env: Env): RunContext["engineFor"] => {
  const engines = new Map<string, Policy.Engine>()
  return (meta, remembered = meta.remembered) =>
    Effect.suspend(() => {
      // The harness's own baseline first, so a session's rules (last match wins) still decide.
      const rules = [...Tools.baselineRules, ...meta.rules, ...remembered]
      const key = createHash("sha256").update(JSON.stringify([meta.level, meta.workspace, env.home, rules])).digest(
        "hex"
      )
      const cached = engines.get(key)
      if (cached !== undefined) {
        engines.delete(key)
        engines.set(key, cached)
        return Effect.succeed(cached)
      }
      return Policy.make({
        level: meta.level,
        workspace: meta.workspace,
        home: env.home,
        rules: rules.map((r) => Rule.make(r))
      })
        .pipe(
          Effect.provideService(ShellParser.ShellParser, env.parser),
          Effect.mapError((e) => invalid(`session rules: ${e.message}`)),
          Effect.tap((engine) => {
            engines.set(key, engine)
            if (engines.size > ENGINES) engines.delete(engines.keys().next().value!)
          })
        )
    })
}

/** The runner's context over an environment. */
export const make = (env: Env): RunContext => ({
  env,
  toolkits: Loop.toolkits(env.tools),
  engineFor: engineCache(env),
  hooksFor: (meta) =>
    Hooks.make([...Hooks.builtins(meta.workspace, env.home), ...(env.hooks ?? [])]).pipe(
      Effect.provide(Evidence.layerMemory)
    ),
  load: (id, options = {}) =>
    Effect.gen(function*() {
      const row = yield* env.store.get(id)
      const meta = yield* Meta.decode(row.meta)
      const events = yield* env.store.read(id, options.view === true ? { types: Transcript.viewTypes } : {})
      return { row, meta, events }
    })
})
