import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Sandbox } from "../src/index.js"
import { makeScene, removeScene, runIn, SandboxLive, type Scene, SECRET_ENV, skipReason } from "./sandboxHelpers.js"

// ADR 0217: a session's commands share one bubblewrap, and every per-command guarantee still holds.
const suite = skipReason === null ? describe : describe.skip

const withScene = <A, E, R>(body: (scene: Scene) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.sync(makeScene), body, (scene) => Effect.sync(() => removeScene(scene)))

// The supervisor is PID 1 of the sandbox's /proc: its start time names one sandbox.
const SUPERVISOR = "cut -d' ' -f22 /proc/1/stat"

const LATER_SECRET = "SECRET-CREATED-LATER-5151"

suite("Sandbox (bubblewrap): a session's commands in one persistent sandbox", () => {
  it.effect("commands share the sandbox; a process left by one is gone before the next starts; /tmp is emptied", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const marker = `steward-session-orphan-${process.pid}-${Date.now()}`
        const first = yield* runIn(
          scene,
          `${SUPERVISOR}; setsid sh -c 'exec -a ${marker} sleep 1000' & ` +
            `( ( exec -a ${marker}-b sleep 1000 & ) & ); echo kept > /tmp/note; echo x > /dev/shm/note; sleep 0.2`
        )
        assert.strictEqual(first.exitCode, 0, first.err)
        assert.strictEqual(first.boundary.mode, "persistent")
        assert.strictEqual(childProcess.spawnSync("pgrep", ["-f", marker]).stdout.toString().trim(), "")
        const second = yield* runIn(scene, `${SUPERVISOR}; ls -A /tmp /dev/shm; ps -e -o comm= | grep -c sleep`)
        assert.strictEqual(second.boundary.mode, "persistent")
        const [supervisor, ...rest] = second.out.trim().split("\n")
        assert.strictEqual(supervisor, first.out.trim().split("\n")[0], "the same sandbox ran both")
        assert.notInclude(rest.join("\n"), "note")
        assert.strictEqual(rest.at(-1), "0")
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("a command cannot kill, trace or write to the supervisor, nor replace its files", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const first = yield* runIn(
          scene,
          `${SUPERVISOR} > /tmp/before; cat /tmp/before; kill -9 1; kill -KILL -1; ` +
            "cat /proc/1/environ && echo READ-ENV; cat /proc/1/mem && echo READ-MEM; " +
            "readlink /proc/1/fd/0 && echo SAW-FD; echo forged > /proc/1/fd/1 && echo WROTE-FD; " +
            "echo forged > /run/steward/io/request && echo WROTE-REQUEST; rm -f /run/steward/io/out && echo RM-FIFO; " +
            "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status; echo end"
        )
        assert.include(first.out, "end")
        for (const breach of ["READ-ENV", "READ-MEM", "SAW-FD", "WROTE-FD", "WROTE-REQUEST", "RM-FIFO"]) {
          assert.notInclude(first.out, breach)
        }
        assert.match(first.out, /CapEff:\s+0+\n/)
        assert.match(first.out, /CapBnd:\s+0+\n/)
        assert.match(first.out, /NoNewPrivs:\s+1/)
        const second = yield* runIn(scene, SUPERVISOR)
        assert.strictEqual(second.exitCode, 0)
        assert.strictEqual(second.out.trim(), first.out.trim().split("\n")[0], "the supervisor survived")
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("a secret created or replaced on the host after the sandbox started is unreadable by the next command", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const first = yield* runIn(scene, `${SUPERVISOR}; cat .env`)
        assert.notInclude(first.out, SECRET_ENV)
        fs.writeFileSync(path.join(scene.workspace, ".env.local"), `TOKEN=${LATER_SECRET}\n`)
        fs.mkdirSync(path.join(scene.workspace, "src", "deep"))
        fs.writeFileSync(path.join(scene.workspace, "src", "deep", "id_rsa"), `${LATER_SECRET}\n`)
        // an editor's save: a new file renamed over the masked one (the mount on the old one detaches)
        fs.writeFileSync(path.join(scene.workspace, ".env.tmp"), `TOKEN=${LATER_SECRET}-renamed\n`)
        fs.renameSync(path.join(scene.workspace, ".env.tmp"), path.join(scene.workspace, ".env"))
        const second = yield* runIn(
          scene,
          `${SUPERVISOR}; cat .env .env.local src/deep/id_rsa; grep -r SECRET . 2>/dev/null`
        )
        assert.strictEqual(second.boundary.mode, "persistent")
        assert.notInclude(second.out + second.err, LATER_SECRET)
        assert.notStrictEqual(second.out.split("\n")[0], first.out.split("\n")[0], "a new sandbox was started")
        const third = yield* runIn(scene, SUPERVISOR)
        assert.strictEqual(third.out.trim(), second.out.split("\n")[0], "and reused while nothing changed")
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("a protected path that appears or is replaced on the host during the session stays read-only", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        yield* runIn(scene, "true")
        const module = path.join(scene.workspace, ".git", "modules", "sub")
        fs.mkdirSync(module, { recursive: true })
        fs.writeFileSync(path.join(module, "config"), "[core]\n")
        // git rewrites its config through a lock file renamed over it
        childProcess.execFileSync("git", ["config", "steward.test", "1"], { cwd: scene.workspace })
        fs.mkdirSync(path.join(scene.workspace, ".git", "hooks"), { recursive: true })
        const done = yield* runIn(
          scene,
          "echo '[alias] x = !id' >> .git/modules/sub/config; echo '[core] hooksPath = /x' >> .git/config; " +
            "echo hook > .git/hooks/pre-commit; echo end"
        )
        assert.include(done.out, "end")
        assert.strictEqual(fs.readFileSync(path.join(module, "config"), "utf8"), "[core]\n")
        assert.notInclude(fs.readFileSync(path.join(scene.workspace, ".git", "config"), "utf8"), "hooksPath")
        assert.isFalse(fs.existsSync(path.join(scene.workspace, ".git", "hooks", "pre-commit")))
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("cwd, environment, stdin, stdout, stderr, exit status and timeouts per command", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const done = yield* runIn(scene, "pwd; echo \"$GREETING\"; cat; echo oops >&2; exit 7", {
          env: { GREETING: "hello from the host" },
          stdin: "from stdin\n"
        })
        assert.strictEqual(done.exitCode, 0 + 7)
        assert.strictEqual(done.out, `${scene.workspace}\nhello from the host\nfrom stdin\n`)
        assert.strictEqual(done.err, "oops\n")
        assert.strictEqual(done.boundary.mode, "persistent")
        // the command is not its namespace's init (which would ignore signals it has no handler for)
        const killed = yield* runIn(scene, "kill -TERM $$; echo never")
        assert.strictEqual(killed.exitCode, 128 + 15)
        assert.strictEqual(killed.out, "")
        const slow = yield* runIn(scene, "sleep 30", { timeoutMs: 200 })
        assert.isTrue(slow.timedOut)
        assert.isNull(slow.exitCode)
        const after = yield* runIn(scene, "echo still")
        assert.strictEqual(after.out, "still\n")
        assert.strictEqual(after.boundary.mode, "persistent")
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.live("an idle session sandbox closes by itself, and its placeholders go with it", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const first = yield* runIn(scene, SUPERVISOR)
        assert.isTrue(fs.existsSync(path.join(scene.workspace, ".claude")), "held while the sandbox lives")
        yield* Effect.sleep("600 millis")
        assert.isFalse(fs.existsSync(path.join(scene.workspace, ".claude")))
        const second = yield* runIn(scene, SUPERVISOR)
        assert.strictEqual(second.boundary.mode, "persistent")
        assert.notStrictEqual(second.out, first.out)
      })
    ).pipe(Effect.provide(Sandbox.layerLinux({ idleMs: 200 }).pipe(Layer.orDie))))

  it.live("commands of one profile never overlap in its sandbox: a concurrent one gets its own bubblewrap", () =>
    withScene((scene) =>
      Effect.gen(function*() {
        const [long, short] = yield* Effect.all([
          runIn(scene, "sleep 0.8; echo long"),
          Effect.delay(runIn(scene, "echo short"), "200 millis")
        ], { concurrency: 2 })
        assert.strictEqual(long.out, "long\n")
        assert.strictEqual(short.out, "short\n")
        assert.deepStrictEqual([long.boundary.mode, short.boundary.mode], ["persistent", "per-command"])
      })
    ).pipe(Effect.provide(SandboxLive)))

  it.effect("a workspace under /tmp keeps per-command bubblewrap, and emptying /tmp never reaches it", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "steward-session-tmp-ws-")))
        fs.mkdirSync(path.join(workspace, "sub"))
        fs.writeFileSync(path.join(workspace, "sub", "kept.txt"), "kept\n")
        return workspace
      }),
      (workspace) =>
        Effect.gen(function*() {
          assert.isTrue(workspace.startsWith("/tmp/"), "os.tmpdir() is /tmp on this host")
          const scene = { root: workspace, workspace, outside: workspace, home: os.homedir(), remote: "", secrets: [] }
          for (const line of ["echo one >> log.txt", "echo two >> log.txt", "cat log.txt sub/kept.txt"]) {
            const done = yield* runIn(scene, line)
            assert.strictEqual(done.exitCode, 0, done.err)
            assert.strictEqual(done.boundary.mode, "per-command")
          }
          assert.strictEqual(fs.readFileSync(path.join(workspace, "log.txt"), "utf8"), "one\ntwo\n")
          assert.strictEqual(fs.readFileSync(path.join(workspace, "sub", "kept.txt"), "utf8"), "kept\n")
        }),
      (workspace) => Effect.sync(() => fs.rmSync(workspace, { recursive: true, force: true }))
    ).pipe(Effect.provide(SandboxLive)))
})
