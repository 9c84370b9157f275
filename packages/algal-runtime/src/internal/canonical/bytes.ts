/**
 * The canonical digest straight from bytes: canonical UTF-8 written into one reused buffer and
 * hashed, with the text writer's exact rules. Gives up (to the text path) on anything else.
 *
 * @internal
 */
import * as Crypto from "node:crypto"
import { anySurrogate, loneSurrogate, maxDepth, type Shape, shapeOf } from "./shape.js"

const createHash = Crypto.createHash
// `crypto.hash` (Node ≥ 20.12): the one-shot digest, without a Hash object per call.
const oneShot: ((algorithm: string, data: string, encoding: "hex") => string) | undefined =
  typeof (Crypto as { hash?: unknown }).hash === "function"
    ? (Crypto as unknown as { hash: (algorithm: string, data: string, encoding: "hex") => string }).hash
    : undefined

/** Lowercase hex SHA-256 of a text's UTF-8 bytes. @internal */
export const sha256Text = (text: string): string =>
  oneShot !== undefined ? oneShot("sha256", text, "hex") : createHash("sha256").update(text, "utf8").digest("hex")

// ------------------------------------------------------------------ digest bytes ---
//
// A digest needs the canonical UTF-8 bytes, not the text: building a text out of many small
// pieces, flattening it and transcoding it to UTF-8 cost about as much as writing it. So
// `digest` writes the bytes straight into one reused buffer and hashes them. The writer only
// handles the valid case, with the text writer's exact rules (shapes, heads, number and string
// forms). On anything else (a value with no canonical form, a key without a head, a document
// near the size bound, a getter that digests re-entrantly) it gives up and `digest` takes the
// text path, which reports exactly what it always did. The property tests compare the bytes with
// the text writer's on arbitrary values.

let bytes = new Uint8Array(1 << 16)
let at = 0
let writing = false
// Documents this large take the text path (which also enforces the size bound).
const maxByteDigest = 8 * 1024 * 1024

class GiveUp {}
const giveUp = new GiveUp()

const room = (n: number): void => {
  if (at + n <= bytes.length) return
  if (at + n > maxByteDigest) throw giveUp
  const next = new Uint8Array(Math.max(bytes.length * 2, at + n))
  next.set(bytes.subarray(0, at))
  bytes = next
}

const HEX = "0123456789abcdef"

const putAscii = (text: string): void => {
  const n = text.length
  room(n)
  const b = bytes
  let p = at
  for (let i = 0; i < n; i++) b[p++] = text.charCodeAt(i)
  at = p
}

// A string as `JSON.stringify` writes it, in UTF-8; a lone surrogate gives up (no canonical form).
const putString = (value: string): void => {
  const n = value.length
  room(n * 3 + 2)
  const b = bytes
  let p = at
  b[p++] = 0x22
  let i = 0
  // the common case: printable ASCII with nothing to escape
  for (; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) break
    b[p++] = c
  }
  for (; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
        b[p++] = c
        continue
      }
      // escapes take up to 6 bytes for 1 unit: make room for the rest at that rate
      at = p
      room((n - i) * 6 + 1)
      p = at
      const e = bytes
      e[p++] = 0x5c
      switch (c) {
        case 0x22:
        case 0x5c:
          e[p++] = c
          break
        case 0x08:
          e[p++] = 0x62
          break
        case 0x0c:
          e[p++] = 0x66
          break
        case 0x0a:
          e[p++] = 0x6e
          break
        case 0x0d:
          e[p++] = 0x72
          break
        case 0x09:
          e[p++] = 0x74
          break
        default:
          e[p++] = 0x75
          e[p++] = 0x30
          e[p++] = 0x30
          e[p++] = HEX.charCodeAt(c >> 4)
          e[p++] = HEX.charCodeAt(c & 15)
      }
      at = p
      // the buffer may have grown: continue in the new one
      return putRest(value, i + 1)
    } else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6)
      b[p++] = 0x80 | (c & 63)
    } else if (c < 0xd800 || c > 0xdfff) {
      b[p++] = 0xe0 | (c >> 12)
      b[p++] = 0x80 | ((c >> 6) & 63)
      b[p++] = 0x80 | (c & 63)
    } else {
      const d = i + 1 < n ? value.charCodeAt(i + 1) : 0
      if (c > 0xdbff || d < 0xdc00 || d > 0xdfff) throw giveUp
      const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
      i++
      b[p++] = 0xf0 | (cp >> 18)
      b[p++] = 0x80 | ((cp >> 12) & 63)
      b[p++] = 0x80 | ((cp >> 6) & 63)
      b[p++] = 0x80 | (cp & 63)
    }
  }
  b[p++] = 0x22
  at = p
}

