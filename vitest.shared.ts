import * as path from "node:path"
import { defineProject } from "vitest/config"

/**
 * The one test/bench configuration every package merges: tests in `test/`, benchmarks in `bench/`.
 */
export const packageProject = (dirname: string) =>
  defineProject({
    test: {
      name: path.basename(dirname),
      root: dirname,
      include: ["test/**/*.test.ts"],
      setupFiles: [path.join(import.meta.dirname, "vitest.setup.ts")],
      testTimeout: 60_000,
      hookTimeout: 60_000,
      benchmark: { include: ["bench/**/*.bench.ts"] }
    }
  })
