/**
 * `shell` inside the OS sandbox (issue 31 item 3, ADR 0563): the command line runs through the
 * host's `Sandbox` service with the session's profile — the filesystem read-only but the
 * workspace (read-only too at `read_only`), protected paths and secrets held, no network but the
 * policy's allowlist, a PID namespace whose whole tree is killed when the call ends or times out
 * (so nothing survives through `setsid`, `nohup` or a double fork), resource limits. The result
 * reads like the host's: output, then `[exit code N]`, plus what the boundary had to stop.
 *
 * @internal
 */
import * as Sandbox from "@steward/governance-rules/Sandbox"
import * as Effect from "effect/Effect"
import type * as Tools from "../../Tools.js"
import { bound } from "./output.js"

// What the sandbox keeps per stream before the result is bounded for the model.
const KEEP_BYTES = 4 * 1024 * 1024

const decoder = () => new TextDecoder("utf-8", { fatal: false })

const notes = (done: Sandbox.Completed): ReadonlyArray<string> => [
  ...(done.processLimitHit ? ["[the command hit the sandbox's process limit]"] : []),
  ...(done.memoryLimitHit ? ["[the command hit the sandbox's memory limit]"] : []),
  ...(done.killedAfterExit > 0
    ? [`[${done.killedAfterExit} background process(es) left by the command were stopped when it ended]`]
    : [])
]

/** Run `line` inside the sandbox for at most `seconds`; `timedOut` says how to narrow it. */
export const run = (
  sandbox: Tools.Contained,
  workspace: string,
  line: string,
  seconds: number,
  timedOut: (seconds: number) => string
): Effect.Effect<Tools.ToolResult> =>
  sandbox.run({
    argv: Sandbox.shell(line),
    cwd: workspace,
    stdin: "",
    timeoutMs: seconds * 1000,
    maxOutputBytes: KEEP_BYTES
  }).pipe(
    Effect.map((done): Tools.ToolResult => {
      const text = decoder().decode(done.stdout) + decoder().decode(done.stderr)
      const printed = bound(text)
      const truncated = printed.truncated || done.truncated ? { truncated: true } : {}
      const after = notes(done)
      if (done.timedOut || done.exitCode === null) {
        return { ok: false, output: `${printed.text}\n${timedOut(seconds)}`, timedOut: true, ...truncated }
      }
      const code = done.exitCode
      const sep = printed.text.endsWith("\n") || printed.text === "" ? "" : "\n"
      return {
        ok: code === 0,
        output: [`${printed.text}${sep}[exit code ${code}] (in the sandbox)`, ...after].join("\n"),
        check: { command: line, exitCode: code },
        ...truncated
      }
    }),
    // The boundary could not be built for this call: fail closed, the command did not run.
    Effect.catchAll((error) =>
      Effect.succeed({
        ok: false,
        output: `not run: the sandbox could not run the command (${error.code}: ${error.message})`
      })
    )
  )
