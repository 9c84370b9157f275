/**
 * Human output of `steward session`: events through the library's transcript renderer, a
 * session's view and the session list.
 *
 * @since 0.1.0
 */
import type * as Event from "@steward/harness-sessions/Event"
import * as EventJson from "@steward/harness-sessions/EventJson"
import type * as Session from "@steward/harness-sessions/Session"
import * as TranscriptText from "@steward/harness-sessions/TranscriptText"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Output from "../../Output.js"

const clip = (text: string, n = 400): string => {
  const one = text.replace(/\s+$/g, "")
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`
}

// A refusal's reason names its rule and pattern again (`deny: universal rule "x" (shell "…")
// matched shell "…" — why`); the call's own line above it cites them already, so the short form
// keeps only the why.
const why = (reason: string): string => {
  const at = reason.lastIndexOf(" — ")
  return clip(at === -1 ? reason : reason.slice(at + 3), 160)
}

/**
 * A refusal on one line, citing nothing the call's line above it cites already: the why. Its
 * details: `-v`, or `session show ID CALL`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const refusal = (e: Event.SessionEvent): string =>
  `  ✗ refused: ${why(String((e.data as { readonly reason?: unknown }).reason ?? ""))}`

/**
 * One event as a person reads it: the library's transcript renderer (`TranscriptText`, which hosts
 * share), a refusal on one line unless `verbose`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const event = (e: Event.SessionEvent, verbose: boolean): string | undefined =>
  // a person's rejection is the approval's line (`✗ NAME rejected CALL: reason`)
  !verbose && e.type === "tool.refused" && (e.data as { readonly by?: unknown }).by !== "person"
    ? refusal(e)
    : TranscriptText.line(e)

/**
 * Print one event as it arrives: its transcript lines, or under `--json` its NDJSON line
 * (`EventJson.line`). What `events`, `show ID CALL` and the live verbs print.
 *
 * @since 0.1.0
 * @category printing
 */
export const print = (json: boolean, verbose: boolean) => (e: Event.SessionEvent): Effect.Effect<void> => {
  const text = json ? EventJson.line(e) : event(e, verbose)
  return text === undefined ? Effect.void : Console.log(text)
}

// An open run whose owner is gone is orphaned: `continue` resumes it, a new request settles it.
const openStatus = (v: Session.SessionView): string => v.orphaned ? "orphaned" : "open"

/**
 * A session's view.
 *
 * @since 0.1.0
 * @category rendering
 */
export const view = (v: Session.SessionView): string =>
  [
    Output.table([
      ["session", v.id],
      ["workspace", v.workspace],
      ["level", v.level],
      ["events", String(v.events)],
      ["goal", v.goal === null ? "none" : `${v.goal.status}: ${clip(v.goal.objective, 120)}`],
      ...(v.owner === null
        ? []
        : [["owner", `${v.owner.id} (lease until ${new Date(v.owner.expires).toISOString()})`] as const])
    ]),
    "runs:",
    ...v.runs.map((r) =>
      `  ${r.run}  ${
        r.status === null ? openStatus(v) : `${r.status}${r.code === null ? "" : `{${r.code}}`}`
      }  ${r.toolCalls} tool calls  ${clip(r.prompt, 80)}`
    ),
    ...(v.pending.length === 0
      ? []
      : [
        "waiting for approval:",
        ...v.pending.map((p) => `  ${p.callId}  ${p.tool} ${clip(JSON.stringify(p.input), 120)}`)
      ]),
    ...(v.remembered.length === 0
      ? []
      : [
        "remembered rules:",
        ...v.remembered.map((r) => `  ${r.id}: ${r.effect} ${r.action} ${JSON.stringify(r.resource)}`)
      ])
  ].join("\n")

// A prompt on one line of the list: its first line, whitespace folded, cut with an ellipsis.
const oneLine = (text: string, n: number): string => clip(text.replace(/\s+/g, " ").trim(), n)

// The session's start, to the second, in UTC: `2026-12-07 14:35:19Z`.
const started = (at: number): string => new Date(at).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z")

/**
 * The session list: one row a session, oldest first, under a header: id, start time (UTC), runs,
 * the last run's status, calls waiting for approval, and the first prompt (cut) — the library's
 * `SessionView.summary`, the status with its code and `orphaned` for an open run nobody drives.
 *
 * @since 0.1.0
 * @category rendering
 */
export const list = (views: ReadonlyArray<Session.SessionView>): string => {
  if (views.length === 0) return "no sessions"
  const rows = views.map((v) => {
    const s = v.summary
    const last = v.runs.at(-1)
    const status = s.status === null
      ? "no runs"
      : s.status === "open"
      ? openStatus(v)
      : `${s.status}${last?.code == null ? "" : `{${last.code}}`}`
    return [v.id, started(s.startedAt), String(s.runs), status, String(s.pending), oneLine(s.firstPrompt ?? "", 60)]
  })
  const header = ["SESSION", "STARTED", "RUNS", "STATUS", "PENDING", "FIRST PROMPT"]
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  return [header, ...rows].map((r) =>
    r.map((cell, i) => i === r.length - 1 ? cell : cell.padEnd(widths[i]!)).join("  ")
  )
    .join("\n")
}
