/**
 * The checked form of an `algal.expr.v1` program that the static check produces and the compiler
 * turns into closures.
 *
 * @internal
 */
import type { V } from "./value.js"

/** A compiled program node. @internal */
export type Node = Lit | Obj | Call

export interface Lit {
  readonly k: 0
  readonly v: V
}

export interface Obj {
  readonly k: 1
  /** Field keys in UTF-8 byte order (the original's `BTreeMap` order). */
  readonly keys: ReadonlyArray<string>
  readonly fields: ReadonlyArray<Node>
}

export interface Call {
  readonly k: 2
  readonly op: string
  /** Base cost, charged before any argument (`get`: 2 + argc). */
  readonly cost: number
  readonly args: ReadonlyArray<Node>
  /** Binder names (let: [name]; map/filter: [name]; fold: [acc, item]). */
  readonly names: ReadonlyArray<string>
  /** The payload of `quote`. */
  readonly quoted: V
}
