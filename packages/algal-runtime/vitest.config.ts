import * as path from "node:path"
import { mergeConfig } from "vitest/config"
import { packageProject } from "../../vitest.shared.ts"

const dist = path.join(import.meta.dirname, "dist")

// Tests run the sources. Benchmarks measure what ships, the built package (ADR 0398): a bench's
// `../src/<Module>.js` import resolves to `dist/<Module>.js`, which Node loads as it is — through
// vite-node's transform every call between modules would pay for a namespace getter.
export default ({ mode }: { readonly mode: string }) =>
  mode === "benchmark"
    ? mergeConfig(packageProject(import.meta.dirname), {
      resolve: { alias: [{ find: /^\.\.\/src\/([A-Za-z]+)\.js$/, replacement: `${dist}/$1.js` }] },
      test: { server: { deps: { external: [/\/packages\/algal-runtime\/dist\//] } } }
    })
    : packageProject(import.meta.dirname)
