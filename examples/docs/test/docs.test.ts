import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(dirname(fileURLToPath(import.meta.url)))
const root = join(here, "..", "..")
const snippets = join(here, ".snippets")

const markdown = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? markdown(path) : name.endsWith(".md") ? [path] : []
  })

/**
 * The ```ts blocks (not `ts nocheck`) of every page, concatenated per page: a page's blocks are
 * one program (later blocks use what earlier ones declared). `lines` maps each line of the
 * program back to the page's line.
 */
const pages = () =>
  markdown(join(root, "docs")).flatMap((file) => {
    const code: Array<string> = []
    const lines: Array<number> = []
    const text = readFileSync(file, "utf8").split("\n")
    for (let i = 0; i < text.length; i++) {
      if (!/^```ts\s*$/.test(text[i]!)) continue
      for (i++; i < text.length && !/^```\s*$/.test(text[i]!); i++) {
        code.push(text[i]!)
        lines.push(i + 1)
      }
    }
    return code.length === 0 ? [] : [{ file: relative(root, file), code: code.join("\n"), lines }]
  })

describe("docs/", () => {
  it("every TypeScript example type-checks against the workspace packages", { timeout: 600_000 }, async () => {
    const found = pages()
    assert.isAtLeast(found.length, 4, "the guides carry TypeScript examples")
    rmSync(snippets, { recursive: true, force: true })
    mkdirSync(snippets)
    const names = new Map<string, { file: string; lines: ReadonlyArray<number> }>()
    for (const page of found) {
      const name = `${page.file.replace(/[^A-Za-z0-9]+/g, "_")}.ts`
      names.set(name, page)
      writeFileSync(join(snippets, name), `${page.code}\nexport {}\n`)
    }
    writeFileSync(
      join(snippets, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          exactOptionalPropertyTypes: true,
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          lib: ["ES2022"],
          types: ["node"],
          skipLibCheck: true,
          noEmit: true
        },
        include: ["*.ts"]
      })
    )
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
    // asynchronously: a type check of every package's sources takes a while on a busy machine
    const result = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [tsc, "-p", join(snippets, "tsconfig.json")])
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => (stderr += chunk))
      child.on("close", (status) => resolve({ status, stdout, stderr }))
    })
    // name the page and line of each error, not the extracted file
    const report = (result.stdout + result.stderr).replace(
      /^(\S+?\.ts)\((\d+),(\d+)\)/gm,
      (all, file: string, line: string) => {
        const page = names.get(file.split("/").pop()!)
        return page === undefined ? all : `${page.file}:${page.lines[Number(line) - 1] ?? "?"}`
      }
    )
    // generated files: never left behind for the linter or git
    rmSync(snippets, { recursive: true, force: true })
    assert.strictEqual(result.status, 0, report)
  })
})
