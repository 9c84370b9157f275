/**
 * A tool call's cost against the SDKs a user would pick instead (issue 38): Steward (memory store
 * and SQLite store), the Vercel AI SDK (`ai` 6.0), the OpenAI Agents SDK (`@openai/agents-core`
 * 0.20) and LangChain (`langchain` 1.5), each with a scripted model and a no-op tool, on the
 * issue's three shapes (`peers/shapes.ts`). Figures are µs per tool call: a whole run divided by
 * its calls. Before the rows, the file runs every SDK and shape interleaved in one loop (a load
 * spike hits all alike; each round keeps the best of three runs in a row) and prints the medians
 * with each one's ratio to openai-agents, then the
 * acceptance: Steward on the memory store at most 1.0× openai-agents on the eight-tool shape,
 * and SQLite at most 1.5× the memory store. `STEWARD_BENCH_PEER_ROUNDS` sets the loop's rounds.
 */
import { afterAll, bench, describe } from "vitest"
import * as AiSdk from "./peers/aiSdk.js"
import * as LangChain from "./peers/langchain.js"
import * as OpenAiAgents from "./peers/openaiAgents.js"
import { callsOf, type Shape, shapes } from "./peers/shapes.js"
import * as Steward from "./peers/steward.js"

interface Contender {
  readonly name: string
  readonly run: (shape: Shape) => () => Promise<void>
}

const stewards = shapes.flatMap((shape) =>
  (["memory", "sqlite"] as const).map((store) => ({ shape, store, runner: Steward.runner(shape, store) }))
)
afterAll(() => Promise.all(stewards.map((s) => s.runner.dispose())))
const stewardOn = (store: Steward.Store) => (shape: Shape) =>
  stewards.find((s) => s.shape === shape && s.store === store)!.runner.run

const contenders: ReadonlyArray<Contender> = [
  { name: "Steward, memory store", run: stewardOn("memory") },
  { name: "Steward, SQLite store", run: stewardOn("sqlite") },
  { name: "Vercel AI SDK", run: AiSdk.runner },
  { name: "openai-agents", run: OpenAiAgents.runner },
  { name: "LangChain", run: LangChain.runner }
]
const runs = contenders.map((c) => shapes.map((shape) => c.run(shape)))

const median = (xs: Array<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

// Interleaved: every round runs each contender on each shape `REPEAT` times in a row (the last
// runs warm for that contender, as a user's process is) and keeps the fastest of them; a load
// spike then hits every contender's round alike.
const REPEAT = 3
{
  const rounds = Number(process.env.STEWARD_BENCH_PEER_ROUNDS ?? 15)
  const perCall = runs.map((row) => row.map((): Array<number> => []))
  for (let round = -5; round < rounds; round++) {
    for (let s = 0; s < shapes.length; s++) {
      for (let c = 0; c < contenders.length; c++) {
        let best = Infinity
        for (let r = 0; r < REPEAT; r++) {
          const start = performance.now()
          await runs[c]![s]!()
          best = Math.min(best, (performance.now() - start) * 1_000 / callsOf(shapes[s]!))
        }
        if (round >= 0) perCall[c]![s]!.push(best)
      }
    }
  }
  const figures = perCall.map((row) => row.map(median))
  const agents = figures[contenders.findIndex((c) => c.name === "openai-agents")]!
  const cell = (us: number, s: number) => `${us.toFixed(0)} µs (${(us / agents[s]!).toFixed(2)}×)`
  const width = Math.max(...contenders.map((c) => c.name.length))
  const lines = [
    `[peers] µs per tool call, median over ${rounds} interleaved rounds of the best of ${REPEAT} runs (ratio to openai-agents)`,
    `${"".padEnd(width)}  ${shapes.map((s) => s.label.padEnd(26)).join("  ")}`,
    ...contenders.map((c, i) =>
      `${c.name.padEnd(width)}  ${figures[i]!.map((us, s) => cell(us, s).padEnd(26)).join("  ")}`
    )
  ]
  const eight = shapes.findIndex((s) => s.eightTools)
  const memory = figures[0]![eight]!, sqlite = figures[1]![eight]!
  lines.push(
    `acceptance (${shapes[eight]!.label}): memory ${(memory / agents[eight]!).toFixed(2)}× openai-agents (≤ 1.0×: ${
      memory <= agents[eight]! ? "met" : "NOT MET"
    }); SQLite ${(sqlite / memory).toFixed(2)}× memory (≤ 1.5×: ${sqlite <= 1.5 * memory ? "met" : "NOT MET"})`
  )
  console.log(lines.join("\n"))
}

for (const [s, shape] of shapes.entries()) {
  describe(`peers: ${shape.label}, µs per tool call`, () => {
    for (const [c, contender] of contenders.entries()) {
      bench(`${contender.name} ×${callsOf(shape)}`, runs[c]![s]!, { warmupIterations: 3, iterations: 10, time: 0 })
    }
  })
}
