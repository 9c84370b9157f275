/**
 * The audit state's lifecycle: `init`, `render-views`, `import-state`, `export-state`.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as AuditError from "@steward/audit-state/AuditError"
import * as Project from "@steward/audit-state/Project"
import * as State from "@steward/audit-state/State"
import * as Views from "@steward/audit-state/Views"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AuditDatabase from "../../AuditDatabase.js"
import * as BoundedFile from "../../BoundedFile.js"
import { cannotRun } from "../../CliError.js"
import * as Output from "../../Output.js"
import * as Progress from "../../Progress.js"
import { common, opt, resolveProject } from "./options.js"
import { renderAndMark, toCli, withStore } from "./store.js"

export const init = Command.make(
  "init",
  {
    ...common,
    generatedBy: Options.text("generated-by").pipe(
      Options.withDescription("Who created the state, as recorded in it"),
      Options.withDefault("steward audit init")
    )
  },
  ({ generatedBy, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      yield* withStore(p, true, (store) =>
        Effect.gen(function*() {
          const doc = yield* store.init(generatedBy)
          const fs = yield* FileSystem.FileSystem
          for (const dir of ["findings", "passes", "plans", "construals"]) {
            yield* fs.makeDirectory(`${p.audit}/${dir}`, { recursive: true }).pipe(
              Effect.mapError((e) => AuditError.make("io", `cannot create ${p.audit}/${dir}: ${e.message}`))
            )
          }
          yield* renderAndMark(p, store, doc)
          yield* Output.result(
            json,
            {
              project: p.project,
              database: AuditDatabase.display(yield* AuditDatabase.locate(p)),
              state_revision: doc.state_revision
            },
            (r) => `initialised an empty audit state in ${r.database} (state revision ${r.state_revision})`
          )
        }))
    })
).pipe(Command.withDescription("Create an empty audit state (revision 0) in <project>/audit/"))

export const renderViewsCommand = Command.make("render-views", common, ({ json, project }) =>
  Effect.gen(function*() {
    const p = yield* resolveProject(project)
    yield* withStore(p, false, (store) =>
      Effect.gen(function*() {
        const doc = yield* store.load
        const { destroyed, written } = yield* renderAndMark(p, store, doc)
        yield* Output.result(json, { written, drifted: destroyed }, (r) =>
          r.drifted.length === 0
            ? `views rendered (${r.written} file(s) written)`
            : `${r.drifted.length} view(s) had drifted and were re-rendered from state; the hand edits destroyed:\n${
              Views.driftMessage(r.drifted).split("\n").slice(1, -1).join("\n")
            }`)
      }))
  })).pipe(Command.withDescription("Re-render LEDGER.md and every frontmatter block from state (repairs drift)"))

/** The largest `state.json` or `events.jsonl` `import-state` reads. */
const IMPORT_MAX_BYTES = 256 * 1024 * 1024

const EXIT_2_IMPORT: ReadonlySet<string> = new Set(["invalid-input", "io", "storage", "invalid-state", "ledger"])

export const importState = Command.make(
  "import-state",
  {
    ...common,
    file: Args.file({ name: "FILE", exists: "yes" }).pipe(Args.withDescription("xcheck's state.json to import")),
    events: Options.file("events", { exists: "yes" }).pipe(
      Options.withDescription("xcheck's events.jsonl to import with the state"),
      Options.optional
    )
  },
  ({ events, file, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      // bounded (issue 16): size-checked before reading, FIFOs and devices refused, UTF-8 checked;
      // the JSON reader bounds the depth and refuses duplicate keys
      const read = (f: string) =>
        BoundedFile.readText(f, { maxBytes: IMPORT_MAX_BYTES }).pipe(
          Effect.mapError((e) => BoundedFile.toFailure(e, "invalid-state"))
        )
      const stateText = yield* read(file)
      const eventsText = Option.isSome(events) ? yield* read(events.value) : undefined
      // Validate before creating anything on disk: bad input writes nothing.
      const doc = yield* State.decodeText(stateText, file).pipe(Effect.mapError((e) => toCli(e, EXIT_2_IMPORT)))
      const outside = Project.pathsOutsideAudit(p, doc)
      if (outside.length > 0) {
        return yield* Effect.fail(
          cannotRun(
            "invalid-input",
            `${file}: ${outside.join("; ")} — nothing was imported`
          )
        )
      }
      yield* withStore(p, true, (store) =>
        Effect.gen(function*() {
          const report = yield* store.importState(stateText, eventsText).pipe(
            Effect.mapError((e) => toCli(e, EXIT_2_IMPORT))
          )
          yield* renderAndMark(p, store, yield* store.load)
          yield* Output.result(
            json,
            report,
            (r) =>
              `imported revision ${r.revision}: ${r.records} record(s), ${r.events} event(s)${
                r.legacyChained > 0 ? ` (${r.legacyChained} legacy line(s) chained)` : ""
              }`
          )
        }))
    })
).pipe(Command.withDescription("Import xcheck's state.json (and events.jsonl) into an empty project"))

const bytes = (text: string): string => `${Buffer.byteLength(text).toLocaleString("en-US")} bytes`

export const exportState = Command.make(
  "export-state",
  {
    ...common,
    file: Args.text({ name: "FILE" }).pipe(
      Args.withDescription("Where to write state.json (default: stdout)"),
      Args.optional
    ),
    eventsOut: opt("events-out", "Also write the chained events.jsonl here")
  },
  ({ eventsOut, file, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      const fs = yield* FileSystem.FileSystem
      yield* withStore(p, false, (store) =>
        Effect.gen(function*() {
          const write = (f: string, content: string) =>
            fs.writeFileString(f, content).pipe(Effect.mapError((e) => AuditError.make("io", `${f}: ${e.message}`)))
          // a progress line on a terminal while a large export is read and written (erased after)
          const text = yield* Progress.around(json, "audit export-state", (progress) =>
            Effect.gen(function*() {
              yield* progress.stage("reading the state")
              const text = yield* store.exportState
              if (Option.isSome(eventsOut)) {
                yield* progress.stage("reading the event log")
                const events = yield* store.exportEvents
                yield* progress.stage(`writing ${eventsOut.value} (${bytes(events)})`)
                yield* write(eventsOut.value, events)
              }
              if (Option.isSome(file)) {
                yield* progress.stage(`writing ${file.value} (${bytes(text)})`)
                yield* write(file.value, text)
              }
              return text
            }))
          if (Option.isSome(file)) {
            yield* Output.result(
              json,
              { file: file.value, bytes: Buffer.byteLength(text) },
              (r) => `wrote ${r.file} (${r.bytes} bytes)`
            )
          } else if (json) {
            yield* Console.log(JSON.stringify({ state: JSON.parse(text) }, null, 2))
          } else {
            yield* Effect.sync(() => process.stdout.write(text))
          }
        }))
    })
).pipe(Command.withDescription("Export the canonical state.json (byte-compatible with xcheck schema 1)"))
