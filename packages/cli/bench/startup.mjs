#!/usr/bin/env node
// Whole-process start-up of the built CLI (`dist/bin.js`, build first): for each area's cheap
// command, after one unmeasured run (which writes the verb's code cache, ADR 0010), the median wall time, median CPU time (user + system: steadier than wall time on a
// loaded machine) and peak RSS over N runs, beside `node -e 0`, checked against issue 17's targets
// (every command ≤ 0.5 s, `policy check` ≤ 0.6 s, peak ≤ 120 MiB). `pnpm bench` runs it last.
//
// Usage: node bench/startup.mjs [runs=7] [--against OTHER/dist/bin.js]
//
// `--against` compares with another build of the CLI (a worktree of an earlier commit, built):
// the two bundles run alternately, command by command and run by run, each on a state of its
// own, and every row gets the other bundle's CPU median and the ratio of the two. Interleaving
// is what makes the ratio fair on a shared machine: both bundles see the same load.
//
// Then "session run → first model call" (issue 38: ≤ 2× `node -e 0` in the same run): the time from
// spawning `steward session run --model openai:…` to the moment its first model request reaches
// the model. The probe is a real HTTP endpoint, not a hook inside the CLI: a local server on
// 127.0.0.1 that the CLI reaches through OPENAI_BASE_URL (the provider's own configuration), so
// the figure includes everything a real session pays before its first call — the command's
// modules, the state directory and its migrations, the provider's client and the HTTP stack. The
// server timestamps the request's arrival and the process is killed there (what follows is the
// model's time, not start-up). Runs alternate with `node -e 0` (spawn to exit), run by run.
//
// Never exits non-zero for a missed target or a failed command (benchmarks are not gates: the row
// says FAILED); exits 2 only when a bundle is missing.
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const pkg = path.resolve(here, "..")
const bin = path.join(pkg, "dist", "bin.js")
const argv = process.argv.slice(2)
const againstAt = argv.indexOf("--against")
const against = againstAt === -1 ? undefined : path.resolve(argv[againstAt + 1] ?? "")
const positional = argv.filter((_, i) => againstAt === -1 || (i !== againstAt && i !== againstAt + 1))
if (againstAt !== -1 && (argv[againstAt + 1] ?? "").trim() === "") {
  console.error("--against needs the other build's dist/bin.js")
  process.exit(2)
}
for (const file of [bin, against]) {
  if (file !== undefined && !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
    console.error(`${file} is not a built CLI: build first (pnpm --filter @steward/cli build)`)
    process.exit(2)
  }
}
const runs = Math.max(1, Number(positional[0] ?? 7))
const state = fs.mkdtempSync(path.join(os.tmpdir(), "steward-startup-"))
const probe = path.join(state, "probe.jsonl")
// The built CLI compiles its program through a V8 code cache in the user's cache directory, one per
// verb (ADR 0010): every process here uses a directory of its own, warmed by the set-up runs below
// (the first run of a verb after a build pays the compile once). The first-call section also runs
// this bundle with the cache off (its ES modules, as before ADR 0010), to show what it gives.
process.env.XDG_CACHE_HOME = path.join(state, "cache")
const LIMIT_S = 0.5
const LIMIT_MIB = 120

