#!/usr/bin/env node
// A PreToolUse hook decision as an agent CLI makes it: the wall time of the whole process the
// client starts — the exact PreToolUse command `steward hooks install claude-code` wrote into
// the workspace's `.claude/settings.json` (today `node dist/hook.cjs claude-code PreToolUse …`),
// the event on stdin, the answer on stdout — answered by a warm decision server, beside `node -e 0` (the floor: Node's own start-up) and
// the old one-shot path (`policy check --json`, the whole CLI deciding in its own process). Runs
// interleave — floor, hook, one-shot, again — so all three see the same load; medians, p90 and
// the ratios to the floor. Issue 33's target: hook median ≤ 1.2 × `node -e 0` (ADR 0006).
//
// Usage: node bench/hook.mjs [runs=40]   (build first: pnpm --filter @steward/cli build)
//
// Never exits non-zero for a missed target (benchmarks are not gates); exits 2 when the bundle
// is missing.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const bin = path.join(here, "..", "dist", "bin.js")
if (!fs.existsSync(bin)) {
  console.error(`${bin} is not built: build first (pnpm --filter @steward/cli build)`)
  process.exit(2)
}
const runs = Math.max(3, Number(process.argv[2] ?? 40))
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-hook-bench-")))
const ws = path.join(root, "ws")
const state = path.join(ws, ".steward")
fs.mkdirSync(state, { recursive: true })
const sockets = path.join(root, "sock")
const env = { ...process.env, STEWARD_HOOK_SOCKET_DIR: sockets }
delete env.STEWARD_HOOK_SERVER
const event = JSON.stringify({
  session_id: "bench",
  transcript_path: path.join(root, "t.jsonl"),
  cwd: ws,
  permission_mode: "default",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "git status && npm test", description: "check" },
  tool_use_id: "toolu_bench"
})

// The command the client would run, from the settings `hooks install` wrote. Its words are
// POSIX single-quoted (`SandboxRewrite.quote`); they are split here and spawned directly, as
// `node -e 0` is (the client's own `sh -c` costs the same beside either).
const installed = spawnSync(process.execPath, [bin, "hooks", "install", "claude-code", "--workspace", ws, "--state-dir", state], {
  env,
  encoding: "utf8"
})
if (installed.status !== 0) throw new Error(`hooks install: ${installed.stderr}`)
const settings = JSON.parse(fs.readFileSync(path.join(ws, ".claude", "settings.json"), "utf8"))
const command = settings.hooks.PreToolUse[0].hooks[0].command
const words = [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => m[1] === undefined ? m[2] : m[1].replaceAll("'\\''", "'"))
if (words[0] !== process.execPath) throw new Error(`unexpected hook command ${command}`)
const hookArgs = words.slice(1)
console.log(`hook command: ${command}`)

const wall = (args, input) => {
  const start = process.hrtime.bigint()
  const r = spawnSync(process.execPath, args, { input, env, encoding: "utf8" })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== 0) throw new Error(`${args.join(" ")}: exit ${r.status}: ${r.stderr}`)
  return { ms, stdout: r.stdout }
}

// Warm-up: the first call starts the server (and decides in its own process meanwhile).
wall(hookArgs, event)
for (let i = 0; i < 100 && !(fs.existsSync(sockets) && fs.readdirSync(path.join(sockets, fs.readdirSync(sockets)[0] ?? "")).some((f) => f.endsWith(".pid"))); i++) {
  spawnSync("sleep", ["0.1"])
}
const answer = JSON.parse(wall(hookArgs, event).stdout)
if (answer.hookSpecificOutput?.permissionDecision !== "allow") throw new Error(`unexpected answer ${JSON.stringify(answer)}`)

const samples = { floor: [], hook: [], oneShot: [] }
for (let i = 0; i < runs; i++) {
  samples.floor.push(wall(["-e", "0"]).ms)
  samples.hook.push(wall(hookArgs, event).ms)
  if (i % 4 === 0) {
    samples.oneShot.push(
      wall([bin, "policy", "check", "--json", "--workspace", ws, "--state-dir", state, "--", "git status && npm test"]).ms
    )
  }
}

const stop = () => {
  const dir = path.join(sockets, fs.readdirSync(sockets)[0] ?? "")
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".pid"))) {
    try {
      process.kill(Number(fs.readFileSync(path.join(dir, f), "utf8")), "SIGTERM")
    } catch {
      // gone already
    }
  }
}
stop()

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))]
}
const floor = quantile(samples.floor, 0.5)
const rows = [
  ["node -e 0", samples.floor],
  ["hook PreToolUse (server)", samples.hook],
  ["policy check (one-shot)", samples.oneShot]
].map(([name, xs]) => ({
  name,
  runs: xs.length,
  median: quantile(xs, 0.5),
  p90: quantile(xs, 0.9),
  ratio: quantile(xs, 0.5) / floor
}))
console.log(`hook decision wall time, ${runs} interleaved runs; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
for (const r of rows) {
  console.log(
    `${r.name.padEnd(26)} median ${r.median.toFixed(1).padStart(7)} ms  p90 ${r.p90.toFixed(1).padStart(7)} ms  ×${
      r.ratio.toFixed(2)
    } of node -e 0  (${r.runs} runs)`
  )
}
const hook = rows[1]
console.log(`target: hook median ≤ 1.2 × node -e 0 — ${hook.ratio <= 1.2 ? "met" : "MISSED"} (×${hook.ratio.toFixed(2)})`)
fs.rmSync(root, { recursive: true, force: true })
