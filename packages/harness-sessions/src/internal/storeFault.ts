/**
 * Store failures named for a person (issue 34 item 5): a full disk says which disk, whatever the
 * engine calls it (`SQLITE_FULL`, `ENOSPC`, PostgreSQL's `53100 disk_full`); a lost PostgreSQL
 * connection is recognised so the store can retry it for a while (`isConnectionLoss`).
 */
import { HarnessError } from "../HarnessError.js"
import * as Limits from "../Limits.js"

// The error and its causes, outermost first (an SqlError wraps the driver's error).
const chain = (error: unknown): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  let e: unknown = error
  for (let i = 0; i < 8 && typeof e === "object" && e !== null; i++) {
    out.push(e as Record<string, unknown>)
    e = (e as { cause?: unknown }).cause
  }
  return out
}

const text = (e: Record<string, unknown>) => `${String(e["code"] ?? "")} ${String(e["message"] ?? "")}`

/** Whether a failure is a full disk. */
export const isDiskFull = (error: unknown): boolean =>
  chain(error).some((e) =>
    /\b(SQLITE_FULL|ENOSPC|53100)\b|database or disk is full|No space left on device/.test(text(e))
  )

/** Whether a failure is a lost or refused database connection (worth retrying). */
export const isConnectionLoss = (error: unknown): boolean =>
  chain(error).some((e) =>
    /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|57P01|57P02|57P03|08000|08003|08006|08001|08004)\b|Connection terminated|connection (is )?(closed|ended|lost)|terminating connection|the database system is (starting up|shutting down)|server closed the connection|Client has encountered a connection error/i
      .test(text(e))
  )

// The driver's own words (an SqlError says only "Failed to execute statement").
const detail = (error: unknown) =>
  chain(error).map((e) => String(e["message"] ?? "")).filter((m) => m !== "").join(": ")

/** A store failure: `what` failed, with the disk named when it is full. */
export const failed = (location: string | undefined) => (what: string) => (error: { readonly message: string }) =>
  new HarnessError({
    code: "STORE_FAILED",
    message: isDiskFull(error)
      ? `session store: ${what} failed: the disk holding ${location ?? "the database"} is full; free space and resume`
      : isConnectionLoss(error)
      ? `session store: ${what} failed: the connection to the database was lost and not restored within the reconnect window (STEWARD_SESSION_RECONNECT): ${
        Limits.cut(detail(error), 500)
      }`
      : `session store: ${what} failed: ${Limits.cut(error.message, 2000)}`
  })
