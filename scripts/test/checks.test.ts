import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { indexOf, renderIndex } from "../adr-index.mjs"
import { cyclesOf, graphOf } from "../check-cycles.mjs"
import { problemsOf as dependencyProblemsOf } from "../check-deps.mjs"
import { problemsOf, workspaceNames } from "../check-docs.mjs"
import { missingSince } from "../check-since.mjs"
import { problemsOf as sizeProblemsOf } from "../check-size.mjs"
import { root, sourceFiles } from "../lib/sources.mjs"

const tree = (files: Record<string, string>): string => {
  const base = mkdtempSync(join(tmpdir(), "steward-checks-"))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true })
    writeFileSync(join(base, path), text)
  }
  return base
}

describe("check-cycles", () => {
  it("finds a run-time cycle across packages and ignores type-only imports", () => {
    const base = tree({
      "packages/a/package.json": JSON.stringify({ name: "@steward/a" }),
      "packages/a/src/A.ts": `import { b } from "@steward/b/B"\nexport const a = b\n`,
      "packages/a/src/T.ts": `import type { U } from "./U.js"\nexport type T = U\n`,
      "packages/a/src/U.ts": `import type { T } from "./T.js"\nexport type U = { t?: T }\n`,
      "packages/b/package.json": JSON.stringify({ name: "@steward/b" }),
      "packages/b/src/B.ts": `import { c } from "./internal/c.js"\nexport const b = c\n`,
      "packages/b/src/internal/c.ts": `import * as A from "@steward/a/A"\nexport const c = 1\nexport const d = A\n`
    })
    const cycles = cyclesOf(graphOf(sourceFiles(base), base))
    assert.deepStrictEqual(cycles.map((cycle: Array<string>) => cycle.map((file) => file.slice(base.length + 1))), [[
      "packages/a/src/A.ts",
      "packages/b/src/B.ts",
      "packages/b/src/internal/c.ts"
    ]])
  })

  it("the repository has no run-time import cycle", () => {
    assert.deepStrictEqual(cyclesOf(graphOf(sourceFiles())), [])
  })
})

describe("check-since", () => {
  it("names every public export without @since; @internal is an explicit opt-out", () => {
    const base = tree({
      "M.ts": [
        "/** @since 0.1.0 */",
        "export const documented = 1",
        "/** no tag */",
        "export const bare = 2",
        "export function overloaded(a: string): string",
        "/** @since 0.1.0 */",
        "export function overloaded(a: string) { return a }",
        "/** @internal */",
        "export const shared = 3",
        "export * as Other from \"./Other.js\"",
        "export interface Shape {}",
        "const local = 4",
        ""
      ].join("\n")
    })
    const missing = missingSince(join(base, "M.ts")).map(({ line, name }: { line: number; name: string }) =>
      `${line}:${name}`
    )
    assert.deepStrictEqual(missing, ["4:bare", "10:Other", "11:Shape"])
  })
})

describe("check-docs", () => {
  it("reports packages that do not exist and broken relative links, not code blocks' paths", () => {
    const base = tree({
      "packages/a/package.json": JSON.stringify({ name: "@steward/a" }),
      "docs/x.md": [
        "Uses [`@steward/a`](../packages/a) and `@steward/ghost`.",
        "See [missing](nowhere.md) and [web](https://example.org).",
        "```",
        "[not a link](in-a-code-block.md)",
        "```",
        ""
      ].join("\n")
    })
    const problems = problemsOf(join(base, "docs/x.md"), workspaceNames(base))
      .map(({ line, message }: { line: number; message: string }) => `${line}: ${message}`)
    assert.deepStrictEqual(problems, [
      "1: @steward/ghost is not a workspace package",
      "2: link to nowhere.md: no such file"
    ])
  })
})

