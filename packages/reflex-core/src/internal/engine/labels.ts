/**
 * Labels: explicit labels, labels from a person's reply (and tier requests), the started-another-
 * task half-weight label, labels written directly, and the every-16 training cadence they drive.
 * Also `rollback`, the other write a person makes by hand.
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Labels from "../../Labels.js"
import * as Learning from "../../Learning.js"
import * as ReflexError from "../../ReflexError.js"
import type { ReplyResult, TrainReport, WrittenLabel } from "../../Reflexes.js"
import type { EngineContext } from "./context.js"

type Train = (reflex: string) => Effect.Effect<TrainReport, ReflexError.ReflexError>

/** @internal */
export const make = (ctx: EngineContext, train: Train) => {
  const afterLabels = (reflex: string, before: number, after: number) =>
    ctx.config.learn && Math.floor(after / Learning.TRAIN_EVERY) > Math.floor(before / Learning.TRAIN_EVERY)
      ? train(reflex).pipe(
        Effect.map((r) => [r]),
        // another writer promoted first: its pass wins, ours is dropped
        Effect.catchIf((e) => e.code === "conflict", () => Effect.succeed([] as Array<TrainReport>))
      )
      : Effect.succeed([] as Array<TrainReport>)

  const writeLabels = (reflex: string, observation: string, labels: ReadonlyArray<Labels.HeadLabel>) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const write = yield* ctx.ledger.label(reflex, observation, labels, now)
      const trained = yield* afterLabels(reflex, write.before, write.after)
      return {
        written: labels.filter((_, i) => write.applied[i] === true).map((x): WrittenLabel => ({
          reflex,
          observation,
          ...x
        })),
        trained
      }
    })

  const resolve = (reflex: string, target: string) =>
    Effect.gen(function*() {
      if (/^obs_[0-9a-f]{32}$/.test(target)) {
        const byId = yield* ctx.ledger.observation(target)
        if (Option.isSome(byId) && byId.value.reflex === reflex) return byId.value
      }
      const latest = yield* ctx.ledger.latest(reflex, target)
      if (Option.isNone(latest)) {
        return yield* ReflexError.make("not-found", `no ${reflex} decision recorded for ${JSON.stringify(target)}`)
      }
      return latest.value
    })

  const label = Effect.fn("Reflexes.label")(function*(reflex: string, target: string, value: string) {
    const l = yield* ctx.loaded(reflex)
    const observation = yield* resolve(reflex, target)
    const mapped = l.definition.explicitLabels(value, observation.head)
    if (mapped === undefined) {
      return yield* ReflexError.make("invalid-input", `unknown ${reflex} label ${JSON.stringify(value)}`)
    }
    const labels = mapped.map((m): Labels.HeadLabel => ({ ...m, weight: 1, source: Labels.EXPLICIT }))
    const { trained, written } = yield* writeLabels(reflex, observation.id, labels)
    const result: ReplyResult = { category: "other", escalation: null, labels: written, trained }
    return result
  })

  const replyLabels = (
    category: Labels.ReplyCategory,
    escalation: "frontier" | "standard" | undefined,
    subject?: string
  ) =>
    Effect.gen(function*() {
      const written: Array<WrittenLabel> = []
      const trained: Array<TrainReport> = []
      if (subject === undefined) return { category, escalation: escalation ?? null, labels: written, trained }
      const settleLabels = Labels.settleLabels(category)
      if (settleLabels.length > 0 && ctx.definitions.has("settle")) {
        const obs = yield* ctx.ledger.latest("settle", subject)
        if (Option.isSome(obs)) {
          const r = yield* writeLabels("settle", obs.value.id, settleLabels)
          written.push(...r.written)
          trained.push(...r.trained)
        }
      }
      if (escalation !== undefined && ctx.definitions.has("route")) {
        const obs = yield* ctx.ledger.latest("route", subject)
        if (Option.isSome(obs)) {
          const r = yield* writeLabels("route", obs.value.id, [
            { head: obs.value.head, label: escalation === "frontier", weight: 1, source: Labels.MODEL_REQUEST }
          ])
          written.push(...r.written)
          trained.push(...r.trained)
        }
      }
      const result: ReplyResult = { category, escalation: escalation ?? null, labels: written, trained }
      return result
    })

  const reply = Effect.fn("Reflexes.reply")(function*(text: string, subject?: string) {
    return yield* replyLabels(Labels.categorizeReply(text), Labels.escalation(text), subject)
  })

  const startedAnotherTask = Effect.fn("Reflexes.startedAnotherTask")(function*(subject: string) {
    return yield* replyLabels("other", undefined, subject)
  })

  const labelObservation = Effect.fn("Reflexes.labelObservation")(function*(
    reflex: string,
    observation: string,
    labels: ReadonlyArray<Labels.HeadLabel>
  ) {
    const l = yield* ctx.loaded(reflex)
    for (const x of labels) {
      if (!l.definition.heads.includes(x.head)) {
        return yield* ReflexError.make("invalid-input", `reflex ${reflex} has no head ${JSON.stringify(x.head)}`)
      }
      if (!(x.weight > 0 && x.weight <= 1)) {
        return yield* ReflexError.make("invalid-input", `label weight ${x.weight} is not in (0, 1]`)
      }
    }
    const { trained, written } = yield* writeLabels(reflex, observation, labels)
    const result: ReplyResult = { category: "other", escalation: null, labels: written, trained }
    return result
  })

  const rollback = Effect.fn("Reflexes.rollback")(function*(reflex: string, version: number) {
    yield* ctx.loaded(reflex)
    if (!Number.isInteger(version) || version < 0) {
      return yield* ReflexError.make(
        "invalid-input",
        `generation version must be a non-negative integer, got ${version}`
      )
    }
    yield* ctx.ledger.rollback(reflex, version)
    return version
  })

  return { label, reply, startedAnotherTask, labelObservation, rollback }
}
