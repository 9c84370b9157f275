/**
 * Dispatch authorization (spec §2.4): the open dispatch's role × verb × target status.
 *
 * @internal
 */
import * as State from "../../State.js"
import { ADMIN_VERBS, ROLE_ROUTES } from "../../Vocabulary.js"
import type { VerbRequestText } from "./model.js"

/**
 * Authorize a verb against the open dispatch's role (§2.4). `undefined` = allowed. With no open
 * dispatch the caller is the operator and everything is allowed; admin verbs are refused for
 * every dispatched role; an unrouted verb is refused fail-closed.
 *
 * @since 0.1.0
 * @category authorization
 */
export const authorize = (
  doc: State.StateDoc,
  request: VerbRequestText
): { readonly role: string; readonly target: string; readonly reason: string } | undefined => {
  const open = State.openDispatch(doc)
  if (open === undefined) return undefined
  const role = open.role
  const target = targetOf(request)
  const who = `the ${role} session ${open.session_id} (the open dispatch)`
  if (ADMIN_VERBS.has(request.verb)) {
    return { role, target, reason: `${request.verb} is an administrative verb and ${who} may not run it` }
  }
  const route = ROLE_ROUTES[role]?.[request.verb]
  if (route === undefined) {
    const allowed = Object.keys(ROLE_ROUTES[role] ?? {})
    return {
      role,
      target,
      reason: `${who} may not run ${request.verb} (a ${role} may run only: ${allowed.join(", ") || "nothing"})`
    }
  }
  if (request.verb === "set-status") {
    const record = State.records(doc).find((r) => r.id === request.id)
    const from = record?.status
    const owners = Object.entries(ROLE_ROUTES).filter(([, r]) => {
      const s = r["set-status"]
      return s !== undefined && (s.to === undefined || s.to.includes(request.status)) &&
        (s.from === undefined || (from !== undefined && s.from.includes(from)))
    }).map(([name]) => name)
    const okFrom = route.from === undefined || (from !== undefined && route.from.includes(from))
    const okTo = route.to === undefined || route.to.includes(request.status)
    const owner = owners.length > 0 ? owners.join(" or ") : "the operator (no dispatch open)"
    if (!okFrom) {
      return {
        role,
        target,
        reason: `${who} may not run set-status on ${request.id}, which is '${
          from ?? "?"
        }'; a ${role} may run it only from ${(route.from ?? []).join(", ")} — that move belongs to ${owner}`
      }
    }
    if (!okTo) {
      return {
        role,
        target,
        reason: `${who} may not move ${request.id} to '${request.status}' (from '${
          from ?? "?"
        }'); that move belongs to ${owners.length > 0 ? owners.join(" or ") : "the operator (no dispatch open)"}`
      }
    }
  }
  return undefined
}

/**
 * The verb's target (id, key, pass, plan or limit).
 *
 * @since 0.1.0
 * @category authorization
 */
export const targetOf = (request: VerbRequestText): string => {
  switch (request.verb) {
    case "admit-construal":
    case "propose-construal":
    case "set-limit":
    case "update-catalog":
      return request.key
    default:
      return request.id
  }
}
