/**
 * The graph compiler's edge compatibility rule (ALGAL v1 §1.4): whether a producer port may feed
 * a consumer port. Shared by the compiler and by `manifest.compile.v1`, which must only emit
 * manifests the compiler accepts.
 *
 * @internal
 */
import type { PortDecl } from "../Manifest.js"

/** @internal */
export const compatible = (p: PortDecl, c: PortDecl, producerMany: boolean): boolean => {
  if (producerMany && !(c.many === true) && c.type !== "json") return false
  if (p.type === "cap" || c.type === "cap") return p.type === "cap" && c.type === "cap" && p.capability === c.capability
  if (p.type === "ref" || c.type === "ref") return p.type === "ref" && c.type === "ref"
  if (c.type === "json") return true
  if (p.type === c.type) {
    if (p.type === "choice" && c.labels !== undefined) {
      return p.labels !== undefined && p.labels.every((l) => c.labels!.includes(l))
    }
    return true
  }
  return p.type === "choice" && c.type === "text"
}
