/**
 * Answering a paused call (issue 35 item 2, ADR 0016): the reply a person types at the inline
 * prompt, read into an answer, and the prompt itself. A run paused at an ask (`run.pause`, ADR
 * 0573) waits durably; in a terminal `session run` asks
 * `Allow? [y]es once / [a]lways <scope> / [n]o (reason)` and answers through the library's
 * `Sessions.approve` / `reject` in the same process, so "always" saves the shown scope (or the one
 * typed after `a`) exactly as `session approve --remember [--scope]` would.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as readline from "node:readline"

/**
 * A person's answer to a paused call.
 *
 * @since 0.1.0
 * @category models
 */
export type Answer =
  | { readonly _tag: "Once" }
  | { readonly _tag: "Always"; readonly scope: string }
  | { readonly _tag: "Reject"; readonly reason: string | undefined }
  | { readonly _tag: "Unclear"; readonly why: string }

/**
 * The prompt for a pause: the scope approve-and-remember would save, when one exists.
 *
 * @since 0.1.0
 * @category rendering
 */
export const question = (scope: string | undefined): string =>
  `Allow? [y]es once / ${scope === undefined ? "" : `[a]lways ${scope} / `}[n]o (reason) > `

/**
 * Read a reply: `y`/`yes` allows once; `a`/`always` saves the shown scope, `a SCOPE` another one
 * (the scope is editable); `n`/`no` rejects, the rest of the line is the reason the model reads.
 * Anything else (an empty line included) is unclear and asked again: silence grants nothing.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (reply: string, shown: string | undefined, unscoped?: string): Answer => {
  const text = reply.trim()
  const [word = "", ...rest] = text.split(/\s+/)
  const tail = text.slice(word.length).trim()
  switch (word.toLowerCase()) {
    case "y":
    case "yes":
      return rest.length === 0 ? { _tag: "Once" } : { _tag: "Unclear", why: "`y` takes nothing after it" }
    case "a":
    case "always": {
      const scope = tail === "" ? shown : tail
      return scope === undefined
        ? { _tag: "Unclear", why: `nothing can be remembered for this call${unscoped ? `: ${unscoped}` : ""}` }
        : { _tag: "Always", scope }
    }
    case "n":
    case "no":
      return { _tag: "Reject", reason: tail === "" ? undefined : tail }
    default:
      return { _tag: "Unclear", why: "answer y, a (optionally with a scope) or n (optionally with a reason)" }
  }
}

/**
 * The person at the terminal: one line read after a question, `None` at the end of input.
 *
 * @since 0.1.0
 * @category tags
 */
export class Prompt extends Context.Tag("@steward/cli/session/Prompt")<Prompt, {
  readonly ask: (question: string) => Effect.Effect<Option.Option<string>>
}>() {}

/**
 * The prompt on this process's terminal (standard input and output).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTerminal: Layer.Layer<Prompt> = Layer.succeed(
  Prompt,
  Prompt.of({
    ask: (text) =>
      Effect.async<Option.Option<string>>((resume) => {
        const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true })
        let answered = false
        rl.question(text, (line) => {
          answered = true
          rl.close()
          resume(Effect.succeed(Option.some(line)))
        })
        rl.on("close", () => {
          if (!answered) resume(Effect.succeed(Option.none()))
        })
        // Ctrl-C at the prompt reaches readline as a key (the terminal is in raw mode), not as a
        // signal: hand it to the process's SIGINT handlers (bin.ts: the same stop as anywhere
        // else, exit 130). The run stays paused, answerable later.
        rl.on("SIGINT", () => {
          answered = true
          rl.close()
          process.emit("SIGINT", "SIGINT")
        })
        return Effect.sync(() => rl.close())
      })
  })
)

/**
 * Whether a person can answer here: both standard input and output are a terminal.
 *
 * @since 0.1.0
 * @category utils
 */
export const interactive = (): boolean => process.stdin.isTTY === true && process.stdout.isTTY === true
