/**
 * One contender on one shape in a loop, for a CPU profile of just that path:
 * `node --cpu-prof --import tsx bench/peers/profile.ts <contender> [shape] [runs]`, where the
 * contender is `steward-memory`, `steward-sqlite`, `ai`, `openai-agents` or `langchain` and the
 * shape is a key of `shapes.ts` (default `default-tools`). Prints the median µs per tool call.
 * With `STEWARD_BENCH_PROFILE=<file>` it instead profiles only the measured runs (not start-up
 * or warm-up) through `node:inspector` and writes the `.cpuprofile` there.
 */
import * as fs from "node:fs"
import * as inspector from "node:inspector/promises"
import * as AiSdk from "./aiSdk.js"
import * as LangChain from "./langchain.js"
import * as OpenAiAgents from "./openaiAgents.js"
import { callsOf, shapes } from "./shapes.js"
import * as Steward from "./steward.js"

const [contender = "steward-memory", key = "default-tools", count = "200"] = process.argv.slice(2)
const shape = shapes.find((s) => s.key === key)
if (shape === undefined) throw new Error(`no shape ${key}; one of ${shapes.map((s) => s.key).join(", ")}`)

const steward = contender.startsWith("steward-")
  ? Steward.runner(shape, contender === "steward-sqlite" ? "sqlite" : "memory")
  : undefined
const peers: Record<string, typeof AiSdk.runner> = {
  "ai": AiSdk.runner,
  "openai-agents": OpenAiAgents.runner,
  "langchain": LangChain.runner
}
const run = steward?.run ?? peers[contender]?.(shape)
if (run === undefined) throw new Error(`no contender ${contender}`)

for (let i = 0; i < 20; i++) await run()
const out = process.env.STEWARD_BENCH_PROFILE
const session = out === undefined ? undefined : new inspector.Session()
if (session !== undefined) {
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.start")
}
const perCall: Array<number> = []
for (let i = 0; i < Number(count); i++) {
  const start = performance.now()
  await run()
  perCall.push((performance.now() - start) * 1_000 / callsOf(shape))
}
if (session !== undefined) {
  const { profile } = await session.post("Profiler.stop")
  fs.writeFileSync(out!, JSON.stringify(profile))
  session.disconnect()
}
perCall.sort((a, b) => a - b)
console.log(`${contender} ${shape.key}: ${perCall[perCall.length >> 1]!.toFixed(0)} µs per tool call (median)`)
await steward?.dispose()
