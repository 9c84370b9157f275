/**
 * How many cores sat idle while an import parsed and stored its lines: the measure that sizes
 * the import's fit workers. A load average would lag by a minute and count this process's own
 * earlier work (and its previous workers) as load; the idle time of the very interval before the
 * fits does neither.
 * @internal
 */
import * as os from "node:os"

/** @internal */
export interface CpuSnapshot {
  readonly at: number
  readonly idle: number
}

const idleMs = (): number => {
  let idle = 0
  for (const cpu of os.cpus()) idle += cpu.times.idle
  return idle
}

/** @internal */
export const snapshot = (): CpuSnapshot => ({ at: performance.now(), idle: idleMs() })

/**
 * Idle cores since `since`, averaged over the interval (0 when the interval is too short to
 * measure: the kernel counts idle time in 10 ms ticks).
 * @internal
 */
export const idleSince = (since: CpuSnapshot): number => {
  const elapsed = performance.now() - since.at
  if (elapsed < 50) return 0
  return Math.max(0, (idleMs() - since.idle) / elapsed)
}
