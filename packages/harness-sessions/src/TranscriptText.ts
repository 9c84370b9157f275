/**
 * A session's events as a person reads them: one event as transcript lines, with decisions,
 * citations and approvals on the calls they concern. Pure functions of the event, so a host
 * prints a stored stream, a live follow (`RunStream`) or a single event the same way.
 *
 * @since 0.1.0
 */
import type * as Event from "./Event.js"

const obj = (u: unknown): Record<string, any> =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? u as Record<string, any> : {}

// `JSON.stringify` of a missing field is `undefined`: a host's or an older event may lack one.
const json = (u: unknown): string => JSON.stringify(u) ?? "null"

const clip = (text: string, n = 400): string => {
  const one = text.replace(/\s+$/g, "")
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`
}

const cite = (c: Record<string, any>): string =>
  c["ruleId"] === null || c["ruleId"] === undefined
    ? `${c["layer"]} (no rule matched)`
    : `${c["layer"]} rule ${c["ruleId"]}${
      c["pattern"] === null || c["pattern"] === undefined ? "" : ` (${c["action"]} ${json(c["pattern"])})`
    }`

const approval = (a: Record<string, any>): string =>
  a["by"] === "rule"
    ? `rule ${a["ruleId"] ?? a["layer"]}`
    : a["by"] === "person"
    ? `${a["name"]} at ${new Date(Number(a["at"])).toISOString()}${
      a["remembered"] ? ` (remembered as ${a["remembered"]})` : ""
    }`
    : `reviewer${a["reason"] ? `: ${a["reason"]}` : ""}`

const indent = (text: string, prefix = "      "): string => text.split("\n").map((l) => `${prefix}${l}`).join("\n")

/**
 * One event as transcript lines (`undefined` for events a person does not need to read).
 *
 * @since 0.1.0
 * @category rendering
 */
export const line = (e: Event.SessionEvent): string | undefined => {
  const d = obj(e.data)
  switch (e.type) {
    case "run.start":
      return `── run ${e.run} (${d["trigger"] ?? "person"})${
        d["goal"] ? ` goal: ${clip(String(obj(d["goal"])["objective"]), 120)}` : ""
      }`
    case "message":
      return d["role"] === "assistant"
        ? `model:  ${clip(String(d["text"]), 2000)}`
        : typeof d["by"] === "string"
        ? `${d["by"]}${d["receipt"] ? ` (receipt ${d["receipt"]})` : ""} → model: ${clip(String(d["text"]), 2000)}`
        : `${d["role"] === "user" ? "person" : d["role"]}: ${clip(String(d["text"]), 2000)}`
    case "model.call": {
      if (d["error"] !== undefined) return `  · model call ${d["n"]} failed: ${d["error"]}`
      const u = obj(d["usage"])
      return `  · ${d["for"] === "checker" ? "checker" : "model"} call: ${u["input"] ?? 0} in (${
        u["cachedInput"] ?? 0
      } cached), ${u["output"] ?? 0} out`
    }
    case "tool.call": {
      const a = d["approval"] === null || d["approval"] === undefined
        ? ""
        : `, approved by ${approval(obj(d["approval"]))}`
      return `  → ${d["tool"]} ${clip(json(d["input"]), 200)}  [${d["decision"]}: ${cite(obj(d["citation"]))}${a}]  (${
        d["callId"]
      })`
    }
    case "approval":
      return d["paused"] === true
        ? `  ${d["answer"] === "allow" ? "✓" : "✗"} ${d["name"]} ${d["answer"] === "allow" ? "approved" : "rejected"} ${
          d["callId"]
        }${d["reason"] ? `: ${clip(String(d["reason"]), 300)}` : ""}${
          d["remembered"] ? ` (saved ${d["remembered"]})` : ""
        }`
        : d["by"] === "person"
        ? undefined
        : d["by"] === "reviewer"
        ? `  ? reviewer answered ${d["answer"]}${d["failedClosed"] ? " (failing closed)" : ""}: ${d["reason"]}`
        : `  ? nobody could answer the ask`
    case "tool.refused":
      return d["by"] === "person"
        ? undefined
        : `  ✗ refused (${d["decision"]}) by ${cite(obj(d["citation"]))}: ${clip(String(d["reason"]), 300)}`
    case "run.pause":
      return `── paused at ${d["tool"]} call ${d["callId"]}: needs approval (${cite(obj(d["citation"]))})${
        typeof d["scope"] === "string"
          ? `; remember would save ${JSON.stringify(d["scope"])}`
          : typeof d["unscoped"] === "string"
          ? `; nothing can be remembered: ${clip(d["unscoped"], 200)}`
          : ""
      }\n    answer with: steward session approve ${e.session} ${d["callId"]} [--remember]` +
        `  |  steward session reject ${e.session} ${d["callId"]} [--reason TEXT]`
    case "tool.error":
      return `  ✗ invalid call (${d["callId"]}): ${clip(String(d["message"]), 300)}`
    case "tool.result":
      if (d["outcome"] === "unknown") return `  ← outcome unknown (${d["callId"]}): not run again after the resume`
      return `  ← ${d["ok"] === true ? "ok" : "failed"}${
        d["outcome"] === "rerun" ? " (read-only, run again after the resume)" : ""
      }${obj(d["check"])["command"] === undefined ? "" : ` (exit ${obj(d["check"])["exitCode"]})`}${
        d["timedOut"] === true ? " timed out" : ""
      }\n${indent(clip(String(d["output"] ?? ""), 600))}`
    case "notice":
      return `  ! ${d["text"]}${d["receipt"] ? ` (receipt ${d["receipt"]})` : ""}`
    case "reflex.decision":
      return d["reflex"] === "route"
        ? `  · route reflex: ${d["tier"]}${d["acts"] ? "" : " (observed)"}`
        : `  · settle reflex: ${d["category"] ?? d["skipped"] ?? "?"} → ${d["action"]}${
          d["receipt"] ? ` (receipt ${d["receipt"]})` : ""
        }`
    case "goal":
      return d["action"] === "check"
        ? `  goal check: ${d["achieved"] ? "achieved" : "not achieved"} — ${d["reason"]}`
        : `  goal: ${d["status"]}${d["blocker"] ? ` — ${d["blocker"]}` : ""}`
    case "checkpoint":
      return `  checkpoint: next — ${clip(String(obj(d["checkpoint"])["next"] ?? ""), 300)}`
    case "run.settle":
      return `── settled ${d["status"]}${d["code"] ? `{${d["code"]}}` : ""}${d["reason"] ? `: ${d["reason"]}` : ""}`
    case "hook":
    case "heartbeat":
      return undefined
    default:
      return `  [${e.type}] ${clip(json(e.data), 300)}`
  }
}

/**
 * Events as a transcript: their lines, in order, joined by newlines (events a person does not
 * need to read leave no line).
 *
 * @since 0.1.0
 * @category rendering
 */
export const text = (events: ReadonlyArray<Event.SessionEvent>): string =>
  events.map(line).filter((l): l is string => l !== undefined).join("\n")
