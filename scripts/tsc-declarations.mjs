// tsup's `onSuccess` for libraries that ship tsc's declarations (one `.d.ts` per module) instead
// of tsup's rolled-up chunks: the roll-up rewrites `export * as X` into type aliases that keep the
// variance annotations of interfaces (`interface Typed<out A>`), which TS2637 rejects for every
// consumer checking libraries with `skipLibCheck: false`. See ADR 0700.
import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

/** Emits `dist/**\/*.d.ts` from the package's `tsconfig.build.json` (run in the package folder). */
export const emitDeclarations = async () => {
  execFileSync(process.execPath, [
    require.resolve("typescript/bin/tsc"),
    "-p",
    "tsconfig.build.json",
    "--emitDeclarationOnly",
    "--outDir",
    "dist"
  ], { stdio: "inherit" })
}
