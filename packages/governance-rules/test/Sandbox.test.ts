import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Sandbox, SandboxProfile } from "../src/index.js"
import {
  makeScene,
  OneShotLive,
  removeScene,
  runIn,
  SandboxLive,
  type Scene,
  skipReason,
  snapshot
} from "./sandboxHelpers.js"

// Issue 31 Acceptance: each class run with nothing but the boundary in the way (no gate here).
const suite = skipReason === null ? describe : describe.skip

const withScene = <A, E, R>(body: (scene: Scene) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.sync(makeScene), body, (scene) => Effect.sync(() => removeScene(scene)))

// Suites run in parallel and other tests sleep too (`sleep 30` in harness-sessions' Tools test):
// a duration unique to this process and moment names only the sleeps a test started itself.
const uniqueNap = (seconds: number) => `${seconds}.${process.pid}${Date.now() % 100000}`
const runningSleeps = (nap: string) =>
  childProcess.spawnSync("pgrep", ["-f", `sleep ${nap.replace(".", "\\.")}`]).stdout.toString().trim()

const PROTECTED_MISSING = [".claude", ".codex", ".gemini", ".mcp.json", ".vscode", ".husky", ".steward", ".npmrc"]

suite("Sandbox (bubblewrap): containment", () => {
  it.effect("writes outside the workspace, into .git/hooks and into .steward fail; the workspace is writable", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        fs.mkdirSync(path.join(scene.workspace, ".steward"))
        fs.writeFileSync(path.join(scene.workspace, ".steward", "policy.json"), "{}")
        const before = snapshot(scene.outside)
        const done = yield* runIn(
          scene,
          "echo x > \"$OUTSIDE/new.txt\"; echo x >> \"$OUTSIDE/victim.txt\"; rm -f \"$OUTSIDE/victim.txt\";" +
            "echo hook > .git/hooks/pre-commit; echo '{\"rules\":[]}' > .steward/policy.json; touch .steward/new;" +
            "echo y > made-inside.txt; echo done"
        )
        assert.strictEqual(done.exitCode, 0)
        assert.deepStrictEqual(snapshot(scene.outside), before)
        assert.isFalse(fs.existsSync(path.join(scene.workspace, ".git/hooks/pre-commit")))
        assert.strictEqual(fs.readFileSync(path.join(scene.workspace, ".steward/policy.json"), "utf8"), "{}")
        assert.isFalse(fs.existsSync(path.join(scene.workspace, ".steward/new")))
        assert.strictEqual(fs.readFileSync(path.join(scene.workspace, "made-inside.txt"), "utf8"), "y\n")
        assert.match(done.err, /Read-only file system/)
      })
    ).pipe(Effect.provide(SandboxLive)))

  // Per command the placeholders go when the run returns; in a session when the session sandbox
  // closes (its mounts sit on them until then: ADR 0217). Either way none outlives its user.
  it.effect("protected paths that do not exist cannot be created, and no placeholder outlives its run or session", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const script = PROTECTED_MISSING.map((p) => `mkdir -p ${p}/x 2>/dev/null; echo pwned > ${p} 2>/dev/null`)
          .concat([
            "mkdir -p .github/workflows/x",
            "echo on: push > .github/workflows/ci.yml",
            "git status --porcelain"
          ])
          .join("; ")
        for (const [layer, mode] of [[OneShotLive, "per-command"], [SandboxLive, "persistent"]] as const) {
          const done = yield* runIn(scene, script).pipe(Effect.provide(layer))
          assert.strictEqual(done.boundary.mode, mode)
          // inside, git does not see the placeholders as new files
          assert.notInclude(done.out, ".mcp.json")
          for (const p of [...PROTECTED_MISSING, ".github"]) {
            assert.isFalse(fs.existsSync(path.join(scene.workspace, p)), `${p} left on the host (${mode})`)
          }
          assert.isFalse(fs.existsSync(path.join(scene.workspace, ".git/commondir")))
          assert.strictEqual(
            fs.readFileSync(path.join(scene.workspace, ".git/info/exclude"), "utf8").includes("steward"),
            false
          )
        }
      })
    ))

  it.live("a run that ends first does not remove the placeholders a concurrent run still relies on", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        for (const layer of [OneShotLive, SandboxLive]) {
          const [long, short] = yield* Effect.all([
            runIn(
              scene,
              "sleep 1.5; mkdir .claude/x 2>/dev/null && echo created; echo pwned > .mcp.json 2>/dev/null; echo end"
            ),
            Effect.delay(runIn(scene, "true"), "200 millis")
          ], { concurrency: 2 }).pipe(Effect.provide(layer))
          assert.strictEqual(short.exitCode, 0)
          assert.include(long.out, "end")
          assert.notInclude(long.out, "created")
          assert.isFalse(fs.existsSync(path.join(scene.workspace, ".claude")))
          assert.isFalse(fs.existsSync(path.join(scene.workspace, ".mcp.json")))
        }
      })
    ))

  it.effect("secrets read nothing: cat ~/.ssh/id_*, cat .env, ~/.aws; .env.example stays readable", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const done = yield* runIn(
          scene,
          "cat ~/.ssh/id_*; cat .env; cat ~/.aws/credentials; cat .env.example; cat /etc/shadow; grep -r SECRET . ~ 2>/dev/null"
        )
        for (const secret of scene.secrets) assert.notInclude(done.out + done.err, secret)
        assert.include(done.out, "TOKEN=changeme")
        // the host's files are untouched
        assert.include(fs.readFileSync(path.join(scene.workspace, ".env"), "utf8"), "SECRET")
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("no network interface but loopback; a service on the host's loopback is unreachable", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        let connections = 0
        const server = net.createServer((socket) => {
          connections++
          socket.end("hello from the host\n")
        })
        yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)))
        const port = (server.address() as net.AddressInfo).port
        const done = yield* runIn(
          scene,
          `cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; ` +
            `node -e 'const s=require("net").connect(${port},"127.0.0.1");s.on("data",d=>process.stdout.write("GOT "+d));s.on("error",e=>console.log("ERR "+e.code))'`
        )
        server.close()
        assert.deepStrictEqual(done.out.trim().split("\n").slice(0, -1), ["lo"])
        assert.include(done.out, "ERR ECONNREFUSED")
        assert.notInclude(done.out, "GOT")
        assert.strictEqual(connections, 0)
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("setsid, nohup and a double fork do not outlive the call", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const marker = `steward-orphan-${process.pid}-${Date.now()}`
        const done = yield* runIn(
          scene,
          `setsid sleep 1000 --${marker}-a 2>/dev/null & ` +
            `nohup sh -c 'exec -a ${marker}-b sleep 1000' >/dev/null 2>&1 & ` +
            `( ( exec -a ${marker}-c sleep 1000 & ) & ); sleep 0.2; echo started`
        )
        assert.strictEqual(done.exitCode, 0)
        const left = childProcess.spawnSync("pgrep", ["-f", marker]).stdout.toString().trim()
        assert.strictEqual(left, "", `processes left behind: ${left}`)
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("a loop that starts processes (at most 2,000 attempts) stops at the process limit", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        // Node's spawn fails at once when fork is refused (bash would retry for seconds). The sleep
        // has a duration no other test uses, so the check below sees only this test's processes.
        const nap = uniqueNap(30)
        const loop = "const cp=require('child_process');let ok=0;" +
          `for(let i=0;i<2000;i++){const c=cp.spawn('sleep',['${nap}']);c.on('error',()=>{});if(c.pid===undefined)break;ok++}` +
          "console.log('started='+ok);process.exit(0)"
        const done = yield* runIn(scene, `node -e "${loop}"`, { policy: { limits: { processes: 40 } } })
        const started = Number(/started=(\d+)/.exec(done.out)?.[1] ?? "NaN")
        assert.isTrue(started < 40, `started ${started} processes under a limit of 40`)
        assert.isTrue(done.processLimitHit)
        assert.strictEqual(runningSleeps(nap), "")
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("git push to a local bare remote outside the workspace fails", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const head = () => childProcess.execFileSync("git", ["rev-parse", "main"], { cwd: scene.remote }).toString()
        const before = head()
        const done = yield* runIn(
          scene,
          "git commit -q --allow-empty -m inside && git push origin main; git push -f origin HEAD:main"
        )
        assert.notStrictEqual(done.exitCode, 0)
        assert.strictEqual(head(), before)
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("read_only mounts the workspace read-only too", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const done = yield* runIn(scene, "echo x > new.txt; cat src/index.ts", { level: "read_only" })
        assert.include(done.out, "export const x")
        assert.isFalse(fs.existsSync(path.join(scene.workspace, "new.txt")))
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("a timeout kills the whole tree", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const nap = uniqueNap(1001)
        const done = yield* runIn(scene, `sleep ${nap} & sleep ${nap}`, { timeoutMs: 300 })
        assert.isTrue(done.timedOut)
        assert.isNull(done.exitCode)
        assert.strictEqual(runningSleeps(nap), "")
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("file size and CPU limits come from the profile", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const done = yield* runIn(scene, "head -c 100000 /dev/zero > big.bin; wc -c < big.bin", {
          policy: { limits: { fileSizeBytes: 4096 } }
        })
        assert.strictEqual(done.out.trim(), "4096")
        const spin = yield* runIn(scene, "while :; do :; done", { policy: { limits: { cpuSeconds: 1 } } })
        assert.strictEqual(spin.timedOut, false)
        assert.notStrictEqual(spin.exitCode, 0)
      })
    ).pipe(Effect.provide(SandboxLive)))
})

