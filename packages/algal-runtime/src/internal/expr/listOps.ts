/**
 * The compiled closures of the list ops (`len` … `sort`, `map`, `filter`, `fold`).
 *
 * @internal
 */
import { fault, typeFault } from "./fault.js"
import {
  bool,
  type Code,
  evalArgs,
  growMapped,
  index,
  labor,
  list,
  sortWeight,
  spend,
  spendUnits,
  textWork
} from "./machine.js"
import type { Node } from "./node.js"
import {
  BOUNDS,
  boundsFault,
  canonicalText,
  compareValues,
  equals,
  isList,
  kindOf,
  numberText,
  type V
} from "./value.js"

/** @internal */
export const listOp = (
  op: string,
  node: Extract<Node, { k: 2 }>,
  c: ReadonlyArray<Code>,
  slot: number,
  cost: number
): Code | undefined => {
  const a = c[0]!
  const b = c[1]!
  switch (op) {
    // -------------------------------------------------------------- lists
    case "list":
      return (s) => {
        const items = evalArgs(s, c)
        if (items.length > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
        return items
      }
    case "len":
      return (s) => {
        spend(s, cost)
        return list(s, a, op, 0).length
      }
    case "nth":
      return (s) => {
        spend(s, cost)
        const items = list(s, a, op, 0)
        const i = index(s, b, op)
        if (i >= items.length) {
          throw fault({ code: "EXPR_PATH", op, what: `index ${numberText(i)} out of range ${items.length}` })
        }
        return items[i]!
      }
    case "concat":
      return (s) => {
        const items = evalArgs(s, c)
        let total = 0
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (!isList(v)) throw typeFault(op, i, "list", kindOf(v))
          total += v.length
        }
        spend(s, total)
        if (total > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
        return ([] as Array<V>).concat(...(items as Array<Array<V>>))
      }
    case "map":
    case "filter": {
      const isMapOp = op === "map"
      const body = c[2]!
      return (s) => {
        const items = list(s, a, op, 0)
        const out: Array<V> = []
        let bytes = 2
        for (let i = 0; i < items.length; i++) {
          if (s.left < 1) throw fault({ code: "EXPR_FUEL", cost: 1, left: s.left })
          s.left -= 1
          const item = items[i]!
          s.slots[slot] = item
          const v = body(s)
          if (isMapOp) {
            bytes = growMapped(bytes, out, v)
            out.push(v)
          } else if (bool(op, v, i)) {
            bytes = growMapped(bytes, out, item)
            out.push(item)
          }
          if (out.length > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
        }
        return out
      }
    }
    case "fold": {
      const body = c[4]!
      const init = b
      const accSlot = slot
      const itemSlot = slot + 1
      return (s) => {
        spend(s, cost)
        const items = list(s, a, op, 0)
        let acc = init(s)
        const slots = s.slots
        for (let i = 0; i < items.length; i++) {
          if (s.left < 1) throw fault({ code: "EXPR_FUEL", cost: 1, left: s.left })
          s.left -= 1
          slots[accSlot] = acc
          slots[itemSlot] = items[i]!
          acc = body(s)
        }
        return acc
      }
    }
  }
  return undefined
}

/** The list ops that search, reorder, slice, flatten or deduplicate their items. @internal */
export const listItemsOp = (
  op: string,
  node: Extract<Node, { k: 2 }>,
  c: ReadonlyArray<Code>,
  slot: number,
  cost: number
): Code | undefined => {
  const a = c[0]!
  const b = c[1]!
  switch (op) {
    case "contains":
      return (s) => {
        const items = list(s, a, op, 0)
        const needle = b(s)
        const long = typeof needle === "string" && needle.length > 16
        for (let i = 0; i < items.length; i++) {
          spend(s, 1)
          const item = items[i]!
          // comparing two equal-length distinct strings reads them: hidden work
          if (long && typeof item === "string" && item.length === needle.length && item !== needle) {
            labor(s, textWork(item))
          }
          if (equals(item, needle)) return true
        }
        return false
      }
    case "reverse":
      return (s) => {
        const items = list(s, a, op, 0)
        // a fresh list, copied and then measured by each op it reaches: two units per item
        labor(s, items.length * 2)
        return items.slice().reverse()
      }
    case "take":
    case "drop": {
      const isTake = op === "take"
      return (s) => {
        const items = list(s, a, op, 0)
        const k = index(s, b, op)
        const out = isTake ? items.slice(0, k) : items.slice(k)
        labor(s, out.length * 2)
        return out
      }
    }
    case "flat":
      return (s) => {
        const items = list(s, a, op, 0)
        let total = 0
        for (let i = 0; i < items.length; i++) {
          const v = items[i]!
          if (!isList(v)) throw typeFault(op, i, "list", kindOf(v))
          total += v.length
        }
        spend(s, total)
        if (total > BOUNDS.listLen) throw boundsFault("list-len", BOUNDS.listLen)
        return ([] as Array<V>).concat(...(items as Array<Array<V>>))
      }
    case "unique":
      // Each item is compared with the kept items in order until the first `eq` hit; one fuel
      // unit per comparison. Kept items are pairwise distinct, so an index by value (strings by
      // themselves, containers by canonical text: eq ⇔ equal canonical text) gives the same
      // comparison count without the quadratic work; building a key is hidden work.
      return (s) => {
        const items = list(s, a, op, 0)
        const out: Array<V> = []
        const seen = new Map<unknown, number>()
        for (let i = 0; i < items.length; i++) {
          const item = items[i]!
          let key: unknown
          if (typeof item === "string") {
            key = item
            labor(s, textWork(item))
          } else if (item !== null && typeof item === "object") {
            const text = canonicalText(item)
            key = "\u0000" + text
            labor(s, textWork(text))
          } else {
            // numbers (0 and -0 are eq), booleans and null keyed apart from every string
            key = typeof item === "number" ? (item === 0 ? 0 : item) : item
            labor(s, 1)
          }
          const at = seen.get(key)
          spendUnits(s, at === undefined ? out.length : at + 1)
          if (at === undefined) {
            seen.set(key, out.length)
            out.push(item)
          }
        }
        return out
      }
    case "sort":
      return (s) => {
        const items = list(s, a, op, 0)
        spend(s, items.length)
        // n·log2(n) comparisons of hidden work, charged up front (a stable merge sort's bound)
        labor(s, items.length * (1 + Math.ceil(Math.log2(items.length + 1))) * sortWeight(items))
        return items.slice().sort(compareValues)
      }
  }
  return undefined
}
