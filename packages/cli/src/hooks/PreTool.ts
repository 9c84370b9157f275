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
import * as CodexSandbox from "./CodexSandbox.js"
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

/** Whose boundary contains an "allow, contained" call: Steward's (a rewrite) or Codex's own. */
type Boundary = { readonly by: "steward" } | { readonly by: "codex"; readonly policy: string }

/**
 * Codex's own sandbox as the boundary under the gate (ADR 0007): where it confines the command,
 * it contains what the analyser cannot resolve, as Steward's would (no network; writes only to
 * the workspace and temp directories, none at `read-only`) — and Steward's cannot start inside
 * it. Where Codex has no sandbox, Steward's own is placed as for any client; where its sandbox
 * lets the network through, or the transcript does not say, nothing contains the command and
 * the gate's decision stands.
 */
const placeUnderCodex = (gate: Policy.Decision, call: Policy.ToolCall, input: HookInput) =>
  Effect.map(
    CodexSandbox.read(input.transcript, input.turn),
    (mode): { readonly placed: Placement.Placed; readonly boundary: Boundary } | undefined => {
      if (mode._tag === "none") return undefined
      if (mode._tag !== "contained") {
        const reason = mode._tag === "open"
          ? `Codex's sandbox (${mode.policy}) does not contain the network, and Steward's cannot start inside it`
          : `Codex's sandbox is unknown (${mode.why}), and Steward's cannot start inside one`
        return { placed: Placement.place(gate, call, { state: "unavailable", reason }), boundary: { by: "steward" } }
      }
      const placed = Placement.place(gate, call, {
        state: "on",
        allowDomains: [],
        writable: mode.policy === "workspace-write"
      })
      const note =
        `the analyser cannot resolve this, so it runs inside Codex's own ${mode.policy} sandbox (no network; writes ${
          mode.policy === "workspace-write" ? "only to the workspace and temp directories" : "nowhere"
        })`
      const citation = placed.citation.layer === "sandbox"
        ? {
          ...placed.citation,
          note,
          reason: `allow (in Codex's sandbox): ${note} — instead of ${placed.contained[0]?.reason}`
        }
        : placed.citation
      return {
        placed: { ...placed, citation, reasons: placed.citation === citation ? placed.reasons : [citation.reason] },
        boundary: { by: "codex", policy: mode.policy }
      }
    }
  )

/**
 * Where the call runs (ADR 0212 of the sandbox issue): with a sandbox in this build, a single
 * shell call is placed with the boundary under the gate — what the analyser could not resolve is
 * allowed inside it (`sandbox.contained`); without one, the gate's decision stands. Under Codex,
 * an ask is placed with Codex's own sandbox first.
 */
const place = (
  gate: Policy.Decision,
  calls: ReadonlyArray<Policy.ToolCall>,
  governed: HookRuntime.Governed,
  containment: Containment,
  client: Wire.Client,
  input: HookInput
) =>
  Effect.gen(function*() {
    const steward: Boundary = { by: "steward" }
    const call = calls.length === 1 ? calls[0]! : undefined
    if (client === "codex" && call !== undefined && call.tool === "shell" && gate.decision === "ask") {
      const codex = yield* placeUnderCodex(gate, call, input)
      if (codex !== undefined) return codex
    }
    if (containment.launcher === undefined || call === undefined || call.tool !== "shell") {
      return { placed: Placement.place(gate, calls[0]!, { state: "off" }), boundary: steward }
    }
    const profile = yield* SandboxProfile.make({
      workspace: governed.engine.workspace,
      home: governed.home,
      level: gate.level,
      policy: governed.sandbox ?? {}
    }).pipe(Effect.option)
    const placed = Placement.place(
      gate,
      call,
      Option.isNone(profile)
        ? { state: "unavailable", reason: `the workspace ${governed.engine.workspace} cannot be sandboxed` }
        : { state: "on", allowDomains: profile.value.network.allowDomains, writable: profile.value.writable }
    )
    return { placed, boundary: steward }
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
    const { boundary, placed } = yield* place(gate, calls, governed, options.containment, options.client, input)
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
      const contained = command !== undefined && placed.where === "sandbox" && placed.contained.length > 0
      // "Allow, contained": the boundary is what made this allow; the command runs inside it —
      // Codex's own as it is, Steward's through the rewrite.
      answer = contained && boundary.by === "codex"
        ? { _tag: "allow", reason: `Steward allows this inside Codex's own sandbox: ${cite(decision.citation)}` }
        : contained && launcher !== undefined && typeof input.toolInput === "object" && input.toolInput !== null
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
          boundary: placed.where === "sandbox"
            ? boundary.by === "codex" ? `codex:${boundary.policy}` : "steward"
            : null,
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
