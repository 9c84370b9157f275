import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import { defineConfig } from "tsup"

const require = createRequire(import.meta.url)

// Declarations come from tsc, one .d.ts per module, instead of tsup's rolled-up chunks: the
// roll-up turns `export * as Expr` into a namespace of type aliases that keep the variance
// annotation of `interface Typed<out A>`, and TS2637 then rejects the shipped `.d.ts` for every
// consumer that type-checks libraries (`skipLibCheck: false`). See ADR 0700.
export default defineConfig({
  entry: ["src/*.ts"],
  format: ["esm"],
  target: "node20",
  dts: false,
  sourcemap: true,
  clean: true,
  tsconfig: "tsconfig.build.json",
  onSuccess: async () => {
    execFileSync(process.execPath, [
      require.resolve("typescript/bin/tsc"),
      "-p",
      "tsconfig.build.json",
      "--emitDeclarationOnly",
      "--outDir",
      "dist"
    ], { stdio: "inherit" })
  }
})
