/**
 * The system prompt as named sections with character budgets. The ten sections form a
 * **stable prefix** in a fixed order; its digest changes only when its text does, so a
 * provider's prompt cache keeps hitting across the runs of a session. Request-time sections
 * (a goal, the date, workspace facts) follow the prefix and never disturb its digest.
 *
 * A section longer than its budget is cut (at a line break when one is near) and marked, unless
 * it is never-cut (`identity` and `permission` by default: rules are not shortened). The
 * compiled prompt reports every section's size and every cut.
 *
 * @since 0.1.0
 */
import type * as Prompt from "@effect/ai/Prompt"
import * as Canonical from "@steward/algal-runtime/Canonical"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as HarnessError from "./HarnessError.js"
import * as PromptDefaults from "./internal/tools/promptDefaults.js"
import * as Tools from "./Tools.js"

/**
 * The prefix sections, in their fixed order.
 *
 * @since 0.1.0
 * @category models
 */
export const SectionName = Schema.Literal(
  "identity",
  "role",
  "autonomy",
  "personality",
  "permission",
  "steering",
  "writing",
  "tools",
  "references",
  "reporting"
)

/**
 * @since 0.1.0
 * @category models
 */
export type SectionName = typeof SectionName.Type

/**
 * The prefix order.
 *
 * @since 0.1.0
 * @category models
 */
export const order: ReadonlyArray<SectionName> = SectionName.literals

/**
 * Default character budgets.
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaultBudgets: Readonly<Record<SectionName, number>> = {
  identity: 600,
  role: 1_400,
  autonomy: 2_600,
  personality: 1_200,
  permission: 1_800,
  steering: 2_000,
  writing: 1_900,
  tools: 8_000,
  references: 12_000,
  reporting: 12_000
}

/**
 * Sections that are never cut by default.
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaultNeverCut: ReadonlyArray<SectionName> = ["identity", "permission"]

/**
 * A `tools` section text for a toolkit: the general guidance, then one line per tool.
 *
 * @since 0.1.0
 * @category defaults
 */
export const toolsText = (tools: ReadonlyArray<{ readonly name: string; readonly description: string }>): string =>
  [PromptDefaults.toolGuidance, "", ...tools.map((tool) => `- ${tool.name}: ${tool.description}`)].join("\n")

/**
 * The default section texts (`tools` lists the default toolkit; `references` is empty, left out until the host supplies project documents).
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaultTexts: Readonly<Record<SectionName, string>> = {
  ...PromptDefaults.texts,
  tools: toolsText(Tools.defaults)
}

/**
 * A section override: new text, budget or never-cut flag. A plain string replaces the text;
 * `null` leaves the section out.
 *
 * @since 0.1.0
 * @category models
 */
export const SectionOverride = Schema.Union(
  Schema.String,
  Schema.Null,
  Schema.Struct({
    text: Schema.optional(Schema.String),
    budget: Schema.optional(Schema.Int.pipe(Schema.positive())),
    neverCut: Schema.optional(Schema.Boolean)
  })
)

/**
 * @since 0.1.0
 * @category models
 */
export type SectionOverride = typeof SectionOverride.Type

/**
 * Compiler configuration (decodable from JSON: unknown section names are refused).
 *
 * @since 0.1.0
 * @category models
 */
