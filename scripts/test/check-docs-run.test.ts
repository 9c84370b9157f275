import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { runnableBlocks } from "../check-docs-run.mjs"

const script = resolve(import.meta.dirname, "..", "check-docs-run.mjs")
const fence = "```"

/** Runs the checker on one Markdown text; returns its exit status and output. */
const check = (markdown: string) => {
  const folder = mkdtempSync(join(tmpdir(), "docs-run-"))
  try {
    const file = join(folder, "doc.md")
    writeFileSync(file, markdown)
    const result = spawnSync(process.execPath, [script, file], { encoding: "utf8" })
    return { status: result.status, output: `${result.stdout}${result.stderr}` }
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

describe("check-docs-run", () => {
  it("finds only the blocks marked runnable, with the line each starts on", () => {
    const blocks = runnableBlocks(
      [
        "# t",
        `${fence}sh`,
        "not run",
        fence,
        `${fence}sh runnable`,
        "echo a",
        "echo b",
        fence,
        `${fence}bash runnable`,
        "true",
        fence
      ]
        .join("\n")
    )
    assert.deepStrictEqual(blocks, [{ line: 5, script: "echo a\necho b" }, { line: 9, script: "true" }])
  })

  it("an unclosed runnable block is an error naming its line", () => {
    assert.throws(() => runnableBlocks(`text\n${fence}sh runnable\necho never closed\n`), /line 2/)
  })

  it("passes when every runnable block exits 0, in a scratch folder where the checkout's folders resolve", () => {
    const result = check(`${fence}sh runnable\ntest -d packages && test -d examples\necho made > out.txt\n${fence}\n`)
    assert.strictEqual(result.status, 0, result.output)
    assert.match(result.output, /1 runnable blocks in 1 files ran and exited 0/)
  })

  it("fails naming the block when one documented command breaks, even mid-block", () => {
    const result = check(
      `${fence}sh runnable\ntrue\n${fence}\n\nprose\n\n${fence}sh runnable\necho before\nfalse\necho after\n${fence}\n`
    )
    assert.strictEqual(result.status, 1, result.output)
    assert.match(result.output, /FAIL .*doc\.md:7/)
    assert.notMatch(result.output, /after/)
  })

  it("a pipeline that fails anywhere fails the block", () => {
    const result = check(`${fence}sh runnable\nfalse | cat\n${fence}\n`)
    assert.strictEqual(result.status, 1, result.output)
  })
})
