/**
 * A builder node: an op call as the plain JSON array it is, typed by its result.
 *
 * @internal
 */
import type { Call } from "./builder.js"

/** @internal */
export const node = <A>(op: string, ...args: ReadonlyArray<unknown>): Call<A> => [op, ...args] as unknown as Call<A>

/** A binder's body, or the body a function builds from the bound names. @internal */
export const bodyOf = (body: unknown, refs: ReadonlyArray<unknown>): unknown =>
  typeof body === "function" ? (body as (...refs: ReadonlyArray<unknown>) => unknown)(...refs) : body
