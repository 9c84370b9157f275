/**
 * Opening the project's audit store for a command, and mapping the package's typed errors to the
 * CLI contract.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as AuditError from "@steward/audit-state/AuditError"
import * as AuditStore from "@steward/audit-state/AuditStore"
import * as Project from "@steward/audit-state/Project"
import type * as State from "@steward/audit-state/State"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AuditDatabase from "../../AuditDatabase.js"
import { cannotRun, type CommandFailure, type NegativeResult, refused } from "../../CliError.js"

const EXIT_2: ReadonlySet<string> = new Set(["invalid-input", "io", "storage"])

/** How this CLI runs an audit verb: the program a refusal's hints are named with (ADR 0135). */
export const PROGRAM = "steward audit"

/**
 * Map the package's typed error to the CLI contract (its `code` is kept as the CLI code); the
 * verbs a refusal hints at are named as this CLI runs them.
 *
 * @since 0.1.0
 * @category errors
 */
export const toCli = (error: AuditError.AuditError, exit2: ReadonlySet<string> = EXIT_2): CommandFailure => {
  const message = AuditError.renderHints(error, PROGRAM)
  return exit2.has(error.code) ? cannotRun(error.code, message) : refused(error.code, message)
}

const storeLayer = (location: AuditDatabase.AuditLocation): Layer.Layer<AuditStore.AuditStore, CommandFailure> =>
  AuditStore.layerSql.pipe(
    Layer.provide(AuditDatabase.layer(location)),
    Layer.mapError((e) => e instanceof AuditError.AuditError ? toCli(e) : e)
  )

/**
 * Run `f` with the project's store: its SQLite file, or its schema when the host names a
 * PostgreSQL database (ADR 0601). `create`: make `audit/` and the store if missing.
 */
export const withStore = <A>(
  p: Project.ProjectPaths,
  create: boolean,
  f: (
    store: AuditStore.AuditStoreShape
  ) => Effect.Effect<A, AuditError.AuditError | CommandFailure | NegativeResult, FileSystem.FileSystem | Path.Path>
): Effect.Effect<A, CommandFailure | NegativeResult, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const location = yield* AuditDatabase.locate(p)
    const where = AuditDatabase.display(location)
    if (create) {
      yield* fs.makeDirectory(p.audit, { recursive: true }).pipe(
        Effect.mapError((e) => cannotRun("io", `cannot create ${p.audit}: ${e.message}`))
      )
    } else if (!(yield* AuditDatabase.exists(location))) {
      return yield* Effect.fail(
        cannotRun(
          "not-found",
          `no audit state at ${where} — run \`steward audit init\` or \`steward audit import-state FILE\` in ${p.project}`
        )
      )
    }
    return yield* Effect.flatMap(AuditStore.AuditStore, f).pipe(
      Effect.provide(storeLayer(location)),
      Effect.catchAllDefect((defect) =>
        Effect.fail(
          cannotRun(
            "storage",
            `cannot open ${where}: ${defect instanceof Error ? defect.message : String(defect)}`
          )
        )
      )
    )
  }).pipe(
    Effect.catchIf(
      (e): e is AuditError.AuditError => e instanceof AuditError.AuditError,
      (e) => Effect.fail(toCli(e))
    )
  )

/**
 * Render the views (all, or `LEDGER.md` and the records in `only`) and record the marks of the
 * files written or found current, so later checks need not read them (ADR 0115).
 */
export const renderAndMark = (
  p: Project.ProjectPaths,
  store: AuditStore.AuditStoreShape,
  doc: State.StateDoc,
  only?: ReadonlySet<string>
) =>
  Effect.tap(
    Project.renderViews(p, doc, only),
    (rendered) => store.markViews(doc.state_revision, rendered.marks)
  )
