/**
 * Checkpoints: the harness-written summary a settled or sliced run leaves for the host and the
 * next run — what was asked, what was done, files touched, checks run and their outcome, open
 * todo items and the next step — built from the run's evidence, never from the model's say-so,
 * and bounded in size.
 *
 * @since 0.1.0
 */

/**
 * The largest checkpoint, in characters of its JSON.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxChars = 8192

/**
 * A checkpoint.
 *
 * @since 0.1.0
 * @category models
 */
export interface Checkpoint {
  readonly asked: string
  /** The latest tool activity, oldest first (`tool: summary`). */
  readonly done: ReadonlyArray<string>
  readonly filesTouched: ReadonlyArray<string>
  readonly checks: ReadonlyArray<{ readonly command: string; readonly exitCode: number }>
  readonly openTodos: ReadonlyArray<string>
  readonly next: string
  readonly toolCalls: number
  readonly slice: number
  /** How many items each list dropped to stay within `maxChars`. */
  readonly omitted: number
}

/**
 * The evidence a run accumulates (the loop keeps it; a checkpoint is built from it).
 *
 * @since 0.1.0
 * @category models
 */
export interface Evidence {
  readonly asked: string
  readonly done: ReadonlyArray<string>
  readonly filesTouched: ReadonlyArray<string>
  readonly checks: ReadonlyArray<{ readonly command: string; readonly exitCode: number }>
  readonly todos: ReadonlyArray<{ readonly content: string; readonly status: string }>
  readonly lastText: string
  readonly toolCalls: number
  readonly slice: number
}

const clip = (text: string, n: number): string => text.length <= n ? text : `${text.slice(0, n - 1)}…`

/**
 * Build a bounded checkpoint. `next` is the step to take next (the harness's reason when it
 * stopped the run, else the tail of the model's last reply).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (evidence: Evidence, next?: string): Checkpoint => {
  let keep = { done: 12, files: 40, checks: 12, todos: 20 }
  const build = (omitted: number): Checkpoint => ({
    asked: clip(evidence.asked, 1500),
    done: evidence.done.slice(-keep.done).map((d) => clip(d, 200)),
    filesTouched: [...new Set(evidence.filesTouched)].slice(-keep.files).map((f) => clip(f, 300)),
    checks: evidence.checks.slice(-keep.checks).map((c) => ({ command: clip(c.command, 200), exitCode: c.exitCode })),
    openTodos: evidence.todos.filter((t) => t.status !== "completed").slice(0, keep.todos).map((t) =>
      clip(t.content, 200)
    ),
    next: clip(next ?? evidence.lastText.slice(-800), 800),
    toolCalls: evidence.toolCalls,
    slice: evidence.slice,
    omitted
  })
  let checkpoint = build(0)
  // Halve the lists until the JSON fits (the clipped fields alone always fit).
  while (JSON.stringify(checkpoint).length > maxChars && keep.done + keep.files + keep.checks + keep.todos > 0) {
    keep = {
      done: Math.floor(keep.done / 2),
      files: Math.floor(keep.files / 2),
      checks: Math.floor(keep.checks / 2),
      todos: Math.floor(keep.todos / 2)
    }
    checkpoint = build(1)
  }
  return checkpoint
}

/**
 * The checkpoint as text for a person or for the next run's context.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (c: Checkpoint): string =>
  [
    `asked: ${c.asked}`,
    `tool calls: ${c.toolCalls}, slice ${c.slice}`,
    ...(c.done.length === 0 ? [] : ["done:", ...c.done.map((d) => `  - ${d}`)]),
    ...(c.filesTouched.length === 0 ? [] : [`files touched: ${c.filesTouched.join(", ")}`]),
    ...(c.checks.length === 0 ? [] : ["checks:", ...c.checks.map((k) => `  - ${k.command} → exit ${k.exitCode}`)]),
    ...(c.openTodos.length === 0 ? [] : ["open todos:", ...c.openTodos.map((t) => `  - ${t}`)]),
    `next: ${c.next}`
  ].join("\n")
