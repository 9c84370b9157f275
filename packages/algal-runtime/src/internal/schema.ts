/**
 * JSON-port schemas (ALGAL v1 §1.2): parse-time validation of a schema and run-time checking of a
 * value against it. v1 schemas are lenient (unknown keywords are provider hints, an omitted `type`
 * means `object`); v2 and v3 have closed keyword sets.
 *
 * @internal
 */
import * as Canonical from "../Canonical.js"
import { invalid, isObj, type Obj } from "./issue.js"

const typeNames = new Set(["object", "array", "string", "number", "integer", "boolean", "null"])
const v2Keys = new Set(["type", "required", "properties", "items", "enum", "minimum", "maximum"])
const v3Keys = new Set([...v2Keys, "minLength", "maxLength", "format", "uniqueItems", "additionalProperties"])
const formats = new Set(["digest", "name", "slug", "uri"])

/** @internal */
export type SchemaVersion = 1 | 2 | 3

/**
 * Validate a schema at parse time; throws a `PARSE_FAILED` issue naming the path.
 *
 * @internal
 */
export const validateSchema = (schema: unknown, version: SchemaVersion, path: string): void => {
  // Levels count from the port declaration (level 1), so a v1 schema's root is level 2: the
  // original rejects root → a → b → c ("nested five levels deep") and accepts one level less.
  const maxLevels = version === 1 ? 4 : 8
  const walk = (s: unknown, level: number, at: string): void => {
    if (!isObj(s)) return invalid("schema must be an object", at)
    if (level > maxLevels) return invalid(`schema nests deeper than ${maxLevels} levels`, at)
    if (version > 1) {
      const allowed = version === 2 ? v2Keys : v3Keys
      for (const key of Object.keys(s)) {
        if (!allowed.has(key)) {
          invalid(`schema keyword ${key} is not allowed in schemaVersion ${version}`, `${at}.${key}`)
        }
      }
    }
    if ("type" in s) {
      const t = s.type
      const list = Array.isArray(t) ? t : [t]
      if (list.length === 0) invalid("schema type union must not be empty", `${at}.type`)
      for (const item of list) {
        if (typeof item !== "string" || !typeNames.has(item)) invalid("unknown schema type", `${at}.type`)
      }
    }
    if ("required" in s) {
      const r = s.required
      if (!Array.isArray(r) || r.some((k) => typeof k !== "string")) {
        invalid("schema required must be a list of strings", `${at}.required`)
      }
    }
    if ("properties" in s) {
      const p = s.properties
      if (!isObj(p)) return invalid("schema properties must be an object", `${at}.properties`)
      for (const key of Canonical.sortedKeys(p)) walk(p[key], level + 1, `${at}.properties.${key}`)
    }
    if (version > 1) {
      if ("items" in s) walk(s.items, level + 1, `${at}.items`)
      if ("enum" in s && (!Array.isArray(s.enum) || s.enum.length === 0)) {
        invalid("schema enum must be a non-empty list", `${at}.enum`)
      }
      for (const k of ["minimum", "maximum"]) {
        if (k in s && (typeof s[k] !== "number" || !Number.isFinite(s[k]))) {
          invalid(`schema ${k} must be a number`, `${at}.${k}`)
        }
      }
      for (const k of ["minLength", "maxLength"]) {
        if (k in s && (typeof s[k] !== "number" || !Number.isInteger(s[k]) || (s[k] as number) < 0)) {
          invalid(`schema ${k} must be a non-negative integer`, `${at}.${k}`)
        }
      }
      if ("format" in s && (typeof s.format !== "string" || !formats.has(s.format))) {
        invalid("schema format must be digest|name|slug|uri", `${at}.format`)
      }
      if ("uniqueItems" in s && s.uniqueItems !== true) invalid("schema uniqueItems must be true", `${at}.uniqueItems`)
      if ("additionalProperties" in s && s.additionalProperties !== false) {
        invalid("schema additionalProperties must be false", `${at}.additionalProperties`)
      }
    }
  }
  walk(schema, 2, path)
}

