/**
 * What `bin.ts` loads once its signal handlers are in: the program and the platform it runs on,
 * behind one dynamic `import()` that yields one function. One entry keeps the bundle's shared
 * code in few chunks (each module the executable imported on its own became a split point, and
 * each chunk is a file to resolve, read and compile at start-up). It exports a function, not
 * module namespaces: a namespace re-exported as a value keeps every export of its module in the
 * bundle and builds a getter for each when the chunk loads (`effect/Effect` alone: hundreds).
 *
 * @internal
 */
import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { main } from "../Main.js"
import type { Running } from "./stopSignals.js"

/**
 * The services every command runs with (`Cli.Environment`): `NodeContext.layer` without its
 * worker manager. Only reflex training starts workers, and it provides its own (FitWorkers);
 * leaving the manager out keeps the worker and pool modules out of every command's start-up.
 */
const platform = Layer.mergeAll(NodePath.layer, NodeCommandExecutor.layer, NodeTerminal.layer).pipe(
  Layer.provideMerge(NodeFileSystem.layer)
)

/** Start the program on `argv`: interrupting it closes its scopes; its exit code is the end's. */
export const start = (argv: ReadonlyArray<string>): Running => {
  const fiber = Effect.runFork(main(argv).pipe(Effect.provide(platform)))
  return {
    interrupt: () => void Effect.runFork(Fiber.interrupt(fiber)),
    onEnd: (listener) => fiber.addObserver((exit) => listener(Exit.isSuccess(exit) ? exit.value : 2))
  }
}
