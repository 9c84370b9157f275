/**
 * The interpreter's entry points: `execute` (a run with its receipt) and `evaluate` (the same run
 * without one), over the scheduler in `run/`. `Runtime.runSync` drives them with in-memory stores;
 * the `AlgalRuntime` service drives them with Effect services.
 *
 * @internal
 */
import * as Canonical from "../Canonical.js"
import type * as Program from "../Program.js"
import type * as Receipt from "../Receipt.js"
import { interfaceOutputs } from "./run/composition.js"
import type { Args, ExecOptions, Execution, HostOp, Json } from "./run/context.js"
import { runRoot } from "./run/scheduler.js"

export {
  checkOne,
  checkValue,
  type ExecOptions,
  type Execution,
  type HostOp,
  maxArgsBytes,
  maxEvents,
  maxExprFuel,
  maxValueBytes
} from "./run/context.js"

/**
 * Run a compiled program on already-validated args. Yields host store operations.
 *
 * @internal
 */
export function* execute(
  program: Program.Program,
  args: Args,
  options: ExecOptions
): Generator<HostOp, Execution, unknown> {
  const { ctx, outcome, scope } = yield* runRoot(program, args, options)
  ctx.events.push({ seq: ctx.events.length, kind: "run.end", outcome })
  const body = {
    contract: "algal.run.v1" as const,
    runtime: options.runtime,
    manifestDigest: program.digest,
    manifestKey: program.manifest.key,
    args,
    outcome,
    cells: ctx.cells,
    effects: ctx.effects,
    events: ctx.events,
    work: { steps: ctx.steps, agentCalls: ctx.agentCalls, units: ctx.work },
    ...(ctx.failure === undefined ? {} : { failure: ctx.failure })
  }
  const digest = Canonical.digestText(Canonical.encodeUnsafe(body))
  const receipt: Receipt.Receipt = { ...body, digest }
  return { receipt, outputs: interfaceOutputs(program, scope) }
}

/** What a run decided, without its receipt. @internal */
export interface Evaluated {
  readonly outcome: Receipt.Outcome
  readonly outputs: Record<string, Json>
  readonly work: Receipt.Receipt["work"]
  readonly failure?: Receipt.Receipt["failure"]
}

/**
 * `execute` without the receipt: the same scheduling, outcome, outputs, work and failure, but no
 * receipt body is built or digested.
 *
 * @internal
 */
export function* evaluate(
  program: Program.Program,
  args: Args,
  options: ExecOptions
): Generator<HostOp, Evaluated, unknown> {
  const { ctx, outcome, scope } = yield* runRoot(program, args, options)
  const work = { steps: ctx.steps, agentCalls: ctx.agentCalls, units: ctx.work }
  const outputs = interfaceOutputs(program, scope)
  return ctx.failure === undefined ? { outcome, outputs, work } : { outcome, outputs, work, failure: ctx.failure }
}
