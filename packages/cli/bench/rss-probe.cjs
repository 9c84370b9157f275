// Preloaded into each measured process (`node -r bench/rss-probe.cjs …`): at exit, appends the
// process's own peak RSS and CPU time as one JSON line to $STEWARD_BENCH_PROBE.
const fs = require("node:fs")
process.on("exit", () => {
  const usage = process.resourceUsage()
  fs.appendFileSync(
    process.env.STEWARD_BENCH_PROBE,
    JSON.stringify({ maxRssKiB: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }) + "\n"
  )
})
