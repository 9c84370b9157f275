/**
 * The case runner behind `Conformance`: decoding a corpus line (Schema), running it through this
 * runtime the way the original's suite does (parse, compile, run — each stage's result compared
 * with the published one) and naming the first differing field of a receipt.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AlgalError from "../AlgalError.js"
import * as AlgalRuntime from "../AlgalRuntime.js"
import * as Canonical from "../Canonical.js"
import type * as Conformance from "../Conformance.js"
import * as Executor from "../Executor.js"
import * as Expr from "../Expr.js"
import * as Manifest from "../Manifest.js"
import * as Program from "../Program.js"
import type * as Receipt from "../Receipt.js"
import * as Runtime from "../Runtime.js"

type Json = Canonical.Json
type Difference = Conformance.Difference

const Json = Schema.Unknown as unknown as Schema.Schema<Json>

const ExprCase = Schema.Struct({
  id: Schema.String,
  program: Json,
  env: Json,
  fuel: Schema.optional(Schema.Number),
  expect: Schema.Struct({
    ok: Schema.Boolean,
    fuel: Schema.Number,
    value: Schema.optional(Json),
    code: Schema.optional(Schema.String)
  })
})

const StageExpect = Schema.Struct({
  ok: Schema.optional(Schema.Boolean),
  stage: Schema.optional(Schema.Literal("parse", "compile", "run")),
  code: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String),
  digest: Schema.optional(Schema.String),
  manifestDigest: Schema.optional(Schema.String),
  receipt: Schema.optional(Schema.String)
})

const ManifestCase = Schema.Struct({
  id: Schema.String,
  manifest: Json,
  args: Schema.optional(Json),
  expect: StageExpect
})

const FileCase = Schema.Struct({
  id: Schema.String,
  file: Schema.String,
  args: Schema.optional(Json),
  responses: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Json }))),
  expect: StageExpect
})

/** @internal */
export type Decoded =
  | { readonly category: "expr"; readonly case: typeof ExprCase.Type }
  | { readonly category: "malformed" | "organisms"; readonly case: typeof ManifestCase.Type }
  | { readonly category: "fixtures" | "effects"; readonly case: typeof FileCase.Type }

const decodeWith = <A, I>(schema: Schema.Schema<A, I>, json: unknown) =>
  Schema.decodeUnknownEither(schema)(json).pipe(
    Either.mapLeft((error) =>
      AlgalError.make("PARSE_FAILED", `not a conformance case: ${ParseResult.TreeFormatter.formatErrorSync(error)}`)
    )
  )

const has = (json: object, key: string): boolean => Object.prototype.hasOwnProperty.call(json, key)

/** Decode one case; its category is the given one, or the one its shape implies. @internal */
export const decodeCase = (
  json: unknown,
  category?: Conformance.Category
): Effect.Effect<Decoded, AlgalError.AlgalError> => {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return Effect.fail(AlgalError.make("PARSE_FAILED", "a conformance case must be a JSON object"))
  }
  if (has(json, "program")) {
    return decodeWith(ExprCase, json).pipe(Either.map((c) => ({ category: "expr" as const, case: c })))
  }
  if (has(json, "file")) {
    return decodeWith(FileCase, json).pipe(Either.map((c) => {
      const inferred = c.responses === undefined || c.responses === null ? "fixtures" : "effects"
      const given = category === "fixtures" || category === "effects" ? category : inferred
      return { category: given, case: c }
    }))
  }
  return decodeWith(ManifestCase, json).pipe(Either.map((c) => {
    const inferred = c.args === undefined ? "malformed" : "organisms"
    const given = category === "malformed" || category === "organisms" ? category : inferred
    return { category: given, case: c }
  }))
}

/** The non-blank lines of a JSONL corpus, parsed, with their 1-based line numbers. @internal */
export const caseLines = (
  text: string
): Effect.Effect<ReadonlyArray<{ readonly line: number; readonly json: unknown }>, AlgalError.AlgalError> =>
  Effect.suspend(() => {
    const out: Array<{ line: number; json: unknown }> = []
    const lines = text.split("\n")
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i]!.trim()
      if (raw === "") continue
      try {
        out.push({ line: i + 1, json: JSON.parse(raw) })
      } catch (error) {
        return Effect.fail(AlgalError.make("PARSE_FAILED", `line ${i + 1}: not JSON: ${(error as Error).message}`))
      }
    }
    return Effect.succeed(out)
  })

