/**
 * What `bin.ts` loads once its signal handlers are in: the program and the platform it runs on,
 * behind one dynamic `import()`. One entry keeps the bundle's shared code in few chunks (each
 * module the executable imported on its own became a split point, and each chunk is a file to
 * resolve, read and compile at start-up).
 *
 * @internal
 */
import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as Layer from "effect/Layer"

export * as Effect from "effect/Effect"
export * as Exit from "effect/Exit"
export * as Fiber from "effect/Fiber"
export { main } from "../Main.js"

/**
 * The services every command runs with (`Cli.Environment`): `NodeContext.layer` without its
 * worker manager. Only reflex training starts workers, and it provides its own (FitWorkers);
 * leaving the manager out keeps the worker and pool modules out of every command's start-up.
 */
export const platform = Layer.mergeAll(NodePath.layer, NodeCommandExecutor.layer, NodeTerminal.layer).pipe(
  Layer.provideMerge(NodeFileSystem.layer)
)
