/**
 * The content-addressed blob store behind `store`/`load` cells and `ref` ports (ALGAL v1 §2.3).
 * A blob's reference is the `sha256:` digest of its canonical JSON, so equal values share one
 * entry and a reference always names exactly one value.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { BlobStore } from "@steward/algal-runtime"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* BlobStore.BlobStore
 *   const ref = yield* store.put({ hello: "world" })
 *   return yield* store.get(ref) // Option.some({ hello: "world" })
 * }).pipe(Effect.provide(BlobStore.layerMemory))
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
export interface SyncBlobs {
  readonly get: (ref: string) => Json | undefined
  readonly put: (ref: string, canonical: string) => void
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  /** Store a value; returns its reference (`sha256:` of the canonical JSON). */
  readonly put: (value: Json) => Effect.Effect<string, AlgalError.AlgalError>
  readonly get: (ref: string) => Effect.Effect<Option.Option<Json>, AlgalError.AlgalError>
  readonly has: (ref: string) => Effect.Effect<boolean, AlgalError.AlgalError>
  /** Present when the store lives in process memory. */
  readonly sync?: SyncBlobs
}

/**
 * @since 0.1.0
 * @category tags
 */
export class BlobStore extends Context.Tag("@steward/algal-runtime/BlobStore")<BlobStore, Shape>() {}

/**
 * Largest blob a `store` cell may write (canonical bytes).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxBlobBytes = 262_144

const encode = (value: Json): Effect.Effect<{ readonly ref: string; readonly text: string }, AlgalError.AlgalError> => {
  const text = Canonical.encode(value)
  return text._tag === "Left"
    ? Effect.fail(AlgalError.invalid(`blob is not canonical JSON: ${text.left.message}`))
    : Effect.succeed({ ref: Canonical.digestText(text.right), text: text.right })
}

const decode = (ref: string, text: string): Effect.Effect<Json, AlgalError.AlgalError> => {
  const value = Canonical.parse(text)
  return value._tag === "Left"
    ? Effect.fail(AlgalError.make("IO_FAILED", `blob ${ref} is corrupt: ${value.left.message}`))
    : Effect.succeed(value.right)
}

/**
 * A fresh in-memory store (a plain synchronous value plus its Effect shape).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (): Shape => {
  const blobs = new Map<string, string>()
  const sync: SyncBlobs = {
    get: (ref) => {
      const text = blobs.get(ref)
      return text === undefined ? undefined : (JSON.parse(text) as Json)
    },
    put: (ref, canonical) => void blobs.set(ref, canonical)
  }
  return {
    sync,
    put: (value) => Effect.map(encode(value), ({ ref, text }) => (blobs.set(ref, text), ref)),
    get: (ref) => Effect.sync(() => Option.fromNullable(sync.get(ref))),
    has: (ref) => Effect.sync(() => blobs.has(ref))
  }
}

/**
 * In-memory blobs (one store per layer build).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<BlobStore> = Layer.sync(BlobStore, makeMemory)

const Row = Schema.Struct({ body: Schema.String })

/**
 * Blobs in SQL (table `algal_blobs`), over the abstract `SqlClient`; runs the package migrations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* migrate
  const io = (what: string) => (error: { readonly message: string }) =>
    AlgalError.make("IO_FAILED", `blob store ${what}: ${error.message}`)
  const find = SqlSchema.findOne({
    Request: Schema.String,
    Result: Row,
    execute: (ref) => sql`SELECT body FROM algal_blobs WHERE ref = ${ref}`
  })
  const get = (ref: string) =>
    find(ref).pipe(
      Effect.mapError(io("read")),
      Effect.flatMap(Option.match({
        onNone: () => Effect.succeed(Option.none<Json>()),
        onSome: (row) => Effect.map(decode(ref, row.body), Option.some)
      }))
    )
  const shape: Shape = {
    put: (value) =>
      Effect.flatMap(
        encode(value),
        ({ ref, text }) =>
          sql`INSERT INTO algal_blobs (ref, body, bytes) VALUES (${ref}, ${text}, ${Buffer.byteLength(text, "utf8")})
            ON CONFLICT (ref) DO NOTHING`.pipe(Effect.mapError(io("write")), Effect.as(ref))
      ),
    get,
    has: (ref) => Effect.map(get(ref), Option.isSome)
  }
  return shape
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layerSql: Layer.Layer<BlobStore, AlgalError.AlgalError, SqlClient.SqlClient> = Layer.effect(
  BlobStore,
  makeSql
)
