/**
 * `audit/orchestrator.conf`: `key = value` lines; known keys validated and coerced, each bad
 * value named with its line.
 *
 * @internal
 */
import * as Decision from "../../Decision.js"
import type * as Verbs from "../../Verbs.js"

const POLICY_KEYS: Readonly<Record<string, keyof Verbs.VerbPolicy>> = {
  strict_class_moves: "strictClassMoves",
  refuse_noop_admin: "refuseNoOpAdmin",
  strict_ruling_tokens: "strictRulingTokens",
  keep_terminal_refusals: "keepTerminalRefusals"
}

const TRUE = ["1", "true", "yes", "on"]
const FALSE = ["0", "false", "no", "off"]

/** Parse `orchestrator.conf` text (pure). */
export const parseConfig = (text: string): Decision.DecisionConfig | string => {
  let config: Decision.DecisionConfig = Decision.defaultConfig
  const lines = text.split(/\r?\n/)
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!.replace(/#.*$/, "").trim()
    if (line === "") continue
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*[=:]\s*(.*)$/.exec(line)
    if (!m) return `line ${k + 1}: expected 'key = value', found '${line}'`
    const [, key, value] = m as unknown as [string, string, string]
    const bool = () => {
      if (TRUE.includes(value.toLowerCase())) return true
      if (FALSE.includes(value.toLowerCase())) return false
      return `line ${k + 1}: ${key} must be one of ${[...TRUE, ...FALSE].join(", ")}, found '${value}'`
    }
    const int = (min: number) =>
      /^[0-9]+$/.test(value) && Number(value) >= min
        ? Number(value)
        : `line ${k + 1}: ${key} must be an integer >= ${min}, found '${value}'`
    switch (key) {
      case "triage_batch_cap": {
        const v = int(0)
        if (typeof v === "string") return v
        config = { ...config, triageBatchCap: v }
        break
      }
      case "batch_size": {
        const v = int(1)
        if (typeof v === "string") return v
        config = { ...config, batchSize: v }
        break
      }
      case "construal_gate": {
        const v = bool()
        if (typeof v === "string") return v
        config = { ...config, construalGate: v }
        break
      }
      case "audit_over_critical": {
        const v = bool()
        if (typeof v === "string") return v
        config = { ...config, auditOverCritical: v }
        break
      }
      case "embargo": {
        const v = bool()
        if (typeof v === "string") return v
        config = { ...config, embargo: v }
        break
      }
      case "embargo_after": {
        const v = int(1)
        if (typeof v === "string") return v
        config = { ...config, embargoAfter: v }
        break
      }
      case "strict_class_moves":
      case "refuse_noop_admin":
      case "strict_ruling_tokens":
      case "keep_terminal_refusals": {
        const v = bool()
        if (typeof v === "string") return v
        const field = POLICY_KEYS[key]!
        config = { ...config, verbPolicy: { ...config.verbPolicy, [field]: v } }
        break
      }
      case "next_drift_scope": {
        // ADR 0134: xcheck's `next` checks every view; `decision` narrows it to what it hands over
        if (value !== "all" && value !== "decision") {
          return `line ${k + 1}: next_drift_scope must be one of all, decision, found '${value}'`
        }
        config = { ...config, nextDriftScope: value }
        break
      }
      case "budgets": {
        // xcheck's budget gates (§4.2 step 8) are not specified anywhere Steward can read: with
        // them on, `next` could hand out a session xcheck would stop. Refuse rather than guess.
        const v = bool()
        if (typeof v === "string") return v
        if (v) {
          return `line ${k + 1}: budgets = ${value} is not supported: xcheck's budget gates (§4.2 step 8) are ` +
            `not specified, so Steward cannot decide as xcheck would; set budgets = off (ADR 0108)`
        }
        break
      }
      default:
        break // operator keys this package does not read (timeouts, …) are left to their owners
    }
  }
  return config
}
