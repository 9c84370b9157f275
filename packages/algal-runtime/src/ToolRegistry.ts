/**
 * The host tool registry and capability handles (ALGAL v1 §2.5). `tool` cells and agent tool
 * calls may reach only tools the host registered here: each has a signature (typed input/output
 * ports), its effect (`read` | `write`), a work `cost`, an output bound, and `run`. Calls are
 * `algal.tool-effect.v1` requests whose digest is the idempotency key; each leaves an effect
 * receipt under `executor:"tool:<name>"`.
 *
 * `cap` handles (`cap:<class>:sha256:<digest>`) are minted only by the registry (keyed by a
 * per-registry secret); an input `cap` port carrying a token the host did not mint fails
 * `CAPABILITY_DENIED`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolRegistry } from "@steward/algal-runtime"
 *
 * const layer = ToolRegistry.layer({
 *   "clock.read": {
 *     inputs: {},
 *     outputs: { now: { type: "text" } },
 *     effect: "read",
 *     cost: 10,
 *     run: () => Effect.succeed({ now: "2026-01-01" })
 *   }
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomBytes } from "node:crypto"
import * as AlgalError from "./AlgalError.js"
import * as Canonical from "./Canonical.js"
import * as EffectRequest from "./EffectRequest.js"
import type { Json } from "./Manifest.js"
import type * as Program from "./Program.js"

/**
 * A registered host tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface HostTool extends Program.ToolSignature {
  readonly run: (
    inputs: { readonly [port: string]: Json },
    request: EffectRequest.ToolRequest
  ) => Effect.Effect<{ readonly [port: string]: Json }, EffectRequest.EffectFailure>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  readonly tools: ReadonlyMap<string, HostTool>
  /** Mint a capability handle of `capability` class for `name` (deterministic per registry). */
  readonly mint: (capability: string, name: string) => Effect.Effect<string, AlgalError.AlgalError>
  /** Whether this registry minted a token. */
  readonly minted: (token: string) => boolean
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ToolRegistry extends Context.Tag("@steward/algal-runtime/ToolRegistry")<ToolRegistry, Shape>() {}

const capClass = /^[a-z][a-z0-9-]{0,63}$/

/**
 * Build a registry. `secret` keys capability minting (default: 32 random bytes).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (tools: Readonly<Record<string, HostTool>> = {}, secret?: string): Shape => {
  const key = secret ?? randomBytes(32).toString("hex")
  const minted = new Set<string>()
  return {
    tools: new Map(Object.entries(tools)),
    mint: (capability, name) =>
      Effect.suspend(() => {
        if (!capClass.test(capability)) {
          return Effect.fail(
            AlgalError.make("CAPABILITY_DENIED", `capability class must be an id: ${JSON.stringify(capability)}`)
          )
        }
        const token = `cap:${capability}:${
          Canonical.digestText(Canonical.encodeUnsafe({ contract: "algal.cap.v1", capability, name, key }))
        }`
        minted.add(token)
        return Effect.succeed(token)
      }),
    minted: (token) => minted.has(token)
  }
}

/**
 * The tool signatures (for compilation).
 *
 * @since 0.1.0
 * @category accessors
 */
export const signatures = (registry: Shape): Record<string, Program.ToolSignature> => {
  const out: Record<string, Program.ToolSignature> = {}
  for (const [name, tool] of registry.tools) {
    out[name] = {
      inputs: tool.inputs,
      outputs: tool.outputs,
      ...(tool.effect === undefined ? {} : { effect: tool.effect }),
      ...(tool.cost === undefined ? {} : { cost: tool.cost }),
      ...(tool.maxOutputBytes === undefined ? {} : { maxOutputBytes: tool.maxOutputBytes })
    }
  }
  return out
}

/**
 * Run a tool request against the registry and record it. Never fails: an unknown tool is
 * `EFFECT_UNBOUND`, a failing tool its own failure (default code `TOOL_FAILED`), a defect `TOOL_FAILED`.
 *
 * @since 0.1.0
 * @category running
 */
export const dispatch = (
  registry: Shape | undefined,
  request: EffectRequest.ToolRequest,
  digest: string,
  maxEffectMs?: number
): Effect.Effect<EffectRequest.EffectReceipt> => {
  const tool = registry?.tools.get(request.tool)
  if (tool === undefined) return Effect.succeed(EffectRequest.unbound(digest, `no host tool ${request.tool} is bound`))
  const executor = `tool:${request.tool}`
  const run = tool.run(request.inputs, request)
  const bounded = maxEffectMs === undefined ? run : run.pipe(
    Effect.timeoutFail({
      duration: Duration.millis(maxEffectMs),
      onTimeout: (): EffectRequest.EffectFailure => ({
        code: "BUDGET_EXHAUSTED",
        message: `tool exceeded maxEffectMs ${maxEffectMs}`
      })
    })
  )
  return bounded.pipe(
    Effect.map((output): EffectRequest.EffectReceipt => ({ requestDigest: digest, executor, output })),
    Effect.catchAll((error) =>
      Effect.succeed<EffectRequest.EffectReceipt>({
        requestDigest: digest,
        executor,
        error: { code: error.code, message: error.message },
        ...(error.code === "EFFECT_SUSPENDED" ? { retryable: false as const } : {})
      })
    ),
    Effect.catchAllDefect((defect) =>
      Effect.succeed<EffectRequest.EffectReceipt>({
        requestDigest: digest,
        executor,
        error: { code: "TOOL_FAILED", message: `tool ${request.tool} crashed: ${String(defect).slice(0, 200)}` }
      })
    )
  )
}

/**
 * Register host tools.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (tools: Readonly<Record<string, HostTool>> = {}): Layer.Layer<ToolRegistry> =>
  Layer.sync(ToolRegistry, () => make(tools))

/**
 * An empty registry (no tools; no capability is honoured).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEmpty: Layer.Layer<ToolRegistry> = layer()
