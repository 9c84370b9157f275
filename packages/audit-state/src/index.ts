/**
 * @since 0.1.0
 */

/**
 * The package's one error (closed `code` set).
 *
 * @since 0.1.0
 */
export * as AuditError from "./AuditError.js"

/**
 * The `AuditStore` service: verbs as transactions, import/export, dispatches, events.
 *
 * @since 0.1.0
 */
export * as AuditStore from "./AuditStore.js"

/**
 * The state with xcheck's full drift check, the check remembered per revision (ADR 0141).
 *
 * @since 0.3.0
 */
export * as Checked from "./Checked.js"

/**
 * The self-contained HTML dashboard.
 *
 * @since 0.1.0
 */
export * as Dashboard from "./Dashboard.js"

/**
 * The `next` decision: the pure priority function and the state-level gates.
 *
 * @since 0.1.0
 */
export * as Decision from "./Decision.js"

/**
 * The embargo (spec §4.3): held passes, charter slices, dispatch keys.
 *
 * @since 0.1.0
 */
export * as Embargo from "./Embargo.js"

/**
 * The hash-chained event stream.
 *
 * @since 0.1.0
 */
export * as Events from "./Events.js"

/**
 * `metrics --json` / `status --json`: closed, versioned payloads.
 *
 * @since 0.1.0
 */
export * as Metrics from "./Metrics.js"

/**
 * `next`'s decision with its drift check, remembered per revision (ADR 0141).
 *
 * @since 0.3.0
 */
export * as Next from "./Next.js"

/**
 * The audited project on disk: views, drift, lint, orchestrator.conf, subject resolution.
 *
 * @since 0.1.0
 */
export * as Project from "./Project.js"

/**
 * The project's files as an injected service: the real disk, or an in-memory tree for tests.
 *
 * @since 0.3.0
 */
export * as ProjectFiles from "./ProjectFiles.js"

/**
 * The state document: model, closed validation, canonical bytes.
 *
 * @since 0.1.0
 */
export * as State from "./State.js"

/**
 * The write verbs and dispatch authorization.
 *
 * @since 0.1.0
 */
export * as Verbs from "./Verbs.js"

/**
 * LEDGER.md and frontmatter rendering, drift comparison.
 *
 * @since 0.1.0
 */
export * as Views from "./Views.js"

/**
 * Closed vocabularies and tables.
 *
 * @since 0.1.0
 */
export * as Vocabulary from "./Vocabulary.js"
