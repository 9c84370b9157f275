/**
 * Decide: extract features, run the admitted organism, validate its decision, apply the gates
 * outside the program, and record the observation. Also `features` (extraction alone) and
 * `replay` (re-run a recorded decision).
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { DecisionProgram } from "../../DecisionProgram.js"
import type { Features } from "../../Features.js"
import * as Learning from "../../Learning.js"
import * as Params from "../../Params.js"
import type { ProgramDecision, ReflexDefinition } from "../../Reflex.js"
import * as ReflexConfig from "../../ReflexConfig.js"
import * as ReflexError from "../../ReflexError.js"
import type { DecideOptions, DecisionResult, ReplayResult, Skipped } from "../../Reflexes.js"
import type { Observation } from "../../ReflexLedger.js"
import { clip, observationId } from "../../ReflexLedger.js"
import { isName, nameRule } from "../names.js"
import type { EngineContext, Loaded } from "./context.js"
import { explain } from "./explain.js"

const token = /^[a-z0-9_.:-]{0,48}$/

/**
 * Evidence is recorded with every observation, so it must be text-free: booleans, finite numbers,
 * null, identifier-like tokens (≤ 48 of `[a-z0-9_.:-]`), or arrays of those. Returns the first problem.
 */
const textlessProblem = (evidence: Readonly<Record<string, unknown>>): string | undefined => {
  const ok = (v: unknown): boolean =>
    v === null || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) ||
    (typeof v === "string" && token.test(v))
  const keys = Object.keys(evidence)
  if (keys.length > 32) return `has ${keys.length} keys; at most 32`
  for (const key of keys) {
    if (!token.test(key)) return `key ${JSON.stringify(key.slice(0, 48))} is not an identifier`
    const v = evidence[key]
    if (Array.isArray(v) ? v.length > 64 || !v.every(ok) : !ok(v)) {
      return `${key} must be a boolean, a finite number, null, a short identifier, or a list of those`
    }
  }
  return undefined
}

const featureProblem = (reflex: string, features: Features): string | undefined => {
  const names = Object.keys(features)
  if (names.length > 32) return `${reflex}: ${names.length} features; at most 32`
  for (const name of names) {
    const v = features[name]
    if (!isName(name) || typeof v !== "number" || !Number.isFinite(v)) {
      return `${reflex}: feature ${JSON.stringify(name)} must be a finite number named ${nameRule}`
    }
  }
  return undefined
}

const validateDecision = (
  definition: ReflexDefinition<any>,
  output: unknown
): Either.Either<ProgramDecision, ReflexError.ReflexError> => {
  const fail = (message: string) =>
    Either.left(ReflexError.make("program-failed", `${definition.name} program returned ${message}`))
  if (typeof output !== "object" || output === null || Array.isArray(output)) return fail("a non-object decision")
  const o = output as Record<string, unknown>
  const value = o[definition.valueKey]
  if (typeof value !== "string" || !definition.values.includes(value)) {
    return fail(`${definition.valueKey} ${JSON.stringify(value)}, not one of ${definition.values.join(", ")}`)
  }
  const named = o["head"]
  // a custom program written before a head was renamed still names it the old way (ADR 0414)
  const head = typeof named === "string" ? definition.formerHeads?.[named] ?? named : named
  if (typeof head !== "string" || !definition.heads.includes(head)) return fail(`head ${JSON.stringify(named)}`)
  const gate = o["gate"]
  if (typeof gate !== "string") return fail("a non-string gate")
  const score = o["score"]
  if (typeof score !== "number" || !Number.isFinite(score)) return fail("a non-numeric score")
  return Either.right({ value, head, gate: Array.from(gate).slice(0, 32).join(""), score: Math.round(score) })
}

/** Run the definition's extractor; a throwing extractor is an `invalid-input` error. @internal */
export const extract = (definition: ReflexDefinition<any>, input: unknown) =>
  Effect.suspend(() => {
    try {
      return definition.extract(input)
    } catch (error) {
      return Either.left(
        ReflexError.make("invalid-input", `${definition.name}: cannot extract features: ${String(error)}`)
      )
    }
  })

const runProgram = (
  l: Loaded,
  program: DecisionProgram,
  features: Features,
  params: Params.Params,
  evidence: Record<string, unknown>
) =>
  Effect.flatMap(
    program.run({ features, params: Params.programInput(params, l.definition.formerHeads), evidence }),
    (run) => Either.map(validateDecision(l.definition, run.decision), (decision) => ({ decision, run }))
  )

/** Route only among `eligible` values: the value kept, or the first eligible one. */
const restrict = (l: Loaded, value: string, eligible: ReadonlyArray<string> | undefined) => {
  if (eligible === undefined) return { value, eligible: true }
  const allowed = eligible.filter((v) => l.definition.values.includes(v))
  if (allowed.includes(value)) return { value, eligible: true }
  return allowed.length > 0 ? { value: allowed[0]!, eligible: true } : { value, eligible: false }
}