const show = (value: unknown): string => {
  const text = value === undefined ? "(absent)" : typeof value === "string" ? value : Canonical.encodeUnsafe(value)
  return text.length > 240 ? `${text.slice(0, 240)}…` : text
}

const compare = (out: Array<Difference>, field: string, expected: unknown, actual: unknown): void => {
  if (expected === undefined) return
  const e = typeof expected === "string" ? expected : Canonical.encodeUnsafe(expected)
  const a = actual === undefined ? undefined : typeof actual === "string" ? actual : Canonical.encodeUnsafe(actual)
  if (e !== a) out.push({ field, expected: show(expected), actual: show(actual) })
}

/** The first path at which two JSON values differ (`$` when the roots do), with both sides. @internal */
export const firstDifference = (
  expected: unknown,
  actual: unknown,
  path = "$"
): { readonly path: string; readonly expected: unknown; readonly actual: unknown } | undefined => {
  const isObj = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === "object"
  if (!isObj(expected) || !isObj(actual) || Array.isArray(expected) !== Array.isArray(actual)) {
    const same = expected === undefined || actual === undefined
      ? expected === actual
      : Canonical.encodeUnsafe(expected) === Canonical.encodeUnsafe(actual)
    return same ? undefined : { path, expected, actual }
  }
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)])
  for (const key of Array.isArray(expected) ? [...keys].sort((a, b) => Number(a) - Number(b)) : [...keys].sort()) {
    const found = firstDifference(
      expected[key],
      actual[key],
      Array.isArray(expected) ? `${path}[${key}]` : `${path}.${key}`
    )
    if (found !== undefined) return found
  }
  return undefined
}

const compareReceipt = (out: Array<Difference>, expected: string | undefined, receipt: Receipt.Receipt): void => {
  if (expected === undefined) return
  const actual = Canonical.encodeUnsafe(receipt)
  if (actual === expected) return
  // The digest differs whenever anything else does: name the first other difference.
  const { digest: expectedDigest, ...expectedBody } = JSON.parse(expected) as Record<string, unknown>
  const { digest: actualDigest, ...actualBody } = JSON.parse(actual) as Record<string, unknown>
  const found = firstDifference(expectedBody, actualBody) ??
    firstDifference({ digest: expectedDigest }, { digest: actualDigest })
  out.push(
    found === undefined
      ? { field: "receipt", expected: show(expected), actual: show(actual) }
      : { field: `receipt ${found.path}`, expected: show(found.expected), actual: show(found.actual) }
  )
}

const runExpr = (c: typeof ExprCase.Type): ReadonlyArray<Difference> => {
  const result = Expr.evaluate(c.program, c.env as Record<string, Json>, c.fuel ?? Expr.defaultFuel)
  const out: Array<Difference> = []
  compare(out, "ok", c.expect.ok, result.ok)
  compare(out, "fuel", c.expect.fuel, result.fuel)
  if (c.expect.ok) compare(out, "value", c.expect.value, result.ok ? result.value : undefined)
  else compare(out, "code", c.expect.code, result.ok ? undefined : result.error.code)
  return out
}

type Staged =
  | { readonly stage: "parse"; readonly error: AlgalError.AlgalError }
  | { readonly stage: "compile"; readonly error: AlgalError.AlgalError; readonly digest: string }
  | { readonly stage: "run"; readonly program: Program.Program; readonly digest: string }

const admit = (json: unknown, options: Program.CompileOptions): Staged => {
  const parsed = Manifest.parseSync(json)
  if (!parsed.ok) return { stage: "parse", error: parsed.error }
  const digest = Manifest.digest(parsed.manifest)
  const compiled = Program.compileSync(parsed.manifest, options)
  return compiled.ok
    ? { stage: "run", program: compiled.program, digest }
    : { stage: "compile", error: compiled.error, digest }
}

/**
 * The manifest digest a case publishes. Where it publishes a receipt, that receipt's own
 * `manifestDigest` is the one (the original's random-organism corpus writes the run fingerprint
 * into the case's `manifestDigest` field; the receipt text is compared byte for byte anyway).
 */
const publishedManifestDigest = (expect: typeof StageExpect.Type): string | undefined => {
  if (expect.receipt === undefined) return expect.manifestDigest
  try {
    const receipt = JSON.parse(expect.receipt) as { readonly manifestDigest?: unknown }
    return typeof receipt.manifestDigest === "string" ? receipt.manifestDigest : expect.manifestDigest
  } catch {
    return expect.manifestDigest
  }
}

