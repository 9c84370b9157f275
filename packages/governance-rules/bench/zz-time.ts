import { Effect } from "effect"
import * as cp from "node:child_process"
import * as fs from "node:fs"
import { Sandbox, SandboxProfile } from "../src/index.js"
const ws = "/work/wt-sandbox/packages/governance-rules/node_modules/.cache/tws"
fs.mkdirSync(ws, { recursive: true })
const program = Effect.gen(function*() {
  const sandbox = yield* Sandbox.Sandbox
  for (const policy of [{}, { limits: { processes: null } }]) {
    const profile = yield* SandboxProfile.make({ workspace: ws, home: "/root", policy })
    for (let i = 0; i < 4; i++) {
      const t = performance.now()
      const r = yield* sandbox.run(profile, { argv: ["/bin/true"] })
      console.log(JSON.stringify(policy), i, (performance.now() - t).toFixed(1), "ms", r.exitCode)
    }
  }
  for (let i = 0; i < 3; i++) {
    let t = performance.now()
    cp.spawnSync("/bin/true")
    console.log("bare", (performance.now() - t).toFixed(1), "ms")
    t = performance.now()
    cp.spawnSync("bwrap", [
      "--ro-bind",
      "/",
      "/",
      "--unshare-pid",
      "--unshare-net",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      "/bin/true"
    ])
    console.log("bwrap", (performance.now() - t).toFixed(1), "ms")
  }
})
Effect.runPromise(program.pipe(Effect.provide(Sandbox.layerLinux()))).catch(console.error)
