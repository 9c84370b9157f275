/**
 * Fit workers for tests: the fit worker entry run from source (`fitWorkerSource.mjs`), and one
 * whose entry does not exist (every worker fails to start).
 */
import * as FitWorkers from "../src/FitWorkers.js"

export const fromSource = FitWorkers.layerNode({ entry: new URL("./fitWorkerSource.mjs", import.meta.url) })

export const missingEntry = FitWorkers.layerNode({ entry: new URL("./no-such-fit-worker.mjs", import.meta.url) })
