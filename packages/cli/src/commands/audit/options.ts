/**
 * The audit area's shared options and the `audit` parent command (its `--project`).
 *
 * @since 0.1.0
 * @internal
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Project from "@steward/audit-state/Project"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as GlobalOptions from "../../GlobalOptions.js"

const projectOption = Options.directory("project", { exists: "yes" }).pipe(
  Options.withPseudoName("DIR"),
  Options.withDescription("The audited project (an existing folder; holds audit/); default: the current directory"),
  Options.optional
)

/**
 * The `audit` command (parent of every verb).
 *
 * @since 0.1.0
 * @internal
 */
export const audit = Command.make("audit", { project: projectOption })

/** @internal */
export const common = { ...GlobalOptions.global, project: projectOption }
/** @internal */
export const expectRevision = Options.integer("expect-revision").pipe(
  Options.withDescription("Refuse (stale-revision) unless the state is at this revision"),
  Options.optional
)
/** @internal */
export const opt = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.optional)
/** @internal */
export const req = (name: string, description: string) => Options.text(name).pipe(Options.withDescription(description))
/** @internal */
export const u = <A>(o: Option.Option<A>): A | undefined => Option.getOrUndefined(o)
/** @internal */
export const list = (s: string | undefined): ReadonlyArray<string> | undefined =>
  s === undefined ? undefined : s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)

/**
 * The `LEDGER.md` banner this CLI writes: the store the view comes from and the command that
 * re-renders it here (five lines, as xcheck's, so drift line numbers are the same).
 *
 * @internal
 */
export const LEDGER_BANNER: ReadonlyArray<string> = [
  "<!-- GENERATED FROM audit/state.sqlite (the audit store) — DO NOT EDIT.",
  "     This table is a VIEW. It is rendered from the state in audit/state.sqlite and is",
  "     never read back as authority. An edit here is refused by every command as drift,",
  "     naming this file and the row: re-render with `steward audit render-views`, or",
  "     change the state itself through a `steward audit` write verb. -->"
]

/**
 * The project's paths: the verb's own `--project`, else the parent's, else the current directory.
 *
 * @internal
 */
export const resolveProject = (own: Option.Option<string>) =>
  Effect.map(audit, (parent) =>
    Project.paths(Option.getOrElse(Option.orElse(own, () => parent.project), () => "."), {
      ledgerBanner: LEDGER_BANNER
    }))