/** Compare the parse and compile stages; the program when both admit it (and a run is expected). */
const compareStages = (
  out: Array<Difference>,
  expect: typeof StageExpect.Type,
  staged: Staged,
  malformed: boolean
): Program.Program | undefined => {
  if (malformed) {
    compare(out, "ok", expect.ok, staged.stage === "run")
    if (expect.ok === false) {
      compare(out, "stage", expect.stage, staged.stage)
      compare(out, "code", expect.code, staged.stage === "run" ? undefined : staged.error.code)
    } else compare(out, "digest", expect.digest, staged.stage === "parse" ? undefined : staged.digest)
    return undefined
  }
  compare(out, "stage", expect.stage ?? "run", staged.stage)
  compare(out, "manifestDigest", publishedManifestDigest(expect), staged.stage === "parse" ? undefined : staged.digest)
  if (staged.stage !== "run") {
    compare(out, "code", expect.code, staged.error.code)
    return undefined
  }
  return expect.stage === undefined || expect.stage === "run" ? staged.program : undefined
}

const runWith = (
  program: Program.Program,
  args: unknown,
  responses: Readonly<Record<string, Json>> | null | undefined
): Effect.Effect<Either.Either<Receipt.Receipt, AlgalError.AlgalError>> =>
  Effect.gen(function*() {
    const runtime = yield* AlgalRuntime.AlgalRuntime
    const executors = responses === undefined || responses === null ? [] : [Executor.scripted(responses)]
    const result = yield* Effect.either(runtime.run(program, args ?? {}, { executors }))
    return Either.map(result, (r) => r.receipt)
  }).pipe(Effect.provide(AlgalRuntime.layerMemory()))

const compareRun = (
  out: Array<Difference>,
  expect: typeof StageExpect.Type,
  run: Either.Either<Receipt.Receipt, AlgalError.AlgalError>
): void => {
  if (Either.isLeft(run)) {
    if (expect.code !== undefined) compare(out, "code", expect.code, run.left.code)
    else out.push({ field: "receipt", expected: show(expect.receipt), actual: `${run.left.code}: ${run.left.message}` })
    return
  }
  if (expect.receipt === undefined && expect.code !== undefined) {
    out.push({ field: "code", expected: expect.code, actual: `a ${run.right.outcome} receipt` })
    return
  }
  compareReceipt(out, expect.receipt, run.right)
}

const runFile = (
  c: typeof FileCase.Type,
  options: Conformance.Options,
  out: Array<Difference>
): Effect.Effect<void, AlgalError.AlgalError> =>
  Effect.gen(function*() {
    if (options.load === undefined) {
      return yield* AlgalError.make("INPUT_MISSING", `case ${c.id} names file ${c.file}, and no file loader is given`)
    }
    const loaded = yield* options.load(c.file)
    const compileOptions: Program.CompileOptions = {
      ...(loaded.manifests === undefined ? {} : { manifests: loaded.manifests }),
      ...(options.tools === undefined ? {} : { tools: options.tools })
    }
    const program = compareStages(out, c.expect, admit(loaded.manifest, compileOptions), false)
    if (program !== undefined) compareRun(out, c.expect, yield* runWith(program, c.args, c.responses))
  })

/** Run a decoded case: the list of differences (empty when this runtime agrees). @internal */
export const runDecoded = (
  decoded: Decoded,
  options: Conformance.Options
): Effect.Effect<Conformance.CaseResult, AlgalError.AlgalError> =>
  Effect.gen(function*() {
    const out: Array<Difference> = []
    switch (decoded.category) {
      case "expr":
        out.push(...runExpr(decoded.case))
        break
      case "malformed":
      case "organisms": {
        const c = decoded.case
        const program = compareStages(out, c.expect, admit(c.manifest, {}), decoded.category === "malformed")
        if (program !== undefined) {
          const run = Runtime.runSync(program, c.args ?? {})
          compareRun(out, c.expect, run.ok ? Either.right(run.result.receipt) : Either.left(run.error))
        }
        break
      }
      case "fixtures":
      case "effects":
        yield* runFile(decoded.case, options, out)
    }
    return { id: decoded.case.id, category: decoded.category, differences: out }
  })
