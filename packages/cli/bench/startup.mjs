#!/usr/bin/env node
// Whole-process start-up of the built CLI (`dist/bin.js`, build first): for each command, the
// median wall time, median CPU time (user + system: steadier than wall time on a loaded machine)
// and peak RSS over N runs, beside `node -e 0`. Usage: node bench/startup.mjs [runs=7]
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
const runs = Number(process.argv[2] ?? 7)
const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-startup-"))
const probe = path.join(state, "probe.jsonl")
// audit status needs a state to read
spawnSync(process.execPath, [bin, "audit", "init", "--project", state, "--state-dir", state], { stdio: "ignore" })
const fixture = (name) => path.join(pkg, "test", "fixtures", "algal", name)

const commands = [
  ["node -e 0", ["-e", "0"]],
  ["steward --help", [bin, "--help"]],
  ["steward doctor", [bin, "doctor", "--state-dir", state]],
  ["steward config list", [bin, "config", "list", "--state-dir", state]],
  ["steward policy check", [bin, "policy", "check", "--state-dir", state, "--", "git status && rm -rf build"]],
  ["steward policy explain", [bin, "policy", "explain", "--state-dir", state]],
  ["steward algal check", [bin, "algal", "check", fixture("counter.algal.json")]],
  ["steward algal run", [bin, "algal", "run", fixture("counter.algal.json"), "--state-dir", state]],
  ["steward reflex status", [bin, "reflex", "status", "--state-dir", state]],
  ["steward audit status", [bin, "audit", "status", "--project", state, "--state-dir", state]]
]

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

console.log(`start-up over ${runs} runs (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`)
console.log("command".padEnd(26), "wall median".padStart(12), "cpu median".padStart(11), "peak RSS".padStart(10))
for (const [name, args] of commands) {
  const walls = []
  fs.writeFileSync(probe, "")
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint()
    const result = spawnSync(process.execPath, ["-r", path.join(here, "rss-probe.cjs"), ...args], {
      env: { ...process.env, STEWARD_BENCH_PROBE: probe },
      stdio: ["ignore", "ignore", "pipe"]
    })
    walls.push(Number(process.hrtime.bigint() - start) / 1e6)
    if (result.status !== 0 && result.status !== 1) console.error(`${name}: exit ${result.status}: ${result.stderr}`)
  }
  const samples = fs.readFileSync(probe, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l))
  const rss = Math.max(...samples.map((s) => s.maxRssKiB)) / 1024
  console.log(
    name.padEnd(26),
    `${(median(walls) / 1000).toFixed(3)} s`.padStart(12),
    `${(median(samples.map((s) => s.cpuMs)) / 1000).toFixed(3)} s`.padStart(11),
    `${rss.toFixed(0)} MiB`.padStart(10)
  )
}
