/**
 * What the engine needs from its host, taken explicitly (issue 18 item 4): the workspace always
 * comes from the caller; the home directory from the caller, or else from the `HOME` value of
 * the host's `ConfigProvider` — never from `process.cwd()` or `os.homedir()`.
 *
 * @internal
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as GovernanceError from "../../GovernanceError.js"

/** @internal */
export const missingWorkspace = GovernanceError.make(
  "input-invalid",
  "the policy engine needs a workspace (pass `workspace`: the host says where it is)",
  { key: "workspace" }
)

/** The home directory: `explicit`, else the configured `HOME`. @internal */
export const homeOf = (explicit: string | undefined): Effect.Effect<string, GovernanceError.GovernanceError> =>
  explicit !== undefined
    ? Effect.succeed(explicit)
    : Config.string("HOME").pipe(
      Effect.mapError(() =>
        GovernanceError.make(
          "input-invalid",
          "the policy engine needs a home directory (pass `home`, or configure HOME)",
          { key: "home" }
        )
      )
    )
