/**
 * What `bin.ts` loads once its signal handlers are in: the program and the platform, behind one
 * dynamic `import()`. One entry keeps the bundle's shared code in few chunks (each module the
 * executable imported on its own became a split point, and each chunk is a file to resolve,
 * read and compile at start-up).
 *
 * @internal
 */
export * as NodeContext from "@effect/platform-node/NodeContext"
export * as Effect from "effect/Effect"
export * as Exit from "effect/Exit"
export * as Fiber from "effect/Fiber"
export { main } from "../Main.js"
