/**
 * Whether this build can put an agent's shell command inside Steward's sandbox: it has the
 * `steward sandbox` command, and the `Sandbox` service says a boundary is available here
 * (bubblewrap on Linux). Then an "allow, contained" decision is rewritten to run inside it;
 * otherwise nothing is rewritten, and what the analyser cannot resolve stays an ask (a deny in
 * the headless modes) — never a silent run without the boundary.
 *
 * @since 0.3.0
 */
import * as Sandbox from "@steward/governance-rules/Sandbox"
import * as Effect from "effect/Effect"
import { areas } from "../Cli.js"
import type * as PreTool from "./PreTool.js"

/**
 * The containment of this process's build (`entry`: the CLI entry the hooks run, `bin.js`).
 *
 * @since 0.3.0
 * @category constructors
 */
export const detect = (entry: string | undefined): Effect.Effect<PreTool.Containment> =>
  Effect.gen(function*() {
    if (entry === undefined || !areas.some((a) => a.name === "sandbox")) return { launcher: undefined }
    const availability = yield* Effect.flatMap(Sandbox.Sandbox, (s) => s.availability).pipe(
      Effect.provide(Sandbox.layer())
    )
    return availability.available
      ? { launcher: { node: process.execPath, entry: [...process.execArgv, entry] } }
      : { launcher: undefined }
  })