export const Config = Schema.Struct({
  sections: Schema.optional(Schema.partial(Schema.Record({ key: SectionName, value: SectionOverride })))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Config = typeof Config.Type

/**
 * A request-time section, placed after the prefix in the order given.
 *
 * @since 0.1.0
 * @category models
 */
export const RequestSection = Schema.Struct({
  name: Schema.String.pipe(Schema.pattern(/^[a-z][a-z0-9_-]{0,63}$/)),
  text: Schema.String,
  budget: Schema.optional(Schema.Int.pipe(Schema.positive())),
  neverCut: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export type RequestSection = typeof RequestSection.Type

/**
 * What became of one section. `chars` is the supplied length, `kept` what the prompt holds;
 * `overBudget` marks a never-cut section kept whole beyond its budget.
 *
 * @since 0.1.0
 * @category models
 */
export interface SectionReport {
  readonly name: string
  readonly placement: "prefix" | "request"
  readonly budget: number
  readonly chars: number
  readonly kept: number
  readonly cut: boolean
  readonly neverCut: boolean
  readonly overBudget: boolean
}

/**
 * A compiled prompt. `text` is `prefix`, then the request-time part.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compiled {
  readonly text: string
  readonly prefix: string
  /** `sha256:` digest of `prefix`. */
  readonly prefixDigest: string
  readonly request: string
  readonly sections: ReadonlyArray<SectionReport>
  /** The sections that were cut, in prompt order. */
  readonly cuts: ReadonlyArray<SectionReport>
}

interface Section {
  readonly name: string
  readonly text: string
  readonly budget: number
  readonly neverCut: boolean
}

const title = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1).replace(/[_-]/g, " ")

/** Cut `text` to at most `budget` characters, marker included, at a line break when one is near. */
const cut = (text: string, budget: number): string => {
  const marker = `\n[… section cut to its budget: ${text.length} characters supplied]`
  const room = Math.max(0, budget - marker.length)
  let keep = text.slice(0, room)
  const lineBreak = keep.lastIndexOf("\n")
  if (lineBreak >= room * 0.8) keep = keep.slice(0, lineBreak)
  return (keep + marker).slice(0, budget)
}

const render = (sections: ReadonlyArray<Section>, placement: "prefix" | "request") => {
  const parts: Array<string> = []
  const reports: Array<SectionReport> = []
  for (const section of sections) {
    if (section.text.trim() === "") continue
    const over = section.text.length > section.budget
    const body = over && !section.neverCut ? cut(section.text, section.budget) : section.text
    parts.push(section.name === "identity" ? body : `## ${title(section.name)}\n\n${body}`)
    reports.push({
      name: section.name,
      placement,
      budget: section.budget,
      chars: section.text.length,
      kept: body.length,
      cut: over && !section.neverCut,
      neverCut: section.neverCut,
      overBudget: over && section.neverCut
    })
  }
  return { text: parts.join("\n\n"), reports }
}

const invalid = (message: string) => new HarnessError.HarnessError({ code: "INVALID_INPUT", message })

const prefixSections = (config: Config): Array<Section> =>
  order.map((name) => {
    const override = config.sections?.[name]
    const base = {
      name,
      text: defaultTexts[name],
      budget: defaultBudgets[name],
      neverCut: defaultNeverCut.includes(name)
    }
    if (override === undefined) return base
    if (override === null) return { ...base, text: "" }
    if (typeof override === "string") return { ...base, text: override }
    return {
      name,
      text: override.text ?? base.text,
      budget: override.budget ?? base.budget,
      neverCut: override.neverCut ?? base.neverCut
    }
  })

/**
 * Request-time sections get this budget when they name none.
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaultRequestBudget = 4_000

/**
 * A compiler with its prefix built once: `compile` only renders the request-time part.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compiler {
  readonly prefix: string
  readonly prefixDigest: string
  readonly compile: (request?: ReadonlyArray<RequestSection>) => Either.Either<Compiled, HarnessError.HarnessError>
}

const decodeConfig = Schema.decodeUnknownEither(Config, { errors: "all", onExcessProperty: "error" })
const decodeRequest = Schema.decodeUnknownEither(Schema.Array(RequestSection), { onExcessProperty: "error" })

/**
 * Build a compiler from a configuration (validated: a typed `INVALID_INPUT` names the field).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeCompiler = (config: unknown = {}): Either.Either<Compiler, HarnessError.HarnessError> =>
  Either.map(
    Either.mapLeft(decodeConfig(config), (e) => invalid(`prompt config: ${e.message}`)),
    (decoded) => {
      const prefix = render(prefixSections(decoded), "prefix")
      const prefixDigest = Canonical.digestText(prefix.text)
      const compile = (request: ReadonlyArray<RequestSection> = []) =>
        Either.flatMap(
          Either.mapLeft(decodeRequest(request), (e) => invalid(`prompt request sections: ${e.message}`)),
          (sections): Either.Either<Compiled, HarnessError.HarnessError> => {
            const seen = new Set<string>()
            for (const s of sections) {
              if (seen.has(s.name) || (order as ReadonlyArray<string>).includes(s.name)) {
                return Either.left(invalid(`prompt request section ${s.name}: the name is already used`))
              }
              seen.add(s.name)
            }
            const part = render(
              sections.map((s) => ({
                name: s.name,
                text: s.text,
                budget: s.budget ?? defaultRequestBudget,
                neverCut: s.neverCut ?? false
              })),
              "request"
            )
            const all = [...prefix.reports, ...part.reports]
            return Either.right({
              text: part.text === "" ? prefix.text : `${prefix.text}\n\n${part.text}`,
              prefix: prefix.text,
              prefixDigest,
              request: part.text,
              sections: all,
              cuts: all.filter((r) => r.cut)
            })
          }
        )
      return { prefix: prefix.text, prefixDigest, compile }
    }
  )

/**
 * The compiled prompt as `@effect/ai` system messages: the stable prefix first, marked as a cache
 * breakpoint for providers that need one (Anthropic caches only up to a `cache_control` mark;
 * OpenAI caches repeated prefixes by itself), then the request-time part when there is one, so a
 * change there never moves the cached prefix.
 *
 * @since 0.1.0
 * @category interop
 */
export const systemMessages = (compiled: Compiled): ReadonlyArray<Prompt.SystemMessageEncoded> => [
  ...(compiled.prefix === ""
    ? []
    : [{
      role: "system" as const,
      content: compiled.prefix,
      options: { anthropic: { cacheControl: { type: "ephemeral" as const } } }
    }]),
  ...(compiled.request === "" ? [] : [{ role: "system" as const, content: compiled.request }])
]

/**
 * The compiler as a service, for hosts that configure it once per session.
 *
 * @since 0.1.0
 * @category tags
 */
export class PromptCompiler extends Context.Tag("@steward/harness-sessions/PromptCompiler")<PromptCompiler, {
  readonly prefixDigest: string
  readonly compile: (request?: ReadonlyArray<RequestSection>) => Effect.Effect<Compiled, HarnessError.HarnessError>
}>() {}

/**
 * A `PromptCompiler` for a configuration (fails with `INVALID_INPUT` on a bad one).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (config: unknown = {}): Layer.Layer<PromptCompiler, HarnessError.HarnessError> =>
  Layer.effect(
    PromptCompiler,
    Effect.map(makeCompiler(config), (compiler) =>
      PromptCompiler.of({
        prefixDigest: compiler.prefixDigest,
        compile: Effect.fn("PromptCompiler.compile")(function*(request?: ReadonlyArray<RequestSection>) {
          return yield* compiler.compile(request)
        })
      }))
  )
