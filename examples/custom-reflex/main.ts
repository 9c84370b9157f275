#!/usr/bin/env node
// Custom reflexes end to end, with the typed authoring API of @steward/reflex-core:
//
// 1. a custom settle organism (src/settle.ts) written to a manifest, checked with
//    `steward reflex check`, installed in a fresh state directory and running there;
// 2. a rejected one (it asks a model: an agent cell) refused with every violated rule, while the
//    state directory keeps running the shipped program;
// 3. a user-defined reflex (src/retry.ts) with its own features, heads and labels, deciding,
//    labelled by the person, training and certifying in-process.
//
//   node --import tsx main.ts [--json]
import { ReflexConfig, Reflexes, ReflexLedger } from "@steward/reflex-core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type FailedJob, retry } from "./src/retry.ts"
import { askingSettle, cautiousSettle } from "./src/settle.ts"

const json = process.argv.includes("--json")
const here = dirname(fileURLToPath(import.meta.url))
const bin = join(dirname(createRequire(import.meta.url).resolve("@steward/cli/package.json")), "src", "bin.ts")
const log = (line: string) => {
  if (!json) process.stdout.write(`${line}\n`)
}

/** `steward ARGS… --json`: exit code and the JSON document (stdout, or the error on stderr). */
const steward = (args: ReadonlyArray<string>) => {
  const done = spawnSync(process.execPath, ["--import", "tsx", bin, ...args, "--json"], { cwd: here, encoding: "utf8" })
  const text = done.status === 0 ? done.stdout : done.stderr
  const start = text.search(/^[[{]/m)
  if (start === -1) throw new Error(`steward ${args.join(" ")}: exit ${done.status}: ${done.stderr}`)
  return { exitCode: done.status ?? 1, doc: JSON.parse(text.slice(start)) }
}

const work = mkdtempSync(join(tmpdir(), "custom-reflex-"))
const state = join(work, "state")
const shippedState = join(work, "shipped")
mkdirSync(join(state, "reflexes"), { recursive: true })
mkdirSync(shippedState)
const turn = ["--text", "All tests pass. Should I open the PR and merge it?", "--tool-calls", "60"]

// 1. the custom settle organism: manifest, check, install, run ------------------------------------
const cautiousFile = join(work, "cautious-settle.algal.json")
writeFileSync(cautiousFile, `${JSON.stringify(cautiousSettle.build(), null, 2)}\n`)
const checked = steward(["reflex", "check", cautiousFile])
log(`steward reflex check cautious-settle.algal.json: exit ${checked.exitCode}, ${checked.doc.digest}`)
copyFileSync(cautiousFile, join(state, "reflexes", "settle.algal.json"))
const installed = steward(["reflex", "status", "settle", "--state-dir", state]).doc[0].program
log(`installed in ${state}: program ${installed.digest} (custom: ${installed.custom})`)
const shipped = steward(["reflex", "decide", "settle", ...turn, "--no-record", "--state-dir", shippedState]).doc
const custom = steward(["reflex", "decide", "settle", ...turn, "--state-dir", state]).doc
log(`"${turn[1]}"`)
log(`  shipped program: ${shipped.decision.category} (gate ${shipped.decision.gate}, head ${shipped.decision.head})`)
log(`  custom program:  ${custom.decision.category} (gate ${custom.decision.gate}, custom: ${custom.custom})`)

// 2. the rejected organism: refused with every rule; the shipped program keeps running ----------
const askingFile = join(work, "asking-settle.algal.json")
writeFileSync(askingFile, `${JSON.stringify(askingSettle.build(), null, 2)}\n`)
const refused = steward(["reflex", "check", askingFile])
const violations: ReadonlyArray<{ rule: string; message: string }> = refused.doc.error.details.violations
log(`steward reflex check asking-settle.algal.json: exit ${refused.exitCode}, ${refused.doc.error.reason}`)
for (const v of violations) log(`  ${v.rule}: ${v.message}`)
copyFileSync(askingFile, join(state, "reflexes", "settle.algal.json"))
const faulted = steward(["reflex", "status", "settle", "--state-dir", state]).doc[0].program
const fallback = steward(["reflex", "decide", "settle", ...turn, "--state-dir", state]).doc
log(`installed anyway: ${faulted.fault}`)
log(`  decided by the shipped program: ${fallback.decision.category} (custom: ${fallback.custom})`)

// 3. a user-defined reflex: its own features, heads and labels -----------------------------------
const definition = Either.getOrThrow(retry)
/** The person's rule, which the reflex has to learn: retry infrastructure errors and early flakes. */
const person = (job: FailedJob) =>
  job.infrastructureError || (job.markedFlaky && job.failedAtFraction < 0.5) ? "retry" : "report"
const jobs: Array<FailedJob> = Array.from({ length: 256 }, (_, i) => ({
  recentFailures: (i * 7) % 11,
  infrastructureError: i % 3 === 0,
  failedAtFraction: ((i * 37) % 100) / 100,
  markedFlaky: i % 4 === 1
}))
const learned = Effect.gen(function*() {
  const reflexes = yield* Reflexes.Reflexes
  let agreed = 0
  for (const [i, job] of jobs.entries()) {
    const subject = `job-${i}`
    const decided = yield* reflexes.decide(definition, job, { subject })
    if (!decided.skipped && decided.decision["action"] === person(job)) agreed++
    yield* reflexes.label("retry", subject, person(job))
  }
  return { agreed, status: yield* reflexes.status("retry") }
}).pipe(
  Effect.provide(
    Reflexes.layer({ reflexes: [definition], config: { ...ReflexConfig.defaults, custom: { retry: "auto" } } }).pipe(
      Layer.provideMerge(ReflexLedger.layerMemory)
    )
  )
)
const { agreed, status } = await Effect.runPromise(learned)
log(`reflex retry: ${jobs.length} failed jobs decided and labelled; agreed with the person on ${agreed}`)
log(`  generation ${status.generation.version} (trained on ${status.generation.trainedOn} labels)`)
for (const h of status.heads) {
  const c = h.certificate
  log(`  head ${h.head}: ${h.labels} labels (${h.positives} retry), ${c === null ? "no certificate" : c.reason}`)
}

if (json) {
  process.stdout.write(`${
    JSON.stringify({
      state,
      custom: {
        check: { exitCode: checked.exitCode, digest: checked.doc.digest },
        installed,
        shipped: shipped.decision,
        decided: { decision: custom.decision, custom: custom.custom }
      },
      rejected: {
        check: { exitCode: refused.exitCode, reason: refused.doc.error.reason, violations },
        installed: faulted,
        decided: { decision: fallback.decision, custom: fallback.custom }
      },
      retry: {
        decided: jobs.length,
        agreed,
        generation: status.generation,
        heads: status.heads.map((h) => ({
          head: h.head,
          labels: h.labels,
          positives: h.positives,
          certificate: h.certificate
        }))
      }
    })
  }\n`)
}
