import { Effect, ManagedRuntime } from "effect"
import { afterAll, bench, describe } from "vitest"
import { Policy, ShellParser } from "../src/index.js"

// Issue 17 item 5: a full decision (parse, analysis, matching; every command unique, so the parse
// cache misses) as one command grows in length and in segments, each over 100× of its size. The
// work is linear in both: `scripts/bench-report.mjs` prints the exponents and calls out one above
// 1.2 (row names end in `— n=N`, docs/performance/README.md).
const runtime = ManagedRuntime.make(ShellParser.layer)
const parser = await runtime.runPromise(ShellParser.ShellParser.pipe(Effect.tap((p) => p.ready)))
afterAll(() => runtime.dispose())

const compiled = Effect.runSync(Policy.compile({ level: "execute", workspace: "/srv/app" }))

// One segment of about `length` characters: `git log -n K --author=a0 --author=a1 …` (a known
// program, so the whole argv is analyzed); up to the engine's parse limit.
const LENGTHS = [100, 300, 1_000, 3_000, 10_000]
const longCommand = (k: number, length: number): string => {
  let command = `git log -n ${k}`
  for (let i = 0; command.length < length - 14; i++) command += ` --author=a${i}`
  return command
}

// `count` segments joined by `&&`, `|` and `;`, each a small known command on a path.
const SEGMENTS = [3, 10, 30, 100, 300]
const SHAPES = ["cat src/a.ts", "grep -n TODO src/b.ts", "ls dist", "git status", "wc -l README.md"]
const manySegments = (k: number, count: number): string => {
  const parts = [`echo ${k}`]
  for (let i = 1; i < count; i++) parts.push(SHAPES[i % SHAPES.length]!)
  return parts.map((part, i) => i === 0 ? part : `${["&&", "|", ";"][i % 3]} ${part}`).join(" ")
}

describe("full decision by command length (one segment, parse cache miss)", () => {
  for (const length of LENGTHS) {
    let k = 0
    bench(`decideSync, git log with many options — n=${length} characters`, () => {
      Policy.decideSync(compiled, parser, { tool: "shell", command: longCommand(k++, length) })
    })
  }
})

describe("full decision by segments (parse cache miss)", () => {
  for (const count of SEGMENTS) {
    let k = 0
    bench(`decideSync, segments joined by && | ; — n=${count} segments`, () => {
      Policy.decideSync(compiled, parser, { tool: "shell", command: manySegments(k++, count) })
    })
  }
})
