#!/usr/bin/env node
/**
 * The `steward` executable: runs `Main.main` with the Node platform, sets the exit code, and turns
 * SIGINT/SIGTERM into an orderly stop (the running command is interrupted: scopes close, the
 * database is released) with exit 130/143. A second signal exits at once.
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as v8 from "node:v8"
import { main, wantsJson } from "./Main.js"

// One-shot process: WebAssembly (the shell grammar) stays at V8's baseline tier. Optimizing it
// after the first parse cost more than the whole rest of `policy check` (ADR 0004). Set before any
// module compiles; hosts embedding the libraries keep V8's defaults.
v8.setFlagsFromString("--liftoff-only")

// `pnpm steward …` runs in the repository root; relative paths are the caller's
// (`scripts/pnpm.mjs` passes it as STEWARD_CWD, pnpm itself as INIT_CWD).
const callerCwd = process.env["STEWARD_CWD"] ??
  (process.env["npm_lifecycle_event"] === "steward" ? process.env["INIT_CWD"] : undefined)
delete process.env["STEWARD_CWD"]
if (callerCwd !== undefined && callerCwd !== "" && callerCwd !== process.cwd()) process.chdir(callerCwd)

const signals = { SIGINT: 130, SIGTERM: 143 } as const
let stoppedBy: keyof typeof signals | undefined

const fiber = Effect.runFork(main(process.argv).pipe(Effect.provide(NodeContext.layer)))

const stop = (signal: keyof typeof signals) => () => {
  if (stoppedBy !== undefined) process.exit(signals[stoppedBy])
  stoppedBy = signal
  Effect.runFork(Fiber.interrupt(fiber))
}
process.on("SIGINT", stop("SIGINT"))
process.on("SIGTERM", stop("SIGTERM"))

fiber.addObserver((exit) => {
  if (stoppedBy !== undefined) {
    const message = `interrupted by ${stoppedBy}`
    process.stderr.write(
      wantsJson(process.argv)
        ? `${JSON.stringify({ error: { code: "interrupted", reason: stoppedBy, message } })}\n`
        : `steward: ${message}\n`
    )
    process.exit(signals[stoppedBy])
  }
  process.exitCode = Exit.isSuccess(exit) ? exit.value : 2
})
