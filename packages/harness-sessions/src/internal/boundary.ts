/**
 * The boundary a run's shell calls run in (issue 31 item 3, ADR 0563): the host's `Sandbox`
 * service with the session's profile — its workspace, its level (`read_only` mounts the workspace
 * read-only) and the policy's sandbox section. No service, or one that cannot build a boundary
 * here, or a profile it refuses: the boundary is `off`/`unavailable` and the gate decides alone.
 */
import type * as Placement from "@steward/governance-rules/Placement"
import type * as Sandbox from "@steward/governance-rules/Sandbox"
import * as SandboxProfile from "@steward/governance-rules/SandboxProfile"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Tools from "../Tools.js"
import type * as Meta from "./meta.js"

/** A run's boundary: its state for the gate, and the runner contained calls use. */
export interface RunBoundary {
  readonly state: Placement.BoundaryState
  readonly contained: Option.Option<Tools.Contained>
}

const off: RunBoundary = { state: { state: "off" }, contained: Option.none() }

/** The boundary for a session's run. */
export const forRun = (
  sandbox: Option.Option<Sandbox.Service>,
  meta: Meta.Meta,
  home: string
): Effect.Effect<RunBoundary> =>
  Option.match(sandbox, {
    onNone: () => Effect.succeed(off),
    onSome: (service) =>
      Effect.gen(function*() {
        const availability = yield* service.availability
        if (!availability.available) {
          return { state: { state: "unavailable", reason: availability.reason }, contained: Option.none() }
        }
        const profile = yield* SandboxProfile.make({
          workspace: meta.workspace,
          home,
          level: meta.level,
          ...(meta.sandbox === undefined ? {} : { policy: meta.sandbox })
        }).pipe(Effect.either)
        if (profile._tag === "Left") {
          return { state: { state: "unavailable", reason: profile.left.message }, contained: Option.none() }
        }
        const built = profile.right
        return {
          state: { state: "on", allowDomains: built.network.allowDomains, writable: built.writable },
          contained: Option.some({ run: (command: Sandbox.Command) => service.run(built, command) })
        } satisfies RunBoundary
      })
  })
