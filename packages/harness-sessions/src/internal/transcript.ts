/**
 * Reading a session back from its events: its runs (and which never settled), each run's
 * evidence for a checkpoint, and the calls still waiting for a person's approval.
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
  "run.settle"
]

/** One run as its events tell it. */
export interface RunView {
  readonly run: string
  readonly prompt: string
  readonly trigger: string
  readonly start: Record<string, unknown>
  readonly status: string | null
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
        code: null,
        reason: null,
        toolCalls: 0,
        checkpoint: null
      })
      continue
    }
    const view = out.get(e.run)
    if (view === undefined) continue
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
  return [...out.values()]
}

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

/** A call refused for want of an answer, which a person may still approve. */
export interface PendingCall {
  readonly run: string
  readonly callId: string
  readonly tool: string
  readonly input: unknown
  readonly citation: unknown
}

/** The calls still waiting for approval (refused as pending, not approved later). */
export const pending = (events: ReadonlyArray<Event.SessionEvent>): Array<PendingCall> => {
  const calls = new Map<string, { tool: string; input: unknown }>()
  const out = new Map<string, PendingCall>()
  for (const e of events) {
    const d = obj(e.data)
    const callId = typeof d["callId"] === "string" ? d["callId"] : undefined
    if (callId === undefined || e.run === null) continue
    const key = `${e.run}/${callId}`
    if (e.type === "tool.call") calls.set(key, { tool: String(d["tool"]), input: d["input"] })
    if (e.type === "tool.refused" && d["pending"] === true) {
      const call = calls.get(key)
      out.set(callId, {
        run: e.run,
        callId,
        tool: String(d["tool"]),
        input: call?.input ?? null,
        citation: d["citation"]
      })
    }
    if (e.type === "approval" && d["late"] === true && typeof d["of"] === "string") out.delete(d["of"])
  }
  return [...out.values()]
}
