/**
 * Shell parsing with tree-sitter-bash on web-tree-sitter (WASM, in-process). The grammar is
 * loaded once in a scoped layer; parses are cached (LRU) because agents repeat commands.
 *
 * The WASM file is resolved at run time from `node_modules` with
 * `createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm")`, so it also
 * works from the bundled CLI (which keeps npm dependencies external).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"
import * as GovernanceError from "./GovernanceError.js"
import * as Syntax from "./internal/shellSyntax.js"

/**
 * Commands longer than this are never parsed or allowed (they are matched literally for
 * universal denies only, and otherwise ask).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_COMMAND_LENGTH = 10_000

/**
 * A parsed command: every simple command found anywhere in it, plus syntax issues that make the
 * whole command unresolvable (parse errors, function definitions, control flow, excess depth or
 * length).
 *
 * @since 0.1.0
 * @category models
 */
export interface ParsedCommand {
  readonly source: string
  readonly commands: ReadonlyArray<Syntax.SimpleCommand>
  readonly issues: ReadonlyArray<{ readonly id: Syntax.SyntaxIssueId | "too-long"; readonly segment: string }>
  /** Sources bash parses a second time (escaped backticks nested in backticks). */
  readonly nested?: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ShellParser extends Context.Tag("@steward/governance-rules/ShellParser")<ShellParser, {
  /** Parse (cached). Never fails: malformed input yields issues, not errors. */
  readonly parse: (command: string) => Effect.Effect<ParsedCommand>
  /** The same as `parse`, synchronously, for hot paths that already hold the service. */
  readonly parseSync: (command: string) => ParsedCommand
  /** Number of cached parses (for diagnostics and tests). */
  readonly cacheSize: Effect.Effect<number>
}>() {}

/**
 * Options for the parser layer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Maximum cached parses (LRU). Default 2048. */
  readonly cacheSize?: number
}

/**
 * Where the grammar's WASM file is, resolved from this module's location.
 *
 * @since 0.1.0
 * @category utils
 */
export const grammarPath = (): string =>
  createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm")

/**
 * Build the parser (loads the WASM grammar once); the parser is deleted when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const capacity = Math.max(1, options.cacheSize ?? 2048)
    const parser = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const { Language, Parser } = await import("web-tree-sitter")
          await Parser.init()
          const language = await Language.load(grammarPath())
          const parser = new Parser()
          parser.setLanguage(language)
          return parser
        },
        catch: (cause) =>
          GovernanceError.make(
            "parser-unavailable",
            `could not load tree-sitter-bash (web-tree-sitter): ${
              cause instanceof Error ? cause.message : String(cause)
            }`,
            { cause }
          )
      }),
      (parser) => Effect.sync(() => parser.delete())
    )
    const cache = new Map<string, ParsedCommand>()
    const parseSync = (source: string): ParsedCommand => {
      const hit = cache.get(source)
      if (hit !== undefined) {
        cache.delete(source)
        cache.set(source, hit)
        return hit
      }
      let parsed: ParsedCommand
      if (source.length > MAX_COMMAND_LENGTH) {
        parsed = {
          source,
          commands: Syntax.naive(source),
          issues: [{ id: "too-long", segment: `${source.slice(0, 200)}…` }]
        }
      } else {
        const tree = parser.parse(source)
        if (tree === null) {
          parsed = { source, commands: Syntax.naive(source), issues: [{ id: "parse-error", segment: source }] }
        } else {
          try {
            const script = Syntax.collect(tree.rootNode)
            parsed = { source, commands: script.commands, issues: script.issues, nested: script.nested }
          } finally {
            tree.delete()
          }
        }
      }
      cache.set(source, parsed)
      if (cache.size > capacity) {
        const oldest = cache.keys().next()
        if (oldest.done !== true) cache.delete(oldest.value)
      }
      return parsed
    }
    return ShellParser.of({
      parse: (command) => Effect.sync(() => parseSync(command)),
      parseSync,
      cacheSize: Effect.sync(() => cache.size)
    })
  })

/**
 * The parser as a scoped layer (default options).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ShellParser, GovernanceError.GovernanceError> = Layer.scoped(ShellParser, make())

/**
 * The parser with options.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<ShellParser, GovernanceError.GovernanceError> =>
  Layer.scoped(ShellParser, make(options))