/** The measured commands of one bundle, over a state of its own (an audit project, a session). */
const commandsOf = (bundle, name) => {
  const dir = fs.mkdtempSync(path.join(state, `${name}-`))
  // audit next and audit status need an audit state to read
  spawnSync(process.execPath, [bundle, "audit", "init", "--project", dir, "--state-dir", dir], { stdio: "ignore" })
  // the fixtures of the package the bundle was built from
  const fixture = (file) => path.join(path.dirname(bundle), "..", "test", "fixtures", "algal", file)
  // session list and show read a stored session: one scripted run settles it
  const script = path.join(dir, "script.jsonl")
  fs.writeFileSync(script, JSON.stringify({ text: "Hello there." }) + "\n")
  const workspace = fs.mkdtempSync(path.join(dir, "ws-"))
  const sessionRun = spawnSync(
    process.execPath,
    [bundle, "session", "run", "--state-dir", dir, "--script", script, "--workspace", workspace, "--json", "Say hello"],
    { encoding: "utf8" }
  )
  let sessionId = "no-session"
  try {
    // `--json` is NDJSON (ADR 0014): every event line names its session
    sessionId = JSON.parse(sessionRun.stdout.split("\n")[0]).session
  } catch {
    // the show row then says FAILED, with the command's own error
  }
  return [
    ["node -e 0", ["-e", "0"], null],
    ["steward --help", [bundle, "--help"], LIMIT_S],
    ["steward doctor", [bundle, "doctor", "--state-dir", dir], LIMIT_S],
    ["steward config list", [bundle, "config", "list", "--state-dir", dir], LIMIT_S],
    ["steward policy check", [bundle, "policy", "check", "--state-dir", dir, "--", "git status && rm -rf build"], 0.6],
    ["steward policy explain", [bundle, "policy", "explain", "--state-dir", dir], LIMIT_S],
    ["steward algal check", [bundle, "algal", "check", fixture("counter.algal.json")], LIMIT_S],
    ["steward algal run", [bundle, "algal", "run", fixture("counter.algal.json"), "--state-dir", dir], LIMIT_S],
    ["steward reflex status", [bundle, "reflex", "status", "--state-dir", dir], LIMIT_S],
    ["steward audit next", [bundle, "audit", "next", "--dry-run", "--project", dir, "--state-dir", dir], LIMIT_S],
    ["steward audit status", [bundle, "audit", "status", "--project", dir, "--state-dir", dir], LIMIT_S],
    ["steward session list", [bundle, "session", "list", "--state-dir", dir], LIMIT_S],
    ["steward session show", [bundle, "session", "show", "--state-dir", dir, sessionId], LIMIT_S]
  ]
}

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

/** One process: its wall time, and the CPU time and peak RSS the preloaded probe reports. */
const measure = (args) => {
  fs.writeFileSync(probe, "")
  const start = process.hrtime.bigint()
  const result = spawnSync(process.execPath, ["-r", path.join(here, "rss-probe.cjs"), ...args], {
    env: { ...process.env, STEWARD_BENCH_PROBE: probe },
    stdio: ["ignore", "ignore", "pipe"]
  })
  const wall = Number(process.hrtime.bigint() - start) / 1e9
  const line = fs.readFileSync(probe, "utf8").trim().split("\n").filter(Boolean).at(-1)
  const sample = line === undefined ? undefined : JSON.parse(line)
  const failure = result.status === 0
    ? undefined
    : `FAILED (exit ${result.status ?? result.signal}): ${String(result.stderr).trim().slice(0, 200)}`
  return { wall, cpu: sample === undefined ? NaN : sample.cpuMs / 1000, rss: sample?.maxRssKiB ?? NaN, failure }
}

const bundles = against === undefined ? [commandsOf(bin, "this")] : [commandsOf(bin, "this"), commandsOf(against, "other")]

const load = os.loadavg()[0]
console.log(`\nstart-up over ${runs} runs (load average ${load.toFixed(1)} on ${os.cpus().length} cores)`)
if (against !== undefined) console.log(`against ${against}, interleaved run by run`)
console.log(
  "command".padEnd(24),
  "wall median".padStart(12),
  "cpu median".padStart(11),
  "peak RSS".padStart(10),
  "× node".padStart(7),
  ...(against === undefined ? [] : ["other cpu".padStart(10), "cpu ratio".padStart(10)]),
  " target"
)
let reference
for (let row = 0; row < bundles[0].length; row++) {
  const [name, , limit] = bundles[0][row]
  const samples = bundles.map(() => [])
  // one unmeasured run per bundle first: a verb's first run after a build writes its code cache
  for (const commands of bundles) measure(commands[row][1])
  for (let i = 0; i < runs; i++) {
    // alternate which bundle goes first, so neither always runs on a warmer machine
    const order = i % 2 === 0 ? bundles.map((_, b) => b) : bundles.map((_, b) => b).reverse()
    for (const b of order) samples[b].push(measure(bundles[b][row][1]))
  }
  const [wall, cpu, rss] = [
    median(samples[0].map((s) => s.wall)),
    median(samples[0].map((s) => s.cpu)),
    Math.max(...samples[0].map((s) => s.rss)) / 1024
  ]
  const failure = samples.flat().find((s) => s.failure !== undefined)?.failure
  const otherCpu = samples[1] === undefined ? undefined : median(samples[1].map((s) => s.cpu))
  reference ??= wall
  console.log(
    name.padEnd(24),
    `${wall.toFixed(3)} s`.padStart(12),
    `${cpu.toFixed(3)} s`.padStart(11),
    `${rss.toFixed(0)} MiB`.padStart(10),
    `${(wall / reference).toFixed(1)}×`.padStart(7),
    ...(otherCpu === undefined ? [] : [`${otherCpu.toFixed(3)} s`.padStart(10), `${(cpu / otherCpu).toFixed(2)}×`.padStart(10)]),
    ` ${failure ?? verdict(limit, wall, cpu, rss)}`
  )
}
await firstModelCall()
fs.rmSync(state, { recursive: true, force: true })

