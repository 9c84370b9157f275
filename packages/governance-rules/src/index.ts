/**
 * `@steward/governance-rules`: authority as data. Tool calls are allowed, asked or denied by
 * ordered, cited rules; a progress model tells a looping agent apart from a working one; lifecycle
 * hooks and decisions land in one seq-ordered evidence stream.
 *
 * @since 0.1.0
 */

/**
 * Autonomy levels, the universal layer and the level baselines.
 *
 * @since 0.1.0
 */
export * as Autonomy from "./Autonomy.js"

/**
 * The package's one error type.
 *
 * @since 0.1.0
 */
export * as GovernanceError from "./GovernanceError.js"

/**
 * The filesystem as the policy engine sees it: an injected service with node and in-memory
 * layers, so a decision is testable without a real disk.
 *
 * @since 0.1.0
 */
export * as Files from "./Files.js"

/**
 * The policy engine: decisions with citations.
 *
 * @since 0.1.0
 */
export * as Policy from "./Policy.js"

/**
 * Rules as data.
 *
 * @since 0.1.0
 */
export * as Rule from "./Rule.js"

/**
 * tree-sitter-bash on web-tree-sitter, with a parse cache.
 *
 * @since 0.1.0
 */
export * as ShellParser from "./ShellParser.js"

/**
 * The seq-ordered evidence stream (memory and SQL).
 *
 * @since 0.1.0
 */
export * as Evidence from "./Evidence.js"

/**
 * The gate a session harness composes: decide, record, resolve asks, fail closed.
 *
 * @since 0.1.0
 */
export * as Governance from "./Governance.js"

/**
 * Lifecycle hooks and their dispatcher.
 *
 * @since 0.1.0
 */
export * as Hooks from "./Hooks.js"

/**
 * Policy and case files (JSON or YAML) validated with Schema.
 *
 * @since 0.1.0
 */
export * as PolicyFile from "./PolicyFile.js"

/**
 * The progress model: nudge, then stop, a loop that goes nowhere.
 *
 * @since 0.1.0
 */
export * as Progress from "./Progress.js"

/**
 * Ask resolution.
 *
 * @since 0.1.0
 */
export * as Responder from "./Responder.js"

/**
 * A promise-based gate for hosts that are not built on Effect.
 *
 * @since 0.1.0
 */
export * as Gate from "./Gate.js"

/**
 * The paths that stay out of a command's reach inside the workspace: protected (read-only) and
 * masked (secrets). One list, shared by the sandbox and the gate.
 *
 * @since 0.1.0
 */
export * as ProtectedPaths from "./ProtectedPaths.js"

/**
 * What a sandboxed command may do: workspace, level, network, limits.
 *
 * @since 0.1.0
 */
export * as SandboxProfile from "./SandboxProfile.js"

/**
 * The OS boundary under the gate: one command run under bubblewrap (Linux), or a typed
 * `sandbox-unavailable`.
 *
 * @since 0.1.0
 */
export * as Sandbox from "./Sandbox.js"

/**
 * The gate and the boundary as one decision: where a decided call runs.
 *
 * @since 0.1.0
 */
export * as Placement from "./Placement.js"

/**
 * The scope a person's "always" remembers: the narrowest honoured rule pattern for an approved
 * call, wider alternatives, and the check of an edited scope.
 *
 * @since 0.1.0
 */
export * as ApprovalScope from "./ApprovalScope.js"
