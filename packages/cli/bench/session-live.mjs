#!/usr/bin/env node
// Issue 35 item 1: the time from a committed event to its printed line. `steward session run --json`
// (NDJSON, printed as each event is committed) runs a scripted session of N quick shell calls; this
// process timestamps each stdout line as it arrives and subtracts the event's `at` (the commit's
// clock reading, stamped by the store inside the commit). Side by side, in the same run: a second
// process following the same session (`events --follow --json`), which sees commits by another
// process by polling the store (200 ms) — the floor a host gets without the live stream. Both
// clocks are this machine's wall clock in whole milliseconds (`at` is floored: up to +1 ms).
//
// Usage: node bench/session-live.mjs [calls=40]   (runs the sources through tsx; no build needed)
// Prints medians and p90 in ms and the load (`uptime`). Not a gate: it never fails for a figure.
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const pkg = path.resolve(here, "..")
const bin = path.join(pkg, "src", "bin.ts")
const loader = pathToFileURL(createRequire(path.join(pkg, "package.json")).resolve("tsx")).href
const calls = Number(process.argv[2] ?? 40)

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-live-bench-")))
const ws = path.join(dir, "ws")
const state = path.join(dir, "state")
fs.mkdirSync(ws)
fs.mkdirSync(state)
const write = (name, turns) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, turns.map((t) => JSON.stringify(t)).join("\n"))
  return file
}
const warm = write("warm.jsonl", [{ text: "Ready." }])
const turns = [
  { text: "Ready." },
  ...Array.from({ length: calls }, (_, i) => ({ toolCalls: [{ name: "shell", input: { command: `echo ${i}` } }] })),
  { text: "Done." }
]
const script = write("script.jsonl", turns)

const start = (args) =>
  spawn(process.execPath, ["--import", loader, bin, ...args, "--state-dir", state], {
    cwd: ws,
    stdio: ["ignore", "pipe", "pipe"]
  })

/** Each NDJSON line's delay: arrival (this clock) minus the event's `at`; `from` skips a catch-up. */
const delays = (child, onFirst) =>
  new Promise((resolve) => {
    const out = []
    let buffer = ""
    let first = true
    child.stdout.on("data", (chunk) => {
      const now = Date.now()
      buffer += String(chunk)
      const lines = buffer.split("\n")
      buffer = lines.pop()
      for (const line of lines) {
        if (line === "") continue
        const e = JSON.parse(line)
        out.push({ seq: e.seq, type: e.type, delay: now - e.at, now })
        if (first) {
          first = false
          onFirst?.(now)
        }
      }
    })
    child.on("close", (code) => resolve({ code, out }))
  })

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]
}

const created = await delays(
  start(["session", "run", "--script", warm, "--workspace", ws, "--sandbox", "off", "--json", "Warm up"])
)
const id = JSON.parse(execFileSync(process.execPath, ["--import", loader, bin, "session", "list", "--json", "--state-dir", state]))
  .at(-1).id
if (created.code !== 0) throw new Error("the warm-up run failed")

let follower
let followerReady = Infinity
const live = delays(
  start(["session", "continue", "--script", script, "--json", id, "Run them"]),
  () => {
    follower = delays(start(["session", "events", id, "--follow", "--json"]), (now) => (followerReady = now))
  }
)
const ran = await live
const followed = await follower
const liveDelays = ran.out.map((e) => e.delay)
// the follower's first page is stored history: count only events committed after it was reading
const followDelays = followed.out.filter((e) => e.now - e.delay > followerReady).map((e) => e.delay)
const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")
console.log(`session events: committed → printed (${calls} shell calls, load ${load})`)
console.log(`  live (session continue --json, same process): ${liveDelays.length} events, median ${quantile(liveDelays, 0.5)} ms, p90 ${quantile(liveDelays, 0.9)} ms`)
console.log(`  follower (events --follow --json, other process): ${followDelays.length} events, median ${quantile(followDelays, 0.5)} ms, p90 ${quantile(followDelays, 0.9)} ms`)
console.log(`  exit codes: live ${ran.code}, follower ${followed.code}`)
fs.rmSync(dir, { recursive: true, force: true })