// The rest of a string after an escape (rare: control characters, quotes and backslashes), as
// `JSON.stringify` escapes it, then the closing quote.
const putRest = (value: string, from: number): void => {
  const tail = value.slice(from)
  // JSON.stringify would escape a lone surrogate; the canonical form does not exist
  if (anySurrogate.test(tail) && loneSurrogate.test(tail)) throw giveUp
  // JSON.stringify's form of the tail, without its opening quote (ours is written already)
  const utf8 = Buffer.from(JSON.stringify(tail).slice(1), "utf8")
  room(utf8.length)
  bytes.set(utf8, at)
  at += utf8.length
}

const putNumber = (value: number): void => {
  if (!Number.isFinite(value)) throw giveUp
  if (value === 0) {
    room(1)
    bytes[at++] = 0x30
    return
  }
  if (Number.isInteger(value) && value > -1e15 && value < 1e15) {
    // a safe integer prints as its decimal digits: written without making a string
    room(17)
    const b = bytes
    let p = at
    let n = value
    if (n < 0) {
      b[p++] = 0x2d
      n = -n
    }
    const start = p
    while (n > 0) {
      const digit = n % 10
      b[p++] = 0x30 + digit
      n = (n - digit) / 10
    }
    for (let lo = start, hi = p - 1; lo < hi; lo++, hi--) {
      const t = b[lo]!
      b[lo] = b[hi]!
      b[hi] = t
    }
    at = p
    return
  }
  putAscii(String(value))
}

const headBytesOf = (shape: Shape): ReadonlyArray<Uint8Array | undefined> => {
  let heads = shape.headBytes
  if (heads === undefined) {
    heads = shape.heads.map((head) => (head === undefined ? undefined : new Uint8Array(Buffer.from(head, "utf8"))))
    shape.headBytes = heads
  }
  return heads
}

const put = (value: unknown, depth: number): void => {
  if (value === null) return putAscii("null")
  switch (typeof value) {
    case "boolean":
      return putAscii(value ? "true" : "false")
    case "number":
      return putNumber(value)
    case "string":
      return putString(value)
    case "object": {
      if (depth >= maxDepth) throw giveUp
      if (Array.isArray(value)) {
        room(2)
        bytes[at++] = 0x5b
        for (let i = 0; i < value.length; i++) {
          if (i > 0) {
            room(1)
            bytes[at++] = 0x2c
          }
          put(value[i], depth + 1)
        }
        room(1)
        bytes[at++] = 0x5d
        return
      }
      const shape = shapeOf(value)
      const keys = shape.keys
      const heads = headBytesOf(shape)
      room(1)
      bytes[at++] = 0x7b
      let first = true
      for (let i = 0; i < keys.length; i++) {
        const item = (value as Record<string, unknown>)[keys[i]!]
        if (item === undefined) continue
        const head = heads[i]
        if (head === undefined) throw giveUp
        room(head.length + 1)
        const b = bytes
        let p = at
        if (!first) b[p++] = 0x2c
        first = false
        for (let j = 0; j < head.length; j++) b[p++] = head[j]!
        at = p
        put(item, depth + 1)
      }
      room(1)
      bytes[at++] = 0x7d
      return
    }
  }
  throw giveUp
}

const hashBytes: (data: Uint8Array) => string = oneShot !== undefined
  ? (data) =>
    (oneShot as unknown as (algorithm: string, data: Uint8Array, encoding: "hex") => string)("sha256", data, "hex")
  : (data) => createHash("sha256").update(data).digest("hex")

// The digest through the byte writer, or `undefined` to take the text path.
/** @internal */
export const digestBytes = (value: unknown): string | undefined => {
  if (writing) return undefined
  writing = true
  at = 0
  try {
    put(value, 0)
    return "sha256:" + hashBytes(bytes.subarray(0, at))
  } catch (error) {
    if (error instanceof GiveUp || error instanceof RangeError) return undefined
    throw error
  } finally {
    writing = false
    // a large document's buffer is not kept
    if (bytes.length > 1 << 20) bytes = new Uint8Array(1 << 16)
  }
}
