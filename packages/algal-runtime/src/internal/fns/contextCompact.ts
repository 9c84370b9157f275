/**
 * `context.compact.v1` (inputs `source`, `policy`: json → outputs `view`, `archive`: json; cost 10).
 * Deterministic context compaction without a model call: `source` is a list of entries (strings or
 * any JSON values, oldest first); `policy` is the closed record `{keep?, maxBytes?}`. The `view` is
 * the longest run of newest entries with at most `keep` entries whose canonical UTF-8 sizes sum to
 * at most `maxBytes`; the `archive` is everything before it. Both keep the original order, so
 * `archive ++ view` is `source`. See ADR 0392.
 *
 * @internal
 */
import type { Json } from "../../Canonical.js"
import type { FnDefinition } from "../../FnRegistry.js"
import { canonicalBytes, failed, guarded, hasOwn, isIntIn, isRecord, shown, succeed, typeName } from "./common.js"

/** The fn's name. @internal */
export const name = "context.compact.v1"

/** The most entries a source may hold (the expr list bound). @internal */
export const maxEntries = 1_024

/** The largest `maxBytes` (the per-value bound of a port, §2.2). @internal */
export const maxBytesBound = 262_144

const policyKeys = new Set(["keep", "maxBytes"])

const invoke = (inputs: Readonly<Record<string, Json>>) => {
  if (!hasOwn(inputs, "source")) return failed(`${name}: input source is missing`)
  if (!hasOwn(inputs, "policy")) return failed(`${name}: input policy is missing`)
  const source = inputs.source
  const policy = inputs.policy
  if (!Array.isArray(source)) return failed(`${name}: source must be a list of entries, got ${typeName(source)}`)
  if (source.length > maxEntries) {
    return failed(`${name}: source has ${source.length} entries, over the ${maxEntries}-entry bound`)
  }
  if (!isRecord(policy)) return failed(`${name}: policy must be an object {keep?, maxBytes?}, got ${typeName(policy)}`)
  for (const key of Object.keys(policy)) {
    if (!policyKeys.has(key)) return failed(`${name}: unknown key ${shown(key)} in policy (allowed: keep, maxBytes)`)
  }
  if (hasOwn(policy, "keep") && !isIntIn(policy.keep, 0, maxEntries)) {
    return failed(`${name}: policy.keep must be an integer in [0, ${maxEntries}]`)
  }
  if (hasOwn(policy, "maxBytes") && !isIntIn(policy.maxBytes, 1, maxBytesBound)) {
    return failed(`${name}: policy.maxBytes must be an integer in [1, ${maxBytesBound}]`)
  }
  const keep = hasOwn(policy, "keep") ? (policy.keep as number) : maxEntries
  const maxBytes = hasOwn(policy, "maxBytes") ? (policy.maxBytes as number) : Number.POSITIVE_INFINITY
  const entries = source as ReadonlyArray<Json>
  // Measure every entry (so an unrepresentable entry fails even when it would be archived).
  const sizes: Array<number> = new Array(entries.length)
  for (let i = 0; i < entries.length; i++) {
    const size = canonicalBytes(entries[i])
    if (!size.ok) return failed(`${name}: source[${i}] is not canonical JSON: ${size.message}`)
    sizes[i] = size.bytes
  }
  let start = entries.length
  let used = 0
  while (start > 0 && entries.length - start < keep && used + sizes[start - 1]! <= maxBytes) {
    start -= 1
    used += sizes[start]!
  }
  return succeed({ view: entries.slice(start), archive: entries.slice(0, start) })
}

/** @internal */
export const definition: FnDefinition = {
  inputs: { source: { type: "json" }, policy: { type: "json" } },
  outputs: { view: { type: "json" }, archive: { type: "json" } },
  cost: 10,
  invoke: guarded(name, invoke)
}
