/**
 * Where a record sits in its collection, by id. Reading every record's id was the largest cost
 * of a verb commit at 10,000 findings when one snapshot serves verb after verb (the library, a
 * loop). An array is scanned on its first lookup, so a process that applies one verb pays no
 * more than the scan, and indexed on its second; a replacement's copy keeps its ids where they
 * were and so inherits what its source knew.
 *
 * @internal
 */

interface Keyed {
  readonly id: string
}

interface Index {
  /** The first position of each id (a scan's answer when ids repeat). */
  readonly at: ReadonlyMap<string, number>
  /** The length indexed: an array that grew since is indexed again. */
  readonly length: number
}

const indexes = new WeakMap<ReadonlyArray<Keyed>, Index>()
const scanned = new WeakSet<ReadonlyArray<Keyed>>()

const build = (rows: ReadonlyArray<Keyed>): Index => {
  const at = new Map<string, number>()
  for (let k = rows.length - 1; k >= 0; k--) at.set(rows[k]!.id, k)
  const index = { at, length: rows.length }
  indexes.set(rows, index)
  return index
}

/** The position of the first row with `id`, or -1 (as `findIndex`). */
export const positionOf = (rows: ReadonlyArray<Keyed>, id: string): number => {
  let index = indexes.get(rows)
  if (index === undefined && !scanned.has(rows)) {
    scanned.add(rows)
    return rows.findIndex((r) => r.id === id)
  }
  if (index === undefined || index.length !== rows.length) index = build(rows)
  const k = index.at.get(id)
  if (k === undefined) return -1
  // a hit is confirmed against the row itself, so a stale index can never name a wrong record
  return rows[k]?.id === id ? k : build(rows).at.get(id) ?? -1
}

/** `to` is `from` with rows replaced in place by rows of the same ids: it inherits `from`'s index. */
export const carryPositions = (from: ReadonlyArray<Keyed>, to: ReadonlyArray<Keyed>): void => {
  const index = indexes.get(from)
  if (index !== undefined && index.length === to.length) indexes.set(to, index)
  else if (scanned.has(from)) scanned.add(to)
}