/** @internal */
export const decide = (ctx: EngineContext) =>
  Effect.fn("Reflexes.decide")(function*(reflex: string, input: unknown, opts: DecideOptions) {
    const l = yield* ctx.loaded(reflex)
    const extraction = yield* extract(l.definition, input)
    if (extraction._tag === "Skipped") return { reflex, skipped: true, reason: extraction.reason } as Skipped
    const { evidence, features } = extraction.extracted
    const bad = featureProblem(reflex, features)
    if (bad !== undefined) return yield* ReflexError.make("invalid-input", bad)
    const leak = textlessProblem(evidence)
    if (leak !== undefined) {
      return yield* ReflexError.make("invalid-input", `${reflex}: evidence ${leak} (the ledger never stores text)`)
    }
    const params = yield* ctx.activeParams(l.definition)
    const { decision, run } = yield* runProgram(l, l.program, features, params, evidence)
    const gated = l.definition.gate(decision, extraction.extracted)
    const { eligible, value } = restrict(l, gated.value, opts.eligible)
    const mode = ReflexConfig.modeOf(ctx.config, reflex, decision.head)
    const certifiable = l.definition.certification[decision.head] !== undefined
    const certificate = mode === "auto" && certifiable ? yield* ctx.certificateOf(reflex, decision.head) : undefined
    const certified = Learning.certifiedFor(certificate, features)
    const held = mode === "auto" && Learning.heldTurn(decision.head, opts.task ?? opts.subject, opts.revision ?? 0)
    const modeActs = mode === "active" || (mode === "auto" && certified && !held)
    // `actionable` already folds in the vetoes that apply to this value (the confirm veto for
    // `confirm`, owner-only steps for `stopped_short`).
    const acts = mode !== "off" && modeActs && gated.actionable && eligible
    const now = yield* Clock.currentTimeMillis
    const observation: Observation = {
      id: observationId(reflex, opts.subject),
      reflex,
      subject: clip(opts.subject, 200),
      head: decision.head,
      value,
      gate: decision.gate,
      score: decision.score,
      features,
      evidence,
      paramsVersion: params.version,
      program: l.program.digest,
      receipt: run.receiptDigest,
      atMs: now
    }
    const recorded = opts.record === false || mode === "off" ? false : yield* ctx.ledger.record(observation)
    const result: DecisionResult = {
      reflex,
      skipped: false,
      observation: observation.id,
      recorded,
      decision: { [l.definition.valueKey]: value, gate: decision.gate, head: decision.head, score: decision.score },
      programValue: decision.value,
      features,
      evidence,
      vetoed: gated.vetoed,
      mode,
      certified,
      held,
      acts,
      why: explain({
        reflex,
        head: decision.head,
        value,
        mode,
        acts,
        gated,
        eligible,
        certifiable,
        certificate,
        certified,
        held,
        floor: l.definition.certification[decision.head]?.floor
      }),
      receipt: run.receiptDigest,
      program: l.program.digest,
      custom: l.program.custom,
      paramsVersion: params.version
    }
    return result
  })

/** @internal */
export const features = (ctx: EngineContext) =>
  Effect.fn("Reflexes.features")(function*(reflex: string, input: unknown) {
    const l = yield* ctx.loaded(reflex)
    const extraction = yield* extract(l.definition, input)
    return extraction._tag === "Skipped" ? null : extraction.extracted.features
  })

const paramsAt = (ctx: EngineContext, l: Loaded, version: number) =>
  Effect.gen(function*() {
    if (version === 0) return l.definition.prior
    const all = yield* ctx.ledger.generations(l.definition.name)
    const stored = all.find((g) => g.version === version)
    const params = stored === undefined ? undefined : Params.decodeJsonOption(stored.payload)
    if (params === undefined) {
      return yield* ReflexError.make("not-found", `generation ${version} of ${l.definition.name} is no longer stored`)
    }
    return params
  })

/** @internal */
export const replay = (ctx: EngineContext) =>
  Effect.fn("Reflexes.replay")(function*(id: string) {
    const found = yield* ctx.ledger.observation(id)
    if (Option.isNone(found)) return yield* ReflexError.make("not-found", `no observation ${JSON.stringify(id)}`)
    const o = found.value
    const l = yield* ctx.loaded(o.reflex)
    if (o.receipt === "") {
      return yield* ReflexError.make("invalid-input", `observation ${id} was imported; it has no decision to replay`)
    }
    const program = ctx.byDigest.get(o.program)
    if (program === undefined) {
      return yield* ReflexError.make("not-found", `program ${o.program} of observation ${id} is not loaded`)
    }
    const params = yield* paramsAt(ctx, l, o.paramsVersion)
    const evidence = o.evidence as Record<string, unknown>
    const { decision, run } = yield* runProgram(l, program, o.features, params, evidence)
    const gated = l.definition.gate(decision, {
      features: o.features,
      evidence,
      facts: { substantial: o.evidence["substantial"] === true }
    })
    const recorded = { value: o.value, gate: o.gate, head: o.head, score: o.score, receipt: o.receipt }
    const replayed = {
      value: gated.value,
      gate: decision.gate,
      head: decision.head,
      score: decision.score,
      receipt: run.receiptDigest
    }
    // The receipt digest covers the program's outputs: equal digests mean the same decision.
    const result: ReplayResult = {
      observation: id,
      reflex: o.reflex,
      recorded,
      replayed,
      matches: recorded.receipt === replayed.receipt && recorded.head === replayed.head &&
        recorded.gate === replayed.gate && recorded.score === replayed.score
    }
    return result
  })
