/**
 * The scope a person's "always" remembers: for an approved call, the narrowest rule pattern that
 * covers it and that the engine honours, with wider honoured alternatives to choose from — and the
 * check of a scope the person edited. Pure and synchronous (a shell command is read by the same
 * parser and analyser the engine decides with, so the scope is grounded in the engine's reading,
 * not in the command's text). ADR 0218.
 *
 * - **shell**: the program, its subcommand and the options and first operand that say what it does
 *   (`git push origin main` → `git push origin *`, then `git push *`; `node --test` →
 *   `node --test *`; `psql -c 'select 1'` → `psql -c *`, then `psql *`). A program the engine
 *   knows is never scoped program-wide (`git *` would cover `git reset --hard`, `node *` would cover
 *   `node -e`); a program it does not know may be, as the widest alternative. Wrappers, env
 *   prefixes, subshells and pipes are read as the engine reads them; every part that needs an
 *   approval must be covered by the one pattern, or the scope is refused. What the engine cannot
 *   resolve (an expansion, inline code, privilege, …) and universal denies are refused.
 * - **read / write**: the file's directory (`src/app/**`), wider: its parent directories up to the
 *   top-level one; outside the workspace, secrets and files that run later are refused (the
 *   universal layer asks for them every time).
 * - **fetch**: the URL's origin (`https://example.com/**`). **mcp / agent**: the exact name.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as GovernanceError from "./GovernanceError.js"
import * as Internal from "./internal/approvalScope.js"
import * as Evaluate from "./internal/evaluate.js"
import * as Network from "./internal/network.js"
import type { Action } from "./Rule.js"
import * as Rule from "./Rule.js"
import { ShellParser } from "./ShellParser.js"

/**
 * A call a person approved: the action and its resource (for `shell` the command line, for
 * `read`/`write` the path as a decision shows it — workspace-relative inside the workspace —, for
 * `fetch` the URL, for `mcp`/`agent` the tool's name).
 *
 * @since 0.1.0
 * @category models
 */
export interface ApprovedCall {
  readonly action: string
  readonly resource: string
}

/**
 * A remembered scope: the pattern to save (`allow ACTION PATTERN`) and wider honoured
 * alternatives, narrowest first.
 *
 * @since 0.1.0
 * @category models
 */
export interface Scope {
  readonly pattern: string
  readonly alternatives: ReadonlyArray<string>
}

/**
 * Why no scope can be remembered, as a closed code.
 *
 * @since 0.1.0
 * @category errors
 */
export const RefusalCode = Schema.Literal(...Internal.REFUSAL_CODES)

/**
 * @since 0.1.0
 * @category errors
 */
export type RefusalCode = typeof RefusalCode.Type

/**
 * No scope can be remembered for the call (or the edited one is not acceptable): the reason is
 * written for the person who asked to remember.
 *
 * @since 0.1.0
 * @category errors
 */
export class ScopeRefusal extends Schema.TaggedError<ScopeRefusal>()("ScopeRefusal", {
  code: RefusalCode,
  reason: Schema.String
}) {}

/**
 * The remembered scope, or why there is none.
 *
 * @since 0.1.0
 * @category models
 */
export type Result = Either.Either<Scope, ScopeRefusal>

const refuse = (code: RefusalCode, reason: string): Result => Either.left(new ScopeRefusal({ code, reason }))

const typed = (result: Internal.Result): Result => Either.mapLeft(result, (refusal) => new ScopeRefusal(refusal))

const parseAction = (action: string): Action | null => Schema.is(Rule.Action)(action) ? action : null

// ---------------------------------------------------------------------------------------------
// API
// ---------------------------------------------------------------------------------------------

/**
 * The narrowest honoured scope of an approved call, with wider honoured alternatives (narrowest
 * first), or a refusal saying why nothing can be remembered. A shell command is read with
 * `parser`, which must be ready (`ShellParser.ready`; after any decision it is).
 *
 * @example
 * ```ts
 * ApprovalScope.scope({ action: "shell", resource: "git push origin main" }, parser)
 * // Either.right({ pattern: "git push origin *", alternatives: ["git push *"] })
 * ```
 *
 * @since 0.1.0
 * @category scopes
 */
