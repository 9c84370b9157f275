/**
 * `steward audit migrate [--dry-run]`: xcheck's one-shot bootstrap (spec §3.3) — an existing
 * Markdown audit (`audit/AUDIT.md` and the frontmatter of its findings, plans, construals and pass
 * reports) becomes the project's audit state. It refuses when state exists; any defect writes
 * nothing (exit 2, `invalid-input`, every defect listed). On success the views it overwrites are backed up under
 * `audit/.migration-backup/`, the views are rendered, and the undo is printed.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Project from "@steward/audit-state/Project"
import * as State from "@steward/audit-state/State"
import * as Effect from "effect/Effect"
import * as nodePath from "node:path"
import * as BoundedFile from "../../BoundedFile.js"
import { cannotRun, refused } from "../../CliError.js"
import * as Output from "../../Output.js"
import * as Markdown from "./markdown.js"
import { common, resolveProject } from "./options.js"
import { toCli, withStore } from "./store.js"

const DIRS = ["findings", "plans", "construals", "passes"]
const BACKUP = ".migration-backup"

const io = (what: string) => (e: { readonly message: string }) => cannotRun("io", `${what}: ${e.message}`)

/** A Markdown record is read as the audit store reads its own files (issue 16). */
const MARKDOWN_LIMITS: BoundedFile.Limits = { maxBytes: 64 * 1024 * 1024 }

/** A Markdown file's text: a FIFO or device refused unopened, the size checked before reading. */
const readMarkdown = (file: string) =>
  BoundedFile.readText(file, MARKDOWN_LIMITS).pipe(Effect.mapError((e) => BoundedFile.toFailure(e)))

/** Every Markdown file under the four record folders, relative to `audit/`. */
const sources = (p: Project.ProjectPaths) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const out: Array<Markdown.SourceFile> = []
    for (const dir of DIRS) {
      const names = yield* fs.readDirectory(`${p.audit}/${dir}`).pipe(Effect.orElseSucceed(() => [] as Array<string>))
      for (const name of names.filter((n) => n.endsWith(".md")).sort()) {
        const rel = `${dir}/${name}`
        out.push({ rel, text: yield* readMarkdown(`${p.audit}/${rel}`) })
      }
    }
    return out
  })

/** @internal */
export const migrate = Command.make(
  "migrate",
  {
    ...common,
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("Read and check everything; write nothing"))
  },
  ({ dryRun, json, project }) =>
    Effect.gen(function*() {
      const p = yield* resolveProject(project)
      const fs = yield* FileSystem.FileSystem
      if (yield* fs.exists(p.database).pipe(Effect.orElseSucceed(() => false))) {
        return yield* refused(
          "refused",
          `audit state already exists at ${p.database}: migrate is one-shot and never overwrites state ` +
            "(change it with the write verbs, or export it with `steward audit export-state`)"
        )
      }
      const auditFile = `${p.audit}/AUDIT.md`
      if (!(yield* fs.exists(auditFile).pipe(Effect.orElseSucceed(() => false)))) {
        return yield* cannotRun(
          "not-found",
          `no ${auditFile} to migrate: the Planner's AUDIT.md is what migrate reads (start an empty state with ` +
            "`steward audit init` instead)"
        )
      }
      const text = yield* readMarkdown(auditFile)
      const files = yield* sources(p)
      const read = Markdown.read(text, files, {
        generatedBy: "steward audit migrate",
        head: Project.subjectHead(p.project)
      })
      if (read._tag === "Defects") {
        return yield* cannotRun(
          "invalid-state",
          `migrate: ${read.defects.length} defect(s) — nothing was written:\n${
            read.defects.map((d) => `  - ${d}`).join("\n")
          }`,
          { defects: read.defects }
        )
      }
      const stateText = JSON.stringify(read.doc)
      // the whole document passes the state schema (closed, cross-checked) before anything is written
      const doc = yield* State.decodeText(stateText, "the migrated state").pipe(
        Effect.mapError((e) => cannotRun("invalid-state", `migrate: ${e.message} — nothing was written`))
      )
      const outside = Project.pathsOutsideAudit(p, doc)
      if (outside.length > 0) {
        return yield* refused("invalid-state", `migrate: ${outside.join("; ")} — nothing was written`)
      }
      const summary = Object.entries(read.counts).map(([k, v]) => `${v} ${k}`).join(", ")
      if (dryRun) {
        return yield* Output.result(
          json,
          { dry_run: true, counts: read.counts },
          () => `migrate --dry-run: AUDIT.md reads cleanly (${summary}); nothing was written`
        )
      }
      // back up every view the render will overwrite, then import and render
      const backedUp: Array<string> = []
      for (
        const rel of ["LEDGER.md", ...State.records(doc).map((r) => r.body_path)]
      ) {
        const from = `${p.audit}/${rel}`
        if (!(yield* fs.exists(from).pipe(Effect.orElseSucceed(() => false)))) continue
        const to = `${p.audit}/${BACKUP}/${rel}`
        yield* fs.makeDirectory(nodePath.dirname(to), { recursive: true }).pipe(Effect.mapError(io(to)))
        yield* fs.copyFile(from, to).pipe(Effect.mapError(io(to)))
        backedUp.push(rel)
      }
      yield* withStore(p, true, (store) =>
        Effect.gen(function*() {
          yield* store.importState(stateText).pipe(Effect.mapError((e) => toCli(e)))
          yield* Project.renderViews(p, yield* store.load)
        }))
      const undo = [
        `rm -f ${p.database} ${p.database}-wal ${p.database}-shm`,
        `cp -R ${p.audit}/${BACKUP}/. ${p.audit}/`,
        `rm -rf ${p.audit}/${BACKUP}`
      ]
      yield* Output.result(
        json,
        { migrated: true, state_revision: doc.state_revision, counts: read.counts, backed_up: backedUp, undo },
        (r) =>
          [
            `migrated AUDIT.md into ${p.database} (state revision ${r.state_revision}): ${summary}`,
            `${r.backed_up.length} view(s) backed up under audit/${BACKUP}/; to undo:`,
            ...r.undo.map((c) => `  ${c}`)
          ].join("\n")
      )
    })
).pipe(Command.withDescription("One-shot: turn an existing Markdown audit (AUDIT.md, frontmatter) into state"))
