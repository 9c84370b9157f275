/**
 * Fits computed ahead of a replay on worker threads. Each worker runs the source text of
 * `fitCore` and its steps themselves, the functions the main thread's `Learning.fit` runs, so a head fitted here is
 * the head the replay would have fitted (ADR 0450). Failures are the caller's to ignore: the replay
 * fits whatever is missing itself.
 * @internal
 */
import * as Effect from "effect/Effect"
import { Worker } from "node:worker_threads"
import type { Head } from "../Params.js"
import type { FitRow } from "./fitCore.js"
import { fitFunctions } from "./fitCore.js"

/** One example sequence and the windows `[from, to)` to fit on it. @internal */
export interface FitJob {
  readonly examples: ReadonlyArray<FitRow>
  readonly prior: Head
  readonly options: { readonly iterations: number; readonly learningRate: number; readonly priorStrength: number }
  readonly windows: ReadonlyArray<readonly [number, number]>
  readonly store: (from: number, to: number, head: Head) => void
}

const workerSource = (): string =>
  [
    `"use strict";`,
    ...fitFunctions.map((f) => f.toString()),
    `const { parentPort } = require("node:worker_threads");`,
    `const sets = new Map();`,
    `const encodings = new WeakMap();`,
    `parentPort.on("message", (m) => {`,
    `  if (m.type === "set") { sets.set(m.set, m.examples); return; }`,
    `  const head = fitCore(m.prior, sets.get(m.set).slice(m.from, m.to), m.options, encodings);`,
    `  parentPort.postMessage({ task: m.task, head });`,
    `});`
  ].join("\n")

interface Task {
  readonly job: number
  readonly from: number
  readonly to: number
}

/**
 * Fit every window of every job on `threads` workers (largest windows first), storing each head
 * as it arrives. Workers are terminated when done, failed or interrupted.
 * @internal
 */
export const prefit = (jobs: ReadonlyArray<FitJob>, threads: number): Effect.Effect<void, Error> => {
  const tasks: Array<Task> = []
  jobs.forEach((job, j) => {
    for (const [from, to] of job.windows) tasks.push({ job: j, from, to })
  })
  tasks.sort((a, b) => (b.to - b.from) - (a.to - a.from))
  if (tasks.length === 0 || threads < 1) return Effect.void
  return Effect.acquireUseRelease(
    Effect.try({
      try: () =>
        Array.from({ length: Math.min(threads, tasks.length) }, () => new Worker(workerSource(), { eval: true })),
      catch: (error) => new Error(`cannot start fit workers: ${String(error)}`)
    }),
    (workers) =>
      Effect.async<void, Error>((resume) => {
        let next = 0
        let pending = 0
        let finished = false
        const finish = (error?: Error) => {
          if (finished) return
          finished = true
          resume(error === undefined ? Effect.void : Effect.fail(error))
        }
        const send = (worker: Worker) => {
          if (finished || next >= tasks.length) return
          const task = tasks[next]!
          const job = jobs[task.job]!
          worker.postMessage({
            type: "fit",
            task: next,
            set: task.job,
            from: task.from,
            to: task.to,
            prior: job.prior,
            options: {
              iterations: job.options.iterations,
              learningRate: job.options.learningRate,
              priorStrength: job.options.priorStrength
            }
          })
          next++
          pending++
        }
        for (const worker of workers) {
          worker.on("message", (m: { readonly task: number; readonly head: Head }) => {
            if (finished) return
            pending--
            const task = tasks[m.task]!
            jobs[task.job]!.store(task.from, task.to, m.head)
            send(worker)
            if (pending === 0 && next >= tasks.length) finish()
          })
          worker.on("error", (error) => finish(error instanceof Error ? error : new Error(String(error))))
          worker.on("exit", (code) => {
            if (!finished) finish(new Error(`fit worker exited with code ${code}`))
          })
          jobs.forEach((job, j) => {
            worker.postMessage({
              type: "set",
              set: j,
              examples: job.examples.map((e) => ({ features: e.features, label: e.label, weight: e.weight }))
            })
          })
        }
        for (let round = 0; round < 2; round++) for (const worker of workers) send(worker)
        return Effect.sync(() => {
          finished = true
        })
      }),
    (workers) => Effect.promise(() => Promise.all(workers.map((w) => w.terminate()))).pipe(Effect.ignore)
  )
}
