/**
 * Shell parsing with tree-sitter-bash on web-tree-sitter (WASM, in-process). The grammar is
 * loaded lazily, once, by the first `parse` (or `ready`) — a host or command that builds the layer
 * but never parses a shell command never compiles the WebAssembly — and released with the layer's
 * scope; parses are cached (LRU) because agents repeat commands. `parseSync`, the hot path, needs
 * a parser that is ready (ADR 0208).
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
import type * as TreeSitter from "web-tree-sitter"
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
  /** The insides of `$((…))`, which a shell may run as a subshell when they are not arithmetic. */
  readonly subshellReadings?: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ShellParser extends Context.Tag("@steward/governance-rules/ShellParser")<ShellParser, {
  /**
   * Parse (cached), loading the grammar first if no parse has yet. Malformed input yields issues,
   * not errors; the only failure is a grammar that cannot be loaded (`parser-unavailable`).
   */
  readonly parse: (command: string) => Effect.Effect<ParsedCommand, GovernanceError.GovernanceError>
  /** Load the grammar now if it is not loaded yet (once; later calls return at once). */
  readonly ready: Effect.Effect<void, GovernanceError.GovernanceError>
  /**
   * The same as `parse`, synchronously, for hot paths that already hold the service. The parser
   * must be ready (after `ready` or any `parse`): before that, a command that needs the grammar
   * throws a `parser-unavailable` error. Cached and over-long commands need no grammar.
   */
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

type TreeParser = TreeSitter.Parser

const loadGrammar: Effect.Effect<TreeParser, GovernanceError.GovernanceError> = Effect.tryPromise({
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
      `could not load tree-sitter-bash (web-tree-sitter): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause }
    )
})

const notReady = () =>
  GovernanceError.make(
    "parser-unavailable",
    "the shell grammar is not loaded yet: call `ready` (or `parse`) before `parseSync`"
  )

/**
 * Build the parser. Nothing is loaded here: the WASM grammar is loaded once, by the first `parse`
 * or `ready`, and the parser is deleted when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const capacity = Math.max(1, options.cacheSize ?? 2048)
    let parser: TreeParser | undefined
    let closed = false
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        parser?.delete()
        parser = undefined
      })
    )
    const ready = yield* Effect.cached(
      Effect.uninterruptible(Effect.flatMap(loadGrammar, (loaded) =>
        Effect.sync(() => {
          if (closed) loaded.delete()
          else parser = loaded
        })))
    )
    const cache = new Map<string, ParsedCommand>()
    const parseTree = (source: string): ParsedCommand => {
      if (parser === undefined) throw notReady()
      const tree = parser.parse(source)
      if (tree === null) {
        return { source, commands: Syntax.naive(source), issues: [{ id: "parse-error", segment: source }] }
      }
      try {
        const script = Syntax.collect(tree.rootNode)
        return {
          source,
          commands: script.commands,
          issues: script.issues,
          nested: script.nested,
          subshellReadings: script.subshellReadings
        }
      } finally {
        tree.delete()
      }
    }
    const parseSync = (source: string): ParsedCommand => {
      const hit = cache.get(source)
      if (hit !== undefined) {
        cache.delete(source)
        cache.set(source, hit)
        return hit
      }
      const parsed: ParsedCommand = source.length > MAX_COMMAND_LENGTH
        ? { source, commands: Syntax.naive(source), issues: [{ id: "too-long", segment: `${source.slice(0, 200)}…` }] }
        : parseTree(source)
      cache.set(source, parsed)
      if (cache.size > capacity) {
        const oldest = cache.keys().next()
        if (oldest.done !== true) {
          cache.delete(oldest.value)
        }
      }
      return parsed
    }
    return ShellParser.of({
      parse: (command) => Effect.zipRight(ready, Effect.sync(() => parseSync(command))),
      ready,
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
