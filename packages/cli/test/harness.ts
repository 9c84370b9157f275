import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { main } from "../src/Main.js"
import * as Stdin from "../src/Stdin.js"
import * as Ndjson from "./support/ndjson.js"

/**
 * What one CLI invocation printed and how it exited.
 */
export interface CliRun {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
  /** stdout parsed as JSON (throws if it is not one JSON document). */
  readonly json: () => any
  /** stderr parsed as JSON. */
  readonly errorJson: () => any
  /** stdout as NDJSON events, one per line (`--json` of the session verbs). */
  readonly events: () => Array<any>
  /** A session run's outcome: its NDJSON's last line, the `run.settle` (data, session, run). */
  readonly outcome: () => any
}

const capture = () => {
  const out: Array<string> = []
  const err: Array<string> = []
  const render = (args: ReadonlyArray<unknown>) => args.map((a) => typeof a === "string" ? a : String(a)).join(" ")
  const unsafe = {
    ...globalThis.console,
    log: (...args: ReadonlyArray<unknown>) => void out.push(render(args)),
    info: (...args: ReadonlyArray<unknown>) => void out.push(render(args)),
    error: (...args: ReadonlyArray<unknown>) => void err.push(render(args)),
    warn: (...args: ReadonlyArray<unknown>) => void err.push(render(args))
  } as Console.UnsafeConsole
  const console: Console.Console = {
    [Console.TypeId]: Console.TypeId,
    unsafe,
    assert: () => Effect.void,
    clear: Effect.void,
    count: () => Effect.void,
    countReset: () => Effect.void,
    debug: () => Effect.void,
    dir: () => Effect.void,
    dirxml: () => Effect.void,
    error: (...args) => Effect.sync(() => unsafe.error(...args)),
    group: () => Effect.void,
    groupEnd: Effect.void,
    info: (...args) => Effect.sync(() => unsafe.info(...args)),
    log: (...args) => Effect.sync(() => unsafe.log(...args)),
    table: () => Effect.void,
    time: () => Effect.void,
    timeEnd: () => Effect.void,
    timeLog: () => Effect.void,
    trace: () => Effect.void,
    warn: (...args) => Effect.sync(() => unsafe.warn(...args))
  }
  return { console, out, err }
}

/**
 * Run `steward ARGS…` in-process with captured stdout/stderr (and `stdin` as standard input, for
 * `-` arguments). Use inside `it.effect`/`it.live`.
 */
export const runCli = (args: ReadonlyArray<string>, options: { readonly stdin?: string } = {}) =>
  Effect.gen(function*() {
    const { console, err, out } = capture()
    const exitCode = yield* main(["node", "steward", ...args]).pipe(
      Effect.withConsole(console),
      options.stdin === undefined ? (self) => self : Effect.provideService(Stdin.Stdin, Stdin.fromText(options.stdin))
    )
    const stdout = out.join("\n")
    const stderr = err.join("\n")
    const run: CliRun = {
      exitCode,
      stdout,
      stderr,
      json: () => JSON.parse(stdout),
      errorJson: () => JSON.parse(stderr),
      events: () => Ndjson.events(stdout),
      outcome: () => Ndjson.outcome(stdout)
    }
    return run
  }).pipe(Effect.provide(NodeContext.layer))
