/**
 * The session runner: builds each run's context (engine with the session's rules and remembered
 * rules, hooks, the slice guard), settles runs a killed process left open, and executes a run from
 * its first step to its settle. The operations live in their own modules over one `RunContext`.
 */
import type * as Deferred from "effect/Deferred"
import * as Execute from "./execute.js"
import * as Reopen from "./reopen.js"
import * as RunContext from "./runContext.js"
import type { Answer } from "./step.js"

export type { Env, RunInput, Snapshot } from "./runContext.js"
export type { Answer } from "./step.js"

/** The runner over an environment. */
export const make = (env: RunContext.Env) => {
  const rc = RunContext.make(env)
  return {
    engineFor: rc.engineFor,
    parser: env.parser,
    load: rc.load,
    settleDangling: (id: string, options: { readonly view?: boolean; readonly paused?: boolean } = {}) =>
      Reopen.settleDangling(rc, id, options),
    execute: (
      id: string,
      run: string,
      input: RunContext.RunInput,
      abort: Deferred.Deferred<void> | undefined,
      answer: Answer | undefined,
      snapshot: RunContext.Snapshot
    ) => Execute.execute(rc, { id, run, abort, answer, snapshot }, input)
  }
}
