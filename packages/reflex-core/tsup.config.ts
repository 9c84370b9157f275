import { defineConfig } from "tsup"
import { emitDeclarations } from "../../scripts/tsc-declarations.mjs"

// Declarations come from tsc, one .d.ts per module: tsup's roll-up breaks variance-annotated interfaces
// (TS2637) and type-only re-exports (TS2693) for consumers; ADR 0700.
export default defineConfig({
  entry: ["src/*.ts"],
  format: ["esm"],
  target: "node20",
  dts: false,
  sourcemap: true,
  clean: true,
  tsconfig: "tsconfig.build.json",
  onSuccess: emitDeclarations
})