const kindOf = (v: unknown): string => {
  if (v === null) return "null"
  if (Array.isArray(v)) return "array"
  if (typeof v === "number") return "number"
  if (typeof v === "string") return "string"
  if (typeof v === "boolean") return "boolean"
  return "object"
}

const matchesType = (value: unknown, t: string): boolean => {
  switch (t) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value)
    case "number":
      return typeof value === "number"
    default:
      return kindOf(value) === t
  }
}

const namePattern = /^[a-z][a-z0-9-]{0,63}$/
const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
const uriPattern = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/

/**
 * Check a value against a schema; returns the `TYPE_MISMATCH` message or `undefined`.
 *
 * @internal
 */
export const checkSchema = (value: unknown, schema: Obj, version: SchemaVersion): string | undefined => {
  const walk = (v: unknown, s: Obj): string | undefined => {
    const declared = s.type
    const types: ReadonlyArray<string> | undefined = declared === undefined
      ? version === 1 ? ["object"] : undefined
      : Array.isArray(declared)
      ? declared as Array<string>
      : [declared as string]
    if (types !== undefined && !types.some((t) => matchesType(v, t))) return `expected ${types.join("|")}`
    if (version > 1 && Array.isArray(s.enum)) {
      const text = Canonical.encode(v)
      const hit = text._tag === "Right" && s.enum.some((e) => {
        const other = Canonical.encode(e)
        return other._tag === "Right" && other.right === text.right
      })
      if (!hit) return "value not in enum"
    }
    if (typeof v === "number" && version > 1) {
      if (typeof s.minimum === "number" && v < s.minimum) return `value below minimum ${s.minimum}`
      if (typeof s.maximum === "number" && v > s.maximum) return `value above maximum ${s.maximum}`
    }
    if (typeof v === "string" && version === 3) {
      if (typeof s.minLength === "number" && v.length < s.minLength) return `string shorter than ${s.minLength}`
      if (typeof s.maxLength === "number" && v.length > s.maxLength) return `string longer than ${s.maxLength}`
      if (typeof s.format === "string") {
        const ok = s.format === "digest"
          ? Canonical.isDigest(v)
          : s.format === "name"
          ? namePattern.test(v)
          : s.format === "slug"
          ? slugPattern.test(v)
          : uriPattern.test(v)
        if (!ok) return `string is not a valid ${s.format}`
      }
    }
    if (isObj(v)) {
      if (Array.isArray(s.required)) {
        for (const key of s.required as Array<string>) {
          if (!Object.prototype.hasOwnProperty.call(v, key)) return "missing required field"
        }
      }
      if (isObj(s.properties)) {
        const props = s.properties
        for (const key of Canonical.sortedKeys(props)) {
          if (Object.prototype.hasOwnProperty.call(v, key) && isObj(props[key])) {
            const inner = walk(v[key], props[key] as Obj)
            if (inner !== undefined) return inner
          }
        }
        if (version === 3 && s.additionalProperties === false) {
          for (const key of Object.keys(v)) {
            if (!Object.prototype.hasOwnProperty.call(props, key)) return `unexpected field ${key}`
          }
        }
      } else if (version === 3 && s.additionalProperties === false && Object.keys(v).length > 0) {
        return `unexpected field ${Object.keys(v)[0]}`
      }
    }
    if (Array.isArray(v) && version > 1) {
      if (isObj(s.items)) {
        for (const item of v) {
          const inner = walk(item, s.items)
          if (inner !== undefined) return inner
        }
      }
      if (version === 3 && s.uniqueItems === true) {
        const seen = new Set<string>()
        for (const item of v) {
          const text = Canonical.encode(item)
          const key = text._tag === "Right" ? text.right : String(item)
          if (seen.has(key)) return "list items are not unique"
          seen.add(key)
        }
      }
    }
    return undefined
  }
  return walk(value, schema)
}
