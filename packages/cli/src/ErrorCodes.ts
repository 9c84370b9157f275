/**
 * The CLI's one error vocabulary: a closed set of kebab-case codes, each with its exit code, and
 * the one place where every area's own code (`GRAPH_CYCLE`, `policy-invalid`, `stale-revision`…)
 * is mapped onto it. The area's code is kept as the error's `reason`, so nothing is lost.
 * Documented in `docs/cli.md` (ADR 0003).
 *
 * @since 0.1.0
 */

/**
 * Every code the CLI reports, with its exit code and meaning.
 *
 * @since 0.1.0
 * @category models
 */
export const codes = {
  "usage": { exit: 2, meaning: "the command line is wrong: unknown option or command, missing or extra argument" },
  "invalid-input": { exit: 2, meaning: "a file or value given is not valid (JSON, schema, manifest, policy, program)" },
  "invalid-config": { exit: 2, meaning: "config.json in the state directory is not valid" },
  "not-found": { exit: 2, meaning: "a named file, directory or record does not exist" },
  "io": { exit: 2, meaning: "a file could not be read or written (permissions, not a regular file)" },
  "limit": { exit: 2, meaning: "an input is over a limit: size, nesting depth, lines, fuel or budget" },
  "state-dir": { exit: 2, meaning: "the state directory cannot be used (missing, not a directory, read-only)" },
  "storage": { exit: 2, meaning: "the database could not be opened, migrated or written" },
  "internal": { exit: 2, meaning: "a bug in Steward; the message says where" },
  "refused": { exit: 1, meaning: "the move is not allowed now (state, revision, authority, decision)" },
  "failed": { exit: 1, meaning: "the work ran and failed (a program, a tool, an effect)" },
  "mismatch": { exit: 1, meaning: "a verification found a difference (receipt, digest, ledger, views)" },
  "busy": {
    exit: 1,
    meaning: "another process drives the session now; the message names it and when its lease expires"
  },
  "orphaned": {
    exit: 1,
    meaning: "the run followed has no live process driving it (its lease lapsed); `session continue ID` resumes it"
  },
  "interrupted": { exit: 130, meaning: "stopped by SIGINT (exit 130) or SIGTERM (exit 143)" }
} as const

/**
 * A code of the CLI's vocabulary.
 *
 * @since 0.1.0
 * @category models
 */
export type Code = keyof typeof codes

// The areas' own codes (each package's closed set), by the CLI code they mean.
const byArea: Readonly<Record<string, Code>> = {
  // shell (this package)
  "usage": "usage",
  "invalid-input": "invalid-input",
  "io": "io",
  "state-dir": "state-dir",
  "config": "invalid-config",
  "sqlite": "storage",
  "database": "storage",
  "internal": "internal",
  // @steward/algal-runtime (ALGAL's error codes) and the expr boundary
  "PARSE_FAILED": "invalid-input",
  "MANIFEST_INVALID": "invalid-input",
  "GRAPH_CYCLE": "invalid-input",
  "TYPE_MISMATCH": "invalid-input",
  "GUARD_INVALID": "invalid-input",
  "SCORER_INVALID": "invalid-input",
  "AXIS_INVALID": "invalid-input",
  "INTERFACE_MISMATCH": "invalid-input",
  "DEPTH_EXCEEDED": "limit",
  "INPUT_MISSING": "invalid-input",
  "FN_UNKNOWN": "invalid-input",
  "FN_FAILED": "failed",
  "EXPR_FAILED": "failed",
  "TOOL_UNKNOWN": "invalid-input",
  "TOOL_FAILED": "failed",
  "EFFECT_FAILED": "failed",
  "EFFECT_UNPARSEABLE": "failed",
  "EFFECT_UNBOUND": "invalid-input",
  "EFFECT_SUSPENDED": "failed",
  "CAPABILITY_DENIED": "refused",
  "MAILBOX_FULL": "limit",
  "BUDGET_EXHAUSTED": "limit",
  "STUCK": "failed",
  "STORE_MISS": "not-found",
  "DIGEST_MISMATCH": "mismatch",
  "RECEIPT_MISMATCH": "mismatch",
  "IO_FAILED": "io",
  "INTERNAL": "internal",
  "EXPR_PARSE": "invalid-input",
  "EXPR_BOUNDS": "limit",
  "EXPR_FUEL": "limit",
  // @steward/audit-state
  "invalid-state": "invalid-input",
  "not-found": "not-found",
  "refused": "refused",
  "unauthorized": "refused",
  "stale-revision": "refused",
  "ledger": "storage",
  "drift": "mismatch",
  "storage": "storage",
  "output-schema": "internal",
  // @steward/governance-rules
  "policy-invalid": "invalid-input",
  "policy-io": "io",
  "input-invalid": "invalid-input",
  "parser-unavailable": "internal",
  "denied": "refused",
  "ask-unanswered": "refused",
  "evidence-store": "storage",
  "sandbox-unavailable": "refused",
  "sandbox-invalid": "invalid-input",
  "sandbox-failed": "failed",
  // @steward/reflex-core
  "invalid-params": "invalid-input",
  "invalid-config": "invalid-config",
  "invalid-import": "invalid-input",
  "program-rejected": "invalid-input",
  "program-failed": "failed",
  "unknown-reflex": "not-found",
  "conflict": "refused",
  // @steward/harness-sessions
  "SESSION_NOT_FOUND": "not-found",
  "RUN_NOT_FOUND": "not-found",
  "INVALID_INPUT": "invalid-input",
  "GOAL_REFUSED": "refused",
  "MODEL_FAILED": "failed",
  "STORE_FAILED": "storage",
  "VERIFY_FAILED": "mismatch",
  "BUSY": "busy",
  // the CLI's own codes map to themselves
  "limit": "limit",
  "failed": "failed",
  "mismatch": "mismatch",
  "orphaned": "orphaned",
  "interrupted": "interrupted"
}

/**
 * Whether an area's code has an explicit mapping (tests check every package's closed set).
 *
 * @since 0.1.0
 * @category utils
 */
export const isMapped = (areaCode: string): boolean => Object.hasOwn(byArea, areaCode)

/**
 * The CLI code for an area's code and the exit code the area chose. When the two disagree (an
 * area reports a normally-fatal code as a refusal), the exit code wins and the code becomes the
 * generic one of that exit: `refused` for 1, `invalid-input` for 2.
 *
 * @since 0.1.0
 * @category utils
 */
export const toCli = (areaCode: string, exitCode: number): Code => {
  const mapped = byArea[areaCode] ?? (exitCode === 1 ? "refused" : "internal")
  if (codes[mapped].exit === exitCode || mapped === "interrupted") return mapped
  return exitCode === 1 ? "refused" : "invalid-input"
}
