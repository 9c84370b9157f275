import { defineConfig } from "tsup"
import { emitDeclarations } from "../../scripts/tsc-declarations.mjs"

// Declarations come from tsc, one .d.ts per module: tsup's roll-up breaks variance-annotated interfaces
// (TS2637) and type-only re-exports (TS2693) for consumers; ADR 0700.
export default defineConfig([
  {
    entry: ["src/*.ts"],
    format: ["esm"],
    target: "node20",
    dts: false,
    sourcemap: true,
    clean: true,
    tsconfig: "tsconfig.build.json",
    onSuccess: emitDeclarations
  },
  {
    // The fit worker's entry (FitWorkers.entry), one self-contained file: a worker thread then
    // loads one module instead of resolving Effect's hundreds (ADR 0411).
    entry: { "internal/fitWorker": "src/internal/fitWorker.ts" },
    format: ["esm"],
    platform: "node",
    target: "node20",
    dts: false,
    sourcemap: true,
    clean: false,
    noExternal: [/^effect(\/|$)/, /^@effect\//],
    tsconfig: "tsconfig.build.json"
  }
])
