/**
 * One hook call from stdin to stdout: decode the client's event, open the state directory's
 * stores, run the event's handler and render the answer in the client's form. It never fails:
 * any error of Steward's own (bad input, a store that does not open, a policy that does not
 * compile, a defect) becomes the fail-closed answer — a deny naming the error for a tool call,
 * no opinion for anything else.
 *
 * @since 0.3.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as path from "node:path"
import * as HookRuntime from "./HookRuntime.js"
import * as Input from "./Input.js"
import * as PreTool from "./PreTool.js"
import type * as Request from "./Request.js"
import * as Turns from "./Turns.js"
import * as Wire from "./Wire.js"

/** The most stdin a hook reads (the clients' largest inputs are a few hundred KiB of tool output). */
export const MAX_STDIN_BYTES = 16 * 1024 * 1024

/**
 * Where a call's state lives: `--state-dir`, else `$STEWARD_STATE_DIR`, else the workspace's
 * `.steward`.
 *
 * @since 0.3.0
 * @category models
 */
export const stateDirOf = (request: Request.Request, workspace: string): string =>
  request.stateDir ?? path.join(workspace, ".steward")

const message = (e: unknown): string =>
  typeof e === "string"
    ? e
    : typeof e === "object" && e !== null && "message" in e
    ? String((e as { message: unknown }).message)
    : String(e)

class Refusal {
  readonly _tag = "Refusal"
  constructor(readonly reason: string) {}
}

const refuse = (reason: string) => Effect.fail(new Refusal(reason))

const answerFor = (
  client: Wire.Client,
  kind: Wire.Kind,
  request: Request.Request,
  containment: PreTool.Containment
) =>
  Effect.gen(function*() {
    const runtime = yield* HookRuntime.HookRuntime
    if (Buffer.byteLength(request.stdin, "utf8") > MAX_STDIN_BYTES) {
      return yield* refuse(`the event on stdin is over ${MAX_STDIN_BYTES} bytes`)
    }
    const raw = yield* Effect.try({
      try: () => JSON.parse(request.stdin) as unknown,
      catch: (e) => new Refusal(`the event on stdin is not JSON (${message(e)})`)
    })
    const decoded = Input.decode(client, raw)
    if (Either.isLeft(decoded)) return yield* refuse(`the ${request.event} event does not decode: ${decoded.left}`)
    const input = decoded.right
    const workspace = request.workspace ?? path.resolve(request.cwd, input.cwd)
    const stateDir = stateDirOf(request, workspace)
    const stores = yield* runtime.stores(stateDir).pipe(Effect.mapError((e) => new Refusal(e)))
    switch (kind) {
      case "pre_tool": {
        if (input.tool === undefined) return yield* refuse(`the ${request.event} event names no tool`)
        const governed = yield* runtime.governed({
          workspace,
          level: request.level,
          home: request.home,
          rules: request.rules
        }).pipe(Effect.mapError((e) => new Refusal(`the policy cannot be used: ${e.message}`)))
        return yield* PreTool.decide({ client, input, governed, stores, stateDir, containment })
      }
      case "post_tool":
        return yield* Turns.postTool(client, input, stores)
      case "stop":
      case "prompt": {
        const reflexes = yield* runtime.reflexes(stateDir).pipe(Effect.mapError((e) => new Refusal(e)))
        return yield* (kind === "stop"
          ? Turns.stop(client, input, stores, reflexes)
          : Turns.prompt(client, input, stores, reflexes))
      }
      case "session_start":
      case "session_end":
        return yield* Turns.session(client, input, stores)
    }
  })

/**
 * @since 0.3.0
 * @category models
 */
export type Outcome = Wire.Outcome

/**
 * @since 0.3.0
 * @category handlers
 */
export const failed = Wire.failed

/**
 * Handle one call.
 *
 * @since 0.3.0
 * @category handlers
 */
export const handle = (request: Request.Request, containment: PreTool.Containment) =>
  Effect.gen(function*() {
    const client = request.client
    if (!Wire.isClient(client)) return failed(client, request.event, "no such client")
    const kind = Wire.kindOf(client, request.event)
    if (kind === undefined) {
      return { stdout: Wire.render(client, "session_end", { _tag: "none" }), stderr: "", exitCode: 0 } as Outcome
    }
    return yield* answerFor(client, kind, request, containment).pipe(
      Effect.map((answer): Outcome => ({ stdout: Wire.render(client, kind, answer), stderr: "", exitCode: 0 })),
      Effect.catchAllCause((cause) => {
        const squashed = Cause.squash(cause)
        const why = squashed instanceof Refusal ? squashed.reason : message(squashed)
        return Effect.succeed(failed(client, request.event, why))
      })
    )
  })
