/**
 * Before a tool call: the client's call as governance calls, decided at the configured level
 * with the workspace's policy, recorded as evidence, and answered: deny with the deciding rule's
 * citation, allow (rewritten into the sandbox when the decision is "allow, contained" and the
 * sandbox is there), or ask — which records an approval the person can give with
 * `steward hooks approve ID`, after which the same call is allowed once.
 *
 * @since 0.3.0
 */
import * as Evidence from "@steward/governance-rules/Evidence"
import * as Placement from "@steward/governance-rules/Placement"
import type * as Policy from "@steward/governance-rules/Policy"
import type * as Rule from "@steward/governance-rules/Rule"
import * as SandboxProfile from "@steward/governance-rules/SandboxProfile"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as HookRuntime from "./HookRuntime.js"
import * as HookStore from "./HookStore.js"
import type { HookInput } from "./Input.js"
import * as SandboxRewrite from "./SandboxRewrite.js"
import * as ToolCalls from "./ToolCalls.js"
import type * as Wire from "./Wire.js"

/**
 * Where the sandbox rewrite comes from: the launcher of `steward sandbox`, when the sandbox is
 * available to this build (`undefined`: an unresolved command is not contained, so it asks).
 *
 * @since 0.3.0
 * @category models
 */
export interface Containment {
  readonly launcher: SandboxRewrite.Launcher | undefined
}

/**
 * The citation in words, as the model reads it.
 *
 * @since 0.3.0
 * @category rendering
 */
export const cite = (c: Rule.Citation): string =>
  `${c.reason} [${c.ruleId === null ? `${c.layer} layer` : `rule ${c.ruleId}`}${
    c.source === null ? "" : ` from ${c.source}`
  }]`

/**
 * Where the call runs (ADR 0212 of the sandbox issue): with a sandbox in this build, a single
 * shell call is placed with the boundary under the gate — what the analyser could not resolve is
 * allowed inside it (`sandbox.contained`); without one, the gate's decision stands.
 */
const place = (
  gate: Policy.Decision,
  calls: ReadonlyArray<Policy.ToolCall>,
  governed: HookRuntime.Governed,
  containment: Containment
) =>
  Effect.gen(function*() {
    const call = calls.length === 1 ? calls[0]! : undefined
    if (containment.launcher === undefined || call === undefined || call.tool !== "shell") {
      return Placement.place(gate, calls[0]!, { state: "off" })
    }
    const profile = yield* SandboxProfile.make({
      workspace: governed.engine.workspace,
      home: governed.home,
      level: gate.level,
      policy: governed.sandbox ?? {}
    }).pipe(Effect.option)
    return Placement.place(
      gate,
      call,
      Option.isNone(profile)
        ? { state: "unavailable", reason: `the workspace ${governed.engine.workspace} cannot be sandboxed` }
        : { state: "on", allowDomains: profile.value.network.allowDomains, writable: profile.value.writable }
    )
  })

/**
 * Decide one tool call.
 *
 * @since 0.3.0
 * @category handlers
 */
export const decide = (options: {
  readonly client: Wire.Client
  readonly input: HookInput
  readonly governed: HookRuntime.Governed
  readonly stores: HookRuntime.Stores
  readonly stateDir: string
  readonly containment: Containment
}) =>
  Effect.gen(function*() {
    const { governed, input, stores } = options
    const tool = input.tool ?? ""
    const mapped = ToolCalls.toCalls(tool, input.toolInput, input.cwd)
    const evidence = Effect.provide(Evidence.EvidenceLog, stores)
    const store = Effect.provide(HookStore.HookStore, stores)
    const log = Evidence.EvidenceLog
    const runId = `${options.client}:${input.session}`
    if (Either.isLeft(mapped)) {
      const reason = `Steward denies a tool call it cannot read: ${mapped.left}`
      yield* Effect.flatMap(evidence, (e) =>
        e.append({ kind: "decision", runId, hook: input.event, data: { tool, decision: "deny", error: mapped.left } }))
      return { _tag: "deny", reason } satisfies Wire.Answer as Wire.Answer
    }
    const calls = mapped.right
    const gate = yield* governed.engine.decideBatch(calls)
    const placed = yield* place(gate, calls, governed, options.containment)
    const decision = { ...gate, decision: placed.decision, citation: placed.citation, reasons: placed.reasons }
    const key = JSON.stringify(calls)
    const workspace = governed.engine.workspace
    let answer: Wire.Answer
    let approval: string | null = null
    if (decision.decision === "deny") {
      answer = { _tag: "deny", reason: `Steward denied this ${tool} call: ${cite(decision.citation)}` }
    } else if (decision.decision === "ask") {
      const hooks = yield* store
      if (yield* hooks.consume(workspace, key)) {
        answer = { _tag: "allow", reason: `approved by the person (${HookStore.approvalId(workspace, key)})` }
        approval = HookStore.approvalId(workspace, key)
      } else {
        const asked = yield* hooks.ask(workspace, key, decision.citation.reason)
        approval = asked.id
        answer = {
          _tag: "ask",
          reason: `Steward needs the person's approval for this ${tool} call: ${
            cite(decision.citation)
          }. To approve it once, the person runs: steward hooks approve ${asked.id} --state-dir ${options.stateDir} (then the same call is allowed once).`
        }
      }
    } else {
      const command = ToolCalls.shellCommand(calls)
      const launcher = options.containment.launcher
      // "Allow, contained": the boundary is what made this allow; the command runs inside it.
      answer = command !== undefined && placed.where === "sandbox" && placed.contained.length > 0 &&
          launcher !== undefined && typeof input.toolInput === "object" && input.toolInput !== null
        ? {
          _tag: "allow",
          reason: `Steward runs this inside its sandbox: ${cite(decision.citation)}`,
          toolInput: {
            ...(input.toolInput as Record<string, unknown>),
            command: SandboxRewrite.wrap(launcher, {
              workspace,
              level: governed.level,
              command,
              rules: governed.rulesFile
            })
          }
        }
        : { _tag: "allow", reason: `Steward allows this: ${cite(decision.citation)}` }
    }
    yield* Effect.flatMap(log, (e) =>
      e.append({
        kind: "decision",
        runId,
        hook: input.event,
        data: {
          client: options.client,
          tool,
          calls: calls.map((c) => (c.tool === "shell" ? { ...c, command: Evidence.redact(c.command) } : c)),
          decision: decision.decision,
          gate: gate.decision,
          where: placed.where,
          answer: answer._tag,
          rewritten: answer._tag === "allow" && answer.toolInput !== undefined,
          approval,
          level: decision.level,
          citation: decision.citation,
          reasons: decision.reasons
        }
      })).pipe(Effect.provide(stores))
    return answer
  })
