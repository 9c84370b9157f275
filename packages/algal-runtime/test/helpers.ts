import * as fs from "node:fs"
import * as path from "node:path"
import * as Manifest from "../src/Manifest.js"
import * as Program from "../src/Program.js"

export const fixturesDir = path.join(import.meta.dirname, "fixtures")
export const examplesDir = path.join(fixturesDir, "algal", "examples")

export const readJson = (file: string): any => JSON.parse(fs.readFileSync(file, "utf8"))
export const example = (name: string): any => readJson(path.join(examplesDir, `${name}.algal.json`))
export const exampleArgs = (name: string): any => readJson(path.join(examplesDir, `${name}.args.json`))
export const xcb = (name: string): any => readJson(path.join(fixturesDir, "xcb", `${name}.algal.json`))

export const parseOk = (json: unknown): Manifest.Manifest => {
  const result = Manifest.parseSync(json)
  if (!result.ok) throw new Error(`${result.error.code} ${result.error.message} at ${result.error.path}`)
  return result.manifest
}

export const compileOk = (json: unknown, options?: Program.CompileOptions): Program.Program => {
  const result = Program.compileSync(parseOk(json), options)
  if (!result.ok) throw new Error(`${result.error.code} ${result.error.message} at ${result.error.path}`)
  return result.program
}

/** A small manifest builder for tests. */
export const organism = (
  cells: ReadonlyArray<unknown>,
  edges: ReadonlyArray<unknown> = [],
  extra: Record<string, unknown> = {}
) => ({
  contract: "algal.organism.v1",
  key: "organism:test",
  name: "Test",
  cells,
  edges,
  ...extra
})

export const edge = (from: string, to: string, extra: Record<string, unknown> = {}) => {
  const [fc, fp] = from.split(".")
  const [tc, tp] = to.split(".")
  return { from: { cell: fc, port: fp }, to: { cell: tc, port: tp }, ...extra }
}

export const settleArgs = (
  evidence: Record<string, unknown>,
  features: Record<string, unknown> = { a: 1, b: 0.5 }
) => ({
  src: {
    features,
    params: {
      unfinished: { bias: -0.2, cut: 0.5, terms: [{ f: "a", w: 0.7 }, { f: "b", w: 0.1 }] },
      confirm: { bias: -1, cut: 0.3, terms: [{ f: "b", w: 0.4 }] }
    },
    evidence: { state: "idle", limit: 0, blocked: 0, done_claim: 1, ...evidence }
  }
})