export const scope = (call: ApprovedCall, parser: ShellParser["Type"]): Result => {
  const action = parseAction(call.action)
  if (action === null) {
    return refuse("unknown-action", `${JSON.stringify(call.action)} is not an action a rule can name`)
  }
  const resource = call.resource.trim()
  if (resource.length === 0) return refuse("empty", `the ${action} call names no resource`)
  switch (action) {
    case "shell":
      return typed(Either.flatMap(Internal.readShell(resource, parser), Internal.shellScope))
    case "read":
    case "write":
      return typed(Internal.pathScope(action, resource))
    case "fetch":
      return typed(Internal.fetchScope(resource))
    case "mcp":
    case "agent":
      return Either.right({ pattern: Internal.escapeGlob(resource), alternatives: [] })
  }
}

/**
 * Check a scope a person edited against the approved call: it must be a valid pattern, cover the
 * call, name the program (shell), not be wider than the policy lets one rule be (no bare `*`, no
 * program-wide scope for a program the engine knows), and be honoured by the engine.
 *
 * @since 0.1.0
 * @category scopes
 */
export const check = (call: ApprovedCall, pattern: string, parser: ShellParser["Type"]): Result => {
  const action = parseAction(call.action)
  if (action === null) {
    return refuse("unknown-action", `${JSON.stringify(call.action)} is not an action a rule can name`)
  }
  const trimmed = pattern.trim()
  if (trimmed.length === 0 || trimmed.length > 2000) {
    return refuse("invalid-pattern", "a scope is a pattern of 1 to 2,000 characters")
  }
  const kind = Evaluate.isTextAction(action) ? "text" : "path"
  try {
    Evaluate.compilePattern(trimmed, kind)
  } catch (error) {
    return refuse(
      "invalid-pattern",
      `${JSON.stringify(trimmed)} is not a pattern: ${error instanceof Error ? error.message : String(error)}`
    )
  }
  const resource = call.resource.trim()
  switch (action) {
    case "shell":
      return typed(
        Either.flatMap(Internal.readShell(resource, parser), (reading) => Internal.checkShell(reading, trimmed))
      )
    case "read":
    case "write": {
      const refusal = Internal.checkPath(action, resource)
      if (refusal !== null) return Either.left(new ScopeRefusal(refusal))
      if (trimmed === "**" || trimmed === "*" || Internal.outside(trimmed)) {
        return refuse(
          "too-wide",
          `${JSON.stringify(trimmed)} would allow every ${action}: name a directory of the workspace`
        )
      }
      break
    }
    case "fetch":
      if (!/^https?:\/\/[^*?[\]{}/]+\//.test(trimmed)) {
        return refuse("too-wide", `${JSON.stringify(trimmed)} must name a scheme and a host (https://example.com/**)`)
      }
      break
    case "mcp":
    case "agent":
      if (/^[*?]+$/.test(trimmed)) return refuse("too-wide", `${JSON.stringify(trimmed)} would allow every ${action}`)
  }
  const target = action === "fetch" ? Network.normalizeUrl(resource) ?? resource : resource
  if (!Internal.covers(trimmed, target, kind)) {
    return refuse("not-covering", `${JSON.stringify(trimmed)} does not cover ${JSON.stringify(target)}`)
  }
  return Either.right({ pattern: trimmed, alternatives: [] })
}

/**
 * `scope` with the `ShellParser` from the context (loaded first when the call is a shell command).
 *
 * @since 0.1.0
 * @category scopes
 */
export const scopeEffect = (
  call: ApprovedCall
): Effect.Effect<Scope, ScopeRefusal | GovernanceError.GovernanceError, ShellParser> =>
  Effect.flatMap(
    ShellParser,
    (parser) =>
      Effect.zipRight(call.action === "shell" ? parser.ready : Effect.void, Effect.suspend(() => scope(call, parser)))
  )

/**
 * `check` with the `ShellParser` from the context (loaded first when the call is a shell command).
 *
 * @since 0.1.0
 * @category scopes
 */
export const checkEffect = (
  call: ApprovedCall,
  pattern: string
): Effect.Effect<Scope, ScopeRefusal | GovernanceError.GovernanceError, ShellParser> =>
  Effect.flatMap(
    ShellParser,
    (parser) =>
      Effect.zipRight(
        call.action === "shell" ? parser.ready : Effect.void,
        Effect.suspend(() => check(call, pattern, parser))
      )
  )
