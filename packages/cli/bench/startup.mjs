#!/usr/bin/env node
// Whole-process start-up of the built CLI (`dist/bin.js`, build first): for each area's cheap
// command, the median wall time, median CPU time (user + system: steadier than wall time on a
// loaded machine) and peak RSS over N runs, beside `node -e 0`, checked against issue 17's targets
// (every command ≤ 0.5 s, `policy check` ≤ 0.6 s, peak ≤ 120 MiB). `pnpm bench` runs it last.
// Usage: node bench/startup.mjs [runs=7]. Never exits non-zero for a missed target or a failed
// command (benchmarks are not gates: the row says FAILED); exits 2 only when the bundle is missing.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const pkg = path.resolve(here, "..")
const bin = path.join(pkg, "dist", "bin.js")
if (!fs.existsSync(bin)) {
  console.error("dist/bin.js is missing: build first (pnpm --filter @steward/cli build)")
  process.exit(2)
}
const runs = Math.max(1, Number(process.argv[2] ?? 7))
const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-startup-"))
const probe = path.join(state, "probe.jsonl")
// audit next and audit status need an audit state to read
spawnSync(process.execPath, [bin, "audit", "init", "--project", state, "--state-dir", state], { stdio: "ignore" })
const fixture = (name) => path.join(pkg, "test", "fixtures", "algal", name)
// session list and show read a stored session: one scripted run settles it
const script = path.join(state, "script.jsonl")
fs.writeFileSync(script, JSON.stringify({ text: "Hello there." }) + "\n")
const workspace = fs.mkdtempSync(path.join(state, "ws-"))
const sessionRun = spawnSync(
  process.execPath,
  [bin, "session", "run", "--state-dir", state, "--script", script, "--workspace", workspace, "--json", "Say hello"],
  { encoding: "utf8" }
)
let sessionId = "no-session"
try {
  sessionId = JSON.parse(sessionRun.stdout).session
} catch {
  // the show row then says FAILED, with the command's own error
}

const LIMIT_S = 0.5
const LIMIT_MIB = 120
const commands = [
  ["node -e 0", ["-e", "0"], null],
  ["steward --help", [bin, "--help"], LIMIT_S],
  ["steward doctor", [bin, "doctor", "--state-dir", state], LIMIT_S],
  ["steward config list", [bin, "config", "list", "--state-dir", state], LIMIT_S],
  ["steward policy check", [bin, "policy", "check", "--state-dir", state, "--", "git status && rm -rf build"], 0.6],
  ["steward policy explain", [bin, "policy", "explain", "--state-dir", state], LIMIT_S],
  ["steward algal check", [bin, "algal", "check", fixture("counter.algal.json")], LIMIT_S],
  ["steward algal run", [bin, "algal", "run", fixture("counter.algal.json"), "--state-dir", state], LIMIT_S],
  ["steward reflex status", [bin, "reflex", "status", "--state-dir", state], LIMIT_S],
  ["steward audit next", [bin, "audit", "next", "--dry-run", "--project", state, "--state-dir", state], LIMIT_S],
  ["steward audit status", [bin, "audit", "status", "--project", state, "--state-dir", state], LIMIT_S],
  ["steward session list", [bin, "session", "list", "--state-dir", state], LIMIT_S],
  ["steward session show", [bin, "session", "show", "--state-dir", state, sessionId], LIMIT_S]
]

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const verdict = (limit, wall, cpu, rss) => {
  if (limit === null) return "reference"
  const memory = rss <= LIMIT_MIB ? "" : `; MISS peak > ${LIMIT_MIB} MiB`
  if (wall <= limit) return `ok (≤ ${limit} s)${memory}`
  if (cpu <= limit) return `wall > ${limit} s under load, cpu ok${memory}`
  return `MISS (> ${limit} s)${memory}`
}

const load = os.loadavg()[0]
console.log(`\nstart-up over ${runs} runs (load average ${load.toFixed(1)} on ${os.cpus().length} cores)`)
console.log(
  "command".padEnd(24),
  "wall median".padStart(12),
  "cpu median".padStart(11),
  "peak RSS".padStart(10),
  "× node".padStart(7),
  " target"
)
let reference
for (const [name, args, limit] of commands) {
  const walls = []
  let failure
  fs.writeFileSync(probe, "")
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint()
    const result = spawnSync(process.execPath, ["-r", path.join(here, "rss-probe.cjs"), ...args], {
      env: { ...process.env, STEWARD_BENCH_PROBE: probe },
      stdio: ["ignore", "ignore", "pipe"]
    })
    walls.push(Number(process.hrtime.bigint() - start) / 1e9)
    if (result.status !== 0 && failure === undefined) {
      failure = `FAILED (exit ${result.status ?? result.signal}): ${String(result.stderr).trim().slice(0, 200)}`
    }
  }
  const samples = fs.readFileSync(probe, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l))
  const rss = samples.length === 0 ? NaN : Math.max(...samples.map((s) => s.maxRssKiB)) / 1024
  const wall = median(walls)
  const cpu = samples.length === 0 ? NaN : median(samples.map((s) => s.cpuMs)) / 1000
  reference ??= wall
  console.log(
    name.padEnd(24),
    `${wall.toFixed(3)} s`.padStart(12),
    `${cpu.toFixed(3)} s`.padStart(11),
    `${rss.toFixed(0)} MiB`.padStart(10),
    `${(wall / reference).toFixed(1)}×`.padStart(7),
    ` ${failure ?? verdict(limit, wall, cpu, rss)}`
  )
}
fs.rmSync(state, { recursive: true, force: true })
