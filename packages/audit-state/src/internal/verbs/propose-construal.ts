/**
 * `propose-construal`: propose a construal whose key is construal_key(role, charter).
 *
 * @internal
 */
import * as State from "../../State.js"
import { PATTERNS, ROLES } from "../../Vocabulary.js"
import { pathRefusal } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const proposeConstrual: Handler<"propose-construal"> = (doc, request, ctx) => {
  const v = request.verb
  const today = ctx.today
  if (!PATTERNS.hex16.test(request.session)) {
    return refuse(v, "invalid-input", `--session '${request.session}' is not a canonical 16-hex session id`)
  }
  if (!(ROLES as ReadonlyArray<string>).includes(request.role)) {
    return refuse(v, "invalid-input", `--role '${request.role}' is not a role (${ROLES.join(", ")})`)
  }
  if ((doc.construals ?? []).some((c) => c.key === request.key)) {
    return refuse(v, "refused", `construal ${request.key} already exists`)
  }
  const badConstrualBody = pathRefusal(v, "--body", request.body)
  if (badConstrualBody) return badConstrualBody
  const expected = State.construalKey(request.role, request.charter)
  if (request.key !== expected) {
    return refuse(
      v,
      "refused",
      `the key '${request.key}' is not derived from this (role, charter): construal_key('${request.role}', …) is '${expected}'`
    )
  }
  const c: State.Construal = {
    key: request.key,
    role: request.role,
    charter: request.charter,
    session: request.session,
    status: "proposed",
    created: today,
    body_path: request.body
  }
  return {
    doc: { ...doc, construals: [...(doc.construals ?? []), c] },
    target: c.key,
    fromStatus: null,
    toStatus: null,
    message: `construal ${c.key} proposed for ${c.role}: ${c.charter}`
  }
}
