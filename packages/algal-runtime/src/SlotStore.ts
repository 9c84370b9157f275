/**
 * Named mutable slots behind `slot` cells (ALGAL v1 §2.3): a `read` slot emits the stored value
 * (or its declared default), a `write` slot persists its input. Slot reads are recorded in the
 * receipt, so verification replays them instead of reading the store.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SlotStore } from "@steward/algal-runtime"
 *
 * const program = Effect.gen(function*() {
 *   const slots = yield* SlotStore.SlotStore
 *   yield* slots.set("counter", 1)
 *   return yield* slots.get("counter") // Option.some(1)
 * }).pipe(Effect.provide(SlotStore.layerMemory))
 * ```
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AlgalError from "./AlgalError.js"
import * as Canonical from "./Canonical.js"
import { migrate } from "./internal/migrations.js"
import type { Json } from "./Manifest.js"

/**
 * Synchronous access for in-process stores, used by the runtime's synchronous hot path.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyncSlots {
  readonly get: (name: string) => Json | undefined
  readonly set: (name: string, canonical: string) => void
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  readonly get: (name: string) => Effect.Effect<Option.Option<Json>, AlgalError.AlgalError>
  readonly set: (name: string, value: Json) => Effect.Effect<void, AlgalError.AlgalError>
  /** Present when the store lives in process memory. */
  readonly sync?: SyncSlots
}

/**
 * @since 0.1.0
 * @category tags
 */
export class SlotStore extends Context.Tag("@steward/algal-runtime/SlotStore")<SlotStore, Shape>() {}

const encode = (value: Json): Effect.Effect<string, AlgalError.AlgalError> => {
  const text = Canonical.encode(value)
  return text._tag === "Left"
    ? Effect.fail(AlgalError.invalid(`slot value is not canonical JSON: ${text.left.message}`))
    : Effect.succeed(text.right)
}

/**
 * A fresh in-memory store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (): Shape => {
  const slots = new Map<string, string>()
  const sync: SyncSlots = {
    get: (name) => {
      const text = slots.get(name)
      return text === undefined ? undefined : (JSON.parse(text) as Json)
    },
    set: (name, canonical) => void slots.set(name, canonical)
  }
  return {
    sync,
    get: (name) => Effect.sync(() => Option.fromNullable(sync.get(name))),
    set: (name, value) => Effect.map(encode(value), (text) => void slots.set(name, text))
  }
}

/**
 * In-memory slots (one store per layer build).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<SlotStore> = Layer.sync(SlotStore, makeMemory)

const Row = Schema.Struct({ body: Schema.String })

/**
 * Slots in SQL (table `algal_slots`), over the abstract `SqlClient`; runs the package migrations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* migrate
  const io = (what: string) => (error: { readonly message: string }) =>
    AlgalError.make("IO_FAILED", `slot store ${what}: ${error.message}`)
  const find = SqlSchema.findOne({
    Request: Schema.String,
    Result: Row,
    execute: (name) => sql`SELECT body FROM algal_slots WHERE name = ${name}`
  })
  const shape: Shape = {
    get: (name) =>
      find(name).pipe(
        Effect.mapError(io("read")),
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeed(Option.none<Json>()),
          onSome: (row) => {
            const value = Canonical.parse(row.body)
            return value._tag === "Left"
              ? Effect.fail(AlgalError.make("IO_FAILED", `slot ${name} is corrupt: ${value.left.message}`))
              : Effect.succeed(Option.some(value.right))
          }
        }))
      ),
    set: (name, value) =>
      Effect.flatMap(encode(value), (text) =>
        sql`INSERT INTO algal_slots (name, body) VALUES (${name}, ${text})
            ON CONFLICT (name) DO UPDATE SET body = excluded.body`.pipe(Effect.mapError(io("write")), Effect.asVoid))
  }
  return shape
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layerSql: Layer.Layer<SlotStore, AlgalError.AlgalError, SqlClient.SqlClient> = Layer.effect(
  SlotStore,
  makeSql
)