describe("Sandbox: profiles and unavailable hosts", () => {
  it.effect("a bad profile is a typed sandbox-invalid naming the field", () =>
    Effect.gen(function*() {
      const relative = yield* Effect.exit(SandboxProfile.make({ workspace: "ws", home: "/root" }))
      assert.isTrue(Exit.isFailure(relative))
      const error = yield* Effect.flip(
        SandboxProfile.make({ workspace: "/", home: "/root", policy: { allowDomains: ["not a domain"] } })
      )
      assert.strictEqual(error.code, "sandbox-invalid")
      const domains = yield* Effect.flip(
        SandboxProfile.make({ workspace: import.meta.dirname, home: "/root", policy: { allowDomains: ["a b"] } })
      )
      assert.strictEqual(domains.field, "policy")
    }))

  it.effect("an unavailable boundary fails closed with sandbox-unavailable, never runs the command", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox.Sandbox
      const profile = yield* SandboxProfile.make({ workspace: import.meta.dirname, home: "/root" })
      const error = yield* Effect.flip(sandbox.run(profile, { argv: ["touch", "/tmp/should-not-exist"] }))
      assert.strictEqual(error.code, "sandbox-unavailable")
      assert.deepStrictEqual(yield* sandbox.availability, {
        available: false,
        reason: "macOS: no Seatbelt profile yet"
      })
    }).pipe(Effect.provide(Sandbox.layerUnavailable("macOS: no Seatbelt profile yet"))))

  it.effect("a missing bubblewrap is sandbox-unavailable naming the package", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox.Sandbox
      const profile = yield* SandboxProfile.make({ workspace: import.meta.dirname, home: "/root" })
      const error = yield* Effect.flip(sandbox.run(profile, { argv: ["true"] }))
      assert.strictEqual(error.code, "sandbox-unavailable")
      assert.match(error.message, /bubblewrap|not Linux/)
    }).pipe(Effect.provide(Sandbox.layerLinux({ bwrap: "/nonexistent/bwrap" }))))
})
