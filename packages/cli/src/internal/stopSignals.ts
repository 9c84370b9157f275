/**
 * How the `steward` process ends when it is told to stop: SIGINT exits 130 and SIGTERM 143 in
 * every area, whenever the signal arrives — while the modules load (the command never starts),
 * while the command runs (it is interrupted: scopes close, the database is released), and after
 * it finished but before the process is gone (it used to exit 0 then). A second signal exits at
 * once with the first one's code. The host (the real process, or a test's fake) is injected. This
 * module imports nothing, so `bin.ts` installs it before the CLI's modules load.
 *
 * @internal
 */

/** @internal */
export const exitCodes = { SIGINT: 130, SIGTERM: 143 } as const

/** @internal */
export type StopSignal = keyof typeof exitCodes

/** What the stopper needs of the process. @internal */
export interface Host {
  readonly on: (signal: StopSignal, handler: () => void) => void
  /** Ends the process with `code` (a fake may return). */
  readonly exit: (code: number) => void
  readonly setExitCode: (code: number) => void
  /** Says on stderr that the command was stopped by `signal`. */
  readonly report: (signal: StopSignal) => void
}

/** A started command: how to interrupt it, and how to learn its exit code when it ends. @internal */
export interface Running {
  readonly interrupt: () => void
  readonly onEnd: (listener: (code: number) => void) => void
}

/**
 * Install the SIGINT/SIGTERM handlers on `host` now; `run` then starts the command unless a signal
 * already arrived.
 *
 * @internal
 */
export const install = (host: Host) => {
  let stoppedBy: StopSignal | undefined
  let running: Running | undefined
  let finished = false
  const end = (signal: StopSignal) => {
    host.report(signal)
    host.exit(exitCodes[signal])
  }
  const stop = (signal: StopSignal) => {
    if (stoppedBy !== undefined) return host.exit(exitCodes[stoppedBy])
    stoppedBy = signal
    // nothing running (still loading, or already finished): nothing to interrupt
    if (running === undefined || finished) return end(signal)
    running.interrupt()
  }
  host.on("SIGINT", () => stop("SIGINT"))
  host.on("SIGTERM", () => stop("SIGTERM"))
  return {
    run: (start: () => Running): void => {
      if (stoppedBy !== undefined) return
      running = start()
      running.onEnd((code) => {
        finished = true
        if (stoppedBy !== undefined) return end(stoppedBy)
        host.setExitCode(code)
      })
    }
  }
}