/** Spawn to exit of `node -e 0`, or spawn to the first request at the probe server (then killed). */
async function firstModelCall() {
  let arrived
  const server = http.createServer((request, response) => {
    arrived?.()
    request.resume()
    response.writeHead(503, { "content-type": "application/json" })
    response.end("{}")
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const env = {
    ...process.env,
    OPENAI_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
    OPENAI_API_KEY: "startup-bench"
  }
  const timed = (args, untilRequest, extraEnv = {}) =>
    new Promise((resolve) => {
      const start = process.hrtime.bigint()
      const elapsed = () => Number(process.hrtime.bigint() - start) / 1e9
      const child = spawn(process.execPath, args, { env: { ...env, ...extraEnv }, stdio: ["ignore", "ignore", "pipe"] })
      let stderr = ""
      child.stderr.on("data", (chunk) => void (stderr += chunk))
      let settled = false
      const settle = (value) => {
        if (settled) return
        settled = true
        arrived = undefined
        resolve(value)
      }
      if (untilRequest) {
        arrived = () => {
          settle({ seconds: elapsed() })
          child.kill("SIGKILL")
        }
      }
      child.on("exit", (code) =>
        settle(
          untilRequest
            ? { seconds: NaN, failure: `FAILED (exit ${code}, no model call): ${stderr.trim().slice(0, 200)}` }
            : { seconds: elapsed() }
        ))
    })
  const sessionRun = (bundle, name) => {
    const dir = fs.mkdtempSync(path.join(state, `first-call-${name}-`))
    return () => [
      bundle,
      "session",
      "run",
      "--state-dir",
      dir,
      "--model",
      "openai:gpt-4o-mini",
      "--workspace",
      fs.mkdtempSync(path.join(dir, "ws-")),
      "--json",
      "Say hello"
    ]
  }
  const runners = [
    { name: "session run → 1st call", args: sessionRun(bin, "this"), env: {} },
    { name: "  cache off (ES modules)", args: sessionRun(bin, "cold"), env: { NODE_DISABLE_COMPILE_CACHE: "1" } },
    ...(against === undefined ? [] : [{ name: "other bundle → 1st call", args: sessionRun(against, "other"), env: {} }])
  ]
  const node = []
  const calls = runners.map(() => [])
  for (let i = 0; i < runs; i++) {
    node.push(await timed(["-e", "0"], false))
    const order = i % 2 === 0 ? runners.map((_, b) => b) : runners.map((_, b) => b).reverse()
    for (const b of order) calls[b].push(await timed(runners[b].args(), true, runners[b].env))
  }
  server.close()
  const floor = median(node.map((s) => s.seconds))
  console.log(
    `\nsession run → first model call (probe: local OpenAI-compatible server), ${runs} runs interleaved, load average ${
      os.loadavg()[0].toFixed(1)
    }`
  )
  console.log("node -e 0".padEnd(24), `${floor.toFixed(3)} s`.padStart(12), "   reference")
  calls.forEach((samples, b) => {
    const failure = samples.find((s) => s.failure !== undefined)?.failure
    const seconds = median(samples.map((s) => s.seconds))
    const ratio = seconds / floor
    const name = runners[b].name
    const verdict = failure ?? (ratio <= 2 ? "ok (≤ 2× node -e 0)" : "MISS (target ≤ 2× node -e 0)")
    console.log(name.padEnd(24), `${seconds.toFixed(3)} s`.padStart(12), `${ratio.toFixed(1)}×`.padStart(7), ` ${verdict}`)
  })
}
