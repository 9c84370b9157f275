import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Responder } from "@steward/governance-rules"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as EventStore from "../../src/EventStore.js"
import * as ScriptedModel from "../../src/ScriptedModel.js"
import * as Session from "../../src/Session.js"
import * as Tools from "../../src/Tools.js"

/** A fresh workspace directory. */
export const workspace = (): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "harness-ws-")))

/** A script from turns. */
export const script = (...turns: ReadonlyArray<unknown>): string => turns.map((t) => JSON.stringify(t)).join("\n")

/** Everything the sessions service needs, with a memory store and a scripted model. */
export const layer = <A = never>(
  text: string,
  options: Session.Options & { readonly extra?: Layer.Layer<A, any> } = {}
) => {
  const base = Layer.mergeAll(
    EventStore.layerMemory,
    ScriptedModel.layerFromText(text),
    NodeContext.layer,
    FetchHttpClient.layer,
    Tools.layerAskUserUnavailable
  )
  const deps = options.extra === undefined ? base : Layer.merge(base, options.extra)
  return Session.layer(options).pipe(Layer.provideMerge(deps), Layer.orDie) as Layer.Layer<
    Layer.Layer.Success<typeof base> | Session.Sessions | A
  >
}

/** A responder that always answers as the person `alice`. */
export const alice = (answer: "allow" | "deny") => Responder.layerConstant(answer, "alice")

/** The events of a session as `[type, data]` pairs. */
export const events = (id: string) =>
  Effect.flatMap(EventStore.EventStore, (store) => store.read(id)).pipe(
    Effect.map((es) => es.map((e) => [e.type, e.data as any] as const))
  )
