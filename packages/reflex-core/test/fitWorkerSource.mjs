// The fit worker entry from source, for tests and benches that run `src/` (vitest): tsx compiles
// the TypeScript inside the worker thread. Built packages use `dist/internal/fitWorker.js`.
import { register } from "tsx/esm/api"

register()
await import("../src/internal/fitWorker.ts")
