/**
 * `set-limit`: set one of the four limits (admin).
 *
 * @internal
 */
import { LIMIT_RANGES } from "../../Vocabulary.js"
import { isDigits } from "./common.js"
import { type Handler, refuse } from "./model.js"

/** @internal */
export const setLimit: Handler<"set-limit"> = (doc, request, ctx) => {
  const v = request.verb
  const range = LIMIT_RANGES[request.key]
  if (range === undefined) {
    return refuse(
      v,
      "invalid-input",
      `'${request.key}' is not a limit this tool reads (known: ${Object.keys(LIMIT_RANGES).join(", ")})`
    )
  }
  if (!isDigits(request.value)) {
    return refuse(v, "invalid-input", `${request.key} must be a whole number, got '${request.value}'`)
  }
  const n = Number(request.value)
  const [lo, hi] = range
  if (n < lo || n > hi) {
    return refuse(
      v,
      "invalid-input",
      `${request.key} ${n} is outside the legal range ${lo}..${hi}${
        request.key === "reopen_limit" && n < lo
          ? " — at 0 the mandatory human stop after repeated failures never fires"
          : ""
      }`
    )
  }
  if (ctx.policy?.refuseNoOpAdmin === true && doc.limits?.[request.key] === n) {
    return refuse(v, "refused", `${request.key} is already ${n}`)
  }
  return {
    doc: { ...doc, limits: { ...(doc.limits ?? {}), [request.key]: n } },
    target: request.key,
    fromStatus: null,
    toStatus: null,
    message: `limit ${request.key} = ${n}`
  }
}
