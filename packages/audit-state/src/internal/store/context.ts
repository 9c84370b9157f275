/**
 * What every engine operation shares: the backend and the snapshot this process last read or
 * wrote (so a process that keeps the store open re-reads nothing that has not changed).
 *
 * @internal
 */
import type { Backend, Snapshot } from "./backend.js"

export interface EngineContext {
  readonly backend: Backend
  /** The last snapshot read or committed through this engine (`undefined`: none or no state). */
  cache: Snapshot | undefined
}

export const makeContext = (backend: Backend): EngineContext => ({ backend, cache: undefined })