describe("adr-index", () => {
  it("docs/decisions/README.md is the generated index (run `node scripts/adr-index.mjs`)", () => {
    assert.strictEqual(readFileSync(join(root, "docs", "decisions", "README.md"), "utf8"), indexOf())
  })

  it("derives statuses: accepted, declared, superseded by a later record, amended in part", () => {
    const index = renderIndex([
      { file: "0001-old.md", text: "# 0001 — The old way\n\n## Decision\n\nDo it.\n" },
      { file: "0002-new.md", text: "# 0002. The new way\n\nSupersedes: 0001\n" },
      { file: "0003-part.md", text: "# 0003 — A tweak\n\nThis supersedes the second clause of ADR 0002.\n" },
      { file: "0004-draft.md", text: "# 0004 — Undecided\n\nStatus: proposed\n" }
    ])
    const rows = index.split("\n").filter((line) => line.startsWith("| ["))
    assert.deepStrictEqual(rows, [
      "| [0001](0001-old.md) | The old way | superseded by 0002 |  |",
      "| [0002](0002-new.md) | The new way | accepted | 0003 |",
      "| [0003](0003-part.md) | A tweak | accepted |  |",
      "| [0004](0004-draft.md) | Undecided | proposed |  |"
    ])
  })
})

describe("check-deps", () => {
  it("refuses a version outside the catalog and a dependency nothing imports; accepts the rest", () => {
    const base = tree({
      "packages/lib/package.json": JSON.stringify({
        name: "@steward/lib",
        dependencies: { picomatch: "catalog:", yaml: "^2.0.0" },
        peerDependencies: { effect: "catalog:", "@effect/platform": "catalog:" }
      }),
      "packages/lib/src/Lib.ts":
        `import * as Effect from "effect/Effect"\nexport const glob = () => import("picomatch")\n`,
      "packages/app/package.json": JSON.stringify({
        name: "@steward/app",
        dependencies: { picomatch: "catalog:" },
        devDependencies: { "@steward/lib": "workspace:^" }
      }),
      "packages/app/src/App.ts": `export const app = 1\n`,
      "examples/demo/package.json": JSON.stringify({ name: "demo", private: true, devDependencies: { tsx: "^4" } })
    })
    // the app inlines @steward/lib, so the picomatch lib imports is the app's to ship
    assert.deepStrictEqual(dependencyProblemsOf(base), [
      "packages/lib/package.json: dependencies.yaml is \"^2.0.0\", not from the catalog (pnpm-workspace.yaml)",
      "packages/lib/package.json: dependencies.yaml is declared but src/ never imports it",
      "packages/lib/package.json: peerDependencies.@effect/platform is declared but src/ never imports it",
      "examples/demo/package.json: devDependencies.tsx is \"^4\", not from the catalog (pnpm-workspace.yaml)"
    ])
  })

  it("holds for this repository", () => {
    assert.deepStrictEqual(dependencyProblemsOf(root), [])
  })
})

describe("check-size", () => {
  it("names a long public module and a long function body; a marked data table may be long", () => {
    const body = (n: number) => Array.from({ length: n }, (_, k) => `  const v${k} = ${k}`).join("\n")
    const base = tree({
      "packages/a/package.json": JSON.stringify({ name: "@steward/a" }),
      "packages/a/src/Long.ts": Array.from({ length: 401 }, (_, k) => `export const c${k} = ${k}`).join("\n") + "\n",
      "packages/a/src/Cues.ts": "// check-size: data table\n" +
        Array.from({ length: 500 }, (_, k) => `export const q${k} = ${k}`).join("\n") + "\n",
      "packages/a/src/internal/run.ts": `export const run = () => {\n${body(151)}\n}\n` +
        `export function ok() {\n${body(100)}\n}\n`
    })
    assert.deepStrictEqual(sizeProblemsOf(base), [
      "packages/a/src/Long.ts: 401 lines (a public module stays within about 400)",
      "packages/a/src/internal/run.ts:1: a function body of 152 lines (at most about 150)"
    ])
  })
})
