/**
 * xcheck's closed `--json` output schemas (v10) — type tables derived from the payload Schemas
 * (`report.ts`) — and the checker that holds a payload to them both ways with xcheck's wording.
 *
 * @internal
 */
import type { OutputSchema } from "../../Metrics.js"
import { MetricsReport, outputSchemaOf, StatusReport } from "./report.js"

/** `status --json` schema v10, derived from its Schema. */
export const STATUS_SCHEMA: OutputSchema = outputSchemaOf(StatusReport)

/** `metrics --json` schema v10, derived from its Schema. */
export const METRICS_SCHEMA: OutputSchema = outputSchemaOf(MetricsReport)

const typeOk = (v: unknown, t: string): boolean =>
  t.split("|").some((one) => {
    switch (one) {
      case "int":
        return typeof v === "number" && Number.isInteger(v)
      case "num":
        return typeof v === "number" && Number.isFinite(v)
      case "str":
        return typeof v === "string"
      case "list":
        return Array.isArray(v)
      case "dict":
        return typeof v === "object" && v !== null && !Array.isArray(v)
      case "null":
        return v === null
      case "bool":
        return typeof v === "boolean"
      default:
        return false
    }
  })

/** Check a payload against a closed schema both ways: unknown key, missing key, wrong type. */
export const outputIssues = (value: unknown, schema: OutputSchema, where = ""): ReadonlyArray<string> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [`${where || "payload"}: expected an object`]
  }
  const issues: Array<string> = []
  const obj = value as Record<string, unknown>
  for (const k of Object.keys(obj)) if (!(k in schema)) issues.push(`${where}${k}: unknown key`)
  for (const [k, t] of Object.entries(schema)) {
    if (!(k in obj)) {
      issues.push(`${where}${k}: missing key`)
      continue
    }
    if (typeof t === "string") {
      if (!typeOk(obj[k], t)) issues.push(`${where}${k}: expected ${t}, found ${JSON.stringify(obj[k])}`)
    } else issues.push(...outputIssues(obj[k], t, `${where}${k}.`))
  }
  return issues
}
