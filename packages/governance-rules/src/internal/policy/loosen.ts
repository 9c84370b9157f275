/**
 * What a person's explicit rule loosens (ADR 0218): an `allow` shell rule of the user layer (a
 * project rule or a remembered one) whose pattern names the program literally turns an *ask* on
 * that program's shell check — the engine's `unknown-program` guard, a universal or level ask —
 * into an allow (for a program the engine knows, the rule must name its subcommand or option too), citing the rule and the ask it overrode. Denies stay denies; a rule whose program
 * is a wildcard (or a bare `*`) loosens nothing; a later user layer that asks or denies (a
 * subagent's narrowing) wins. Only consulted on an ask: the allow path costs nothing more.
 *
 * @internal
 */
import type { Compiled } from "../../Policy.js"
import type { Citation } from "../../Rule.js"
import { isKnown } from "../analyze/readings.js"
import * as Evaluate from "../evaluate.js"

/** The program a canonical argv runs (its first word). @internal */
export const programOf = (canonical: string): string => {
  const space = canonical.indexOf(" ")
  return space < 0 ? canonical : canonical.slice(0, space)
}

// The program a pattern names, unescaped, or null when it does not name one a rule may loosen an
// ask on: the program word must be a literal, and for a program the engine knows, the next word too
// (`git push *`, `python3 -c *`, the exact `make`; not `git *`, whose uses differ in risk).
const namedProgram = (pattern: string): string | null => {
  const words: Array<string> = [""]
  for (let i = 0; i < pattern.length && words.length <= 2; i++) {
    const c = pattern[i]!
    if (c === " ") words.push("")
    else if (c === "\\" && i + 1 < pattern.length) words[words.length - 1] += pattern[++i]
    else if ("*?[]{}".includes(c)) words[words.length - 1] += "\0"
    else words[words.length - 1] += c
  }
  const program = words[0]!
  if (program.length === 0 || program.includes("\0")) return null
  if (!isKnown(program)) return program
  const second = words[1]
  return second === undefined || (second.length > 0 && !second.includes("\0")) ? program : null
}

const named = new WeakMap<Evaluate.CompiledRule, string | null>()

const programNamedBy = (rule: Evaluate.CompiledRule): string | null => {
  let program = named.get(rule)
  if (program === undefined) {
    program = namedProgram(rule.rule.resource)
    named.set(rule, program)
  }
  return program
}

/**
 * The user rule that explicitly grants a shell check, or null: the deciding rule of every user
 * layer is an allow, and the first one names the check's program literally.
 *
 * @internal
 */
export const explicitGrant = (compiled: Compiled, resource: string): Evaluate.CompiledRule | null => {
  let grant: Evaluate.CompiledRule | null = null
  for (const layer of compiled.layers) {
    if (layer.name !== "user") continue
    const hit = Evaluate.matchLayer(layer, "shell", resource)
    if (hit === null) continue
    if (hit.rule.effect !== "allow") return null
    grant ??= hit
  }
  return grant !== null && programNamedBy(grant) === programOf(resource) ? grant : null
}

/**
 * The citation of a granting rule that overrode an ask: the rule, and in `overrides` and the
 * reason, the ask it loosened.
 *
 * @internal
 */
export const overriding = (
  grant: Evaluate.CompiledRule,
  resource: string,
  segment: string,
  ask: Citation
): Citation => {
  const base = Evaluate.citationOf(grant, "shell", resource, segment)
  const overridden = ask.ruleId ?? ask.layer
  return {
    layer: base.layer,
    ruleId: base.ruleId,
    ruleIndex: base.ruleIndex,
    pattern: base.pattern,
    action: base.action,
    effect: base.effect,
    resource: base.resource,
    segment: base.segment,
    note: base.note,
    source: base.source,
    overrides: { layer: ask.layer, ruleId: ask.ruleId, note: ask.note },
    reason: `${base.reason} — it names ${programOf(resource)}, so it loosens the ${ask.layer} ask ${overridden}${
      ask.note === null ? "" : ` (${ask.note})`
    }`
  }
}
