/**
 * Reading a session back from its events: its runs (and which never settled, and which are paused
 * at an ask), each run's evidence for a checkpoint, and the calls still waiting for a person's
 * answer.
 */
import type * as Checkpoint from "../Checkpoint.js"
import type * as Event from "../Event.js"

/**
 * The event types `runs` and `pending` read: a session's view (and whether a run is open) needs
 * only these, so a view reads them alone instead of the whole stream.
 */
export const viewTypes: ReadonlyArray<string> = [
  "run.start",
  "tool.call",
  "tool.result",
  "tool.refused",
  "approval",
  "checkpoint",
  "run.pause",
  "run.settle"
]

/**
 * One run as its events tell it. `status` is the settle's, `"paused"` for a run stopped at an ask
 * nobody answered yet (its `pending` call), and null for a run still open (being driven, or left
 * by a killed process).
 */
export interface RunView {
  readonly run: string
  readonly prompt: string
  readonly trigger: string
  readonly start: Record<string, unknown>
  readonly status: string | null
  /** The call the run is paused at (`run.pause` with no answer yet), or null. */
  readonly pending: PendingCall | null
  readonly code: string | null
  readonly reason: string | null
  readonly toolCalls: number
  readonly checkpoint: Checkpoint.Checkpoint | null
}

const obj = (u: unknown): Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? u as Record<string, unknown> : {}

/** The runs of a session, in order. */
export const runs = (events: ReadonlyArray<Event.SessionEvent>): Array<RunView> => {
  const out = new Map<string, RunView>()
  for (const e of events) {
    if (e.run === null) continue
    const d = obj(e.data)
    if (e.type === "run.start") {
      out.set(e.run, {
        run: e.run,
        prompt: String(d["prompt"] ?? ""),
        trigger: String(d["trigger"] ?? "person"),
        start: d,
        status: null,
        pending: null,
        code: null,
        reason: null,
        toolCalls: 0,
        checkpoint: null
      })
      continue
    }
    const view = out.get(e.run)
    if (view === undefined) continue
    if (e.type === "run.pause") out.set(e.run, { ...view, pending: pauseOf(e.run, d) })
    if (e.type === "approval" && answers(d, view.pending)) out.set(e.run, { ...view, pending: null })
    if (e.type === "tool.result") out.set(e.run, { ...view, toolCalls: view.toolCalls + 1 })
    if (e.type === "checkpoint") out.set(e.run, { ...view, checkpoint: d["checkpoint"] as Checkpoint.Checkpoint })
    if (e.type === "run.settle") {
      out.set(e.run, {
        ...view,
        status: String(d["status"]),
        code: d["code"] === null || d["code"] === undefined ? null : String(d["code"]),
        reason: d["reason"] === null || d["reason"] === undefined ? null : String(d["reason"])
      })
    }
  }
  return [...out.values()].map((v) => v.status === null && v.pending !== null ? { ...v, status: "paused" } : v)
}

const pauseOf = (run: string, d: Record<string, unknown>): PendingCall => ({
  run,
  callId: String(d["callId"]),
  tool: String(d["tool"]),
  input: d["input"] ?? null,
  citation: d["citation"] ?? null,
  scope: typeof d["scope"] === "string" ? d["scope"] : null,
  alternatives: Array.isArray(d["alternatives"]) ? d["alternatives"].map(String) : [],
  unscoped: typeof d["unscoped"] === "string" ? d["unscoped"] : null
})

// A person's answer to the run's open pause.
const answers = (d: Record<string, unknown>, pending: PendingCall | null): boolean =>
  pending !== null && d["by"] === "person" && d["callId"] === pending.callId &&
  (d["answer"] === "allow" || d["answer"] === "reject")

/** The evidence of one run, from its events (for the checkpoint of a run that never settled). */
export const evidence = (events: ReadonlyArray<Event.SessionEvent>, run: string): Checkpoint.Evidence => {
  let asked = ""
  let lastText = ""
  let slice = 1
  const done: Array<string> = []
  const files: Array<string> = []
  const checks: Array<{ command: string; exitCode: number }> = []
  let todos: ReadonlyArray<{ content: string; status: string }> = []
  for (const e of events) {
    if (e.run !== run) continue
    const d = obj(e.data)
    if (e.type === "run.start") asked = String(d["prompt"] ?? "")
    if (e.type === "message" && d["role"] === "assistant") lastText = String(d["text"] ?? "")
    if (e.type === "notice" && d["cause"] === "slice") slice = Number(d["slice"] ?? slice + 1)
    if (e.type === "tool.result") {
      done.push(`${String(d["tool"])}: ${d["ok"] === true ? "ok" : "failed"}`)
      for (const f of Array.isArray(d["filesTouched"]) ? d["filesTouched"] : []) files.push(String(f))
      const check = obj(d["check"])
      if (typeof check["command"] === "string") {
        checks.push({ command: check["command"], exitCode: Number(check["exitCode"]) })
      }
    }
    if (e.type === "tool.call" && d["tool"] === "todo_write") {
      const items = obj(d["input"])["todos"]
      if (Array.isArray(items)) {
        todos = items.map((t) => ({ content: String(obj(t)["content"]), status: String(obj(t)["status"]) }))
      }
    }
  }
  return { asked, done, filesTouched: files, checks, todos, lastText, toolCalls: done.length, slice }
}

/** A call a run is paused at, waiting for a person's answer (`run.pause`). */
export interface PendingCall {
  readonly run: string
  readonly callId: string
  readonly tool: string
  readonly input: unknown
  readonly citation: unknown
  /** The scope approve-and-remember would save (governance's narrowest honoured one), or null. */
  readonly scope: string | null
  /** Wider honoured scopes a person may choose instead, narrowest first. */
  readonly alternatives: ReadonlyArray<string>
  /** Why no scope can be remembered (governance's reason), or null when `scope` is set. */
  readonly unscoped: string | null
}

/** The calls waiting for a person's answer: each paused run's call. */
export const pending = (events: ReadonlyArray<Event.SessionEvent>): Array<PendingCall> =>
  runs(events).flatMap((r) => r.status === "paused" && r.pending !== null ? [r.pending] : [])
