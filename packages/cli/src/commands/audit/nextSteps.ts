/**
 * What `steward audit next` tells a person to do about a decision: the decision, its sentence,
 * the session it names (if any) and the commands that carry it out. One function, so `next` and
 * the dashboard cannot drift apart.
 * @internal
 */
import * as Decision from "@steward/audit-state/Decision"

/** The next step of a decision. @internal */
export interface NextStep {
  /** `decision: KIND -> DETAIL`, as `next` prints it. */
  readonly decision: string
  readonly message: string
  readonly session: { readonly role: string; readonly charter: string } | null
  readonly commands: ReadonlyArray<string>
}

/** The next step of `decision`. @internal */
export const nextStep = (decision: Decision.Decision): NextStep => {
  const rc = Decision.roleAndCharter(decision)
  const construal = decision.kind === "run-construal" ? (decision.detail as ReadonlyArray<string>) : undefined
  const session = rc ?? (construal === undefined ? undefined : { role: construal[0]!, charter: construal[1]! })
  return {
    decision: `decision: ${decision.kind} -> ${JSON.stringify(decision.detail)}`,
    message: Decision.describe(decision),
    session: session ?? null,
    commands: session === undefined ? [] : [
      `dispatch it with: steward audit dispatch open --role ${session.role} --charter '${session.charter}' --executable <agent> --prompt-file <file>`,
      // `audit loop` stops at an audit with no plan: naming it here would be a dead end.
      decision.kind === "run-planner"
        ? "or give the audit its plan: write audit/AUDIT.md and run `steward audit migrate`, or queue passes (`steward audit update-catalog`, `steward audit queue-pass`)"
        : "or run it as a governed session: steward audit loop --step (--script FILE | --model PROVIDER:MODEL | --agents)"
    ]
  }
}
