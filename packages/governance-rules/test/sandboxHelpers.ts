import { Effect, Layer } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Sandbox, SandboxProfile } from "../src/index.js"

/** Why the bubblewrap suites skip here, or `null` when they run (CI installs bubblewrap). */
export const skipReason: string | null = (() => {
  if (process.platform !== "linux") return `not Linux (${process.platform})`
  const probe = childProcess.spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "true"])
  if (probe.error !== undefined) return "bubblewrap (bwrap) is not installed"
  if (probe.status !== 0) return `bubblewrap cannot make namespaces here: ${probe.stderr.toString().trim()}`
  return null
})()

if (skipReason !== null) console.warn(`SKIPPED sandbox suites: ${skipReason}`)

/** A scene: a git workspace with a secret, an outside directory, a fake home with credentials. */
export interface Scene {
  readonly root: string
  readonly workspace: string
  readonly outside: string
  readonly home: string
  readonly remote: string
  readonly secrets: ReadonlyArray<string>
}

const git = (cwd: string, ...args: Array<string>) =>
  childProcess.execFileSync("git", args, {
    cwd,
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    stdio: "pipe"
  })

export const SECRET_ENV = "SECRET-IN-DOTENV-4242"
export const SECRET_SSH = "SECRET-SSH-KEY-1717"
export const SECRET_AWS = "SECRET-AWS-0909"

// Not under /tmp: the sandbox's /tmp is private, and the scene's outside must be visible (read-only).
const SCENES = path.join(import.meta.dirname, "..", "node_modules", ".cache", "steward-sandbox-scenes")

export const makeScene = (): Scene => {
  fs.mkdirSync(SCENES, { recursive: true })
  const root = fs.realpathSync(fs.mkdtempSync(path.join(SCENES, "scene-")))
  const workspace = path.join(root, "ws")
  const outside = path.join(root, "outside")
  const home = path.join(root, "home")
  const remote = path.join(outside, "remote.git")
  for (
    const dir of [
      workspace,
      outside,
      home,
      path.join(home, ".ssh"),
      path.join(home, ".aws"),
      path.join(workspace, "src")
    ]
  ) {
    fs.mkdirSync(dir, { recursive: true })
  }
  fs.writeFileSync(path.join(workspace, ".env"), `TOKEN=${SECRET_ENV}\n`)
  fs.writeFileSync(path.join(workspace, ".env.example"), "TOKEN=changeme\n")
  fs.writeFileSync(path.join(workspace, "src", "index.ts"), "export const x = 1\n")
  fs.writeFileSync(path.join(home, ".ssh", "id_ed25519"), `${SECRET_SSH}\n`)
  fs.writeFileSync(path.join(home, ".aws", "credentials"), `${SECRET_AWS}\n`)
  fs.writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = t\n\temail = t@example.com\n")
  fs.writeFileSync(path.join(outside, "victim.txt"), "outside\n")
  git(outside, "init", "-q", "--bare", remote)
  git(workspace, "init", "-q", "-b", "main")
  git(workspace, "config", "user.email", "t@example.com")
  git(workspace, "config", "user.name", "t")
  fs.writeFileSync(path.join(workspace, ".gitignore"), ".env\n")
  git(workspace, "add", "-A")
  git(workspace, "commit", "-q", "-m", "init")
  git(workspace, "remote", "add", "origin", remote)
  git(workspace, "push", "-q", "origin", "main")
  return { root, workspace, outside, home, remote, secrets: [SECRET_ENV, SECRET_SSH, SECRET_AWS] }
}

export const removeScene = (scene: Scene) => fs.rmSync(scene.root, { recursive: true, force: true })

/** Every file under a directory with its content digest (to show nothing changed). */
export const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name)
      if (entry.isDirectory()) walk(full)
      else out[full] = entry.isFile() ? fs.readFileSync(full).toString("base64") : "link"
    }
  }
  walk(dir)
  return out
}

/** The default layer: a session sandbox per profile (ADR 0217). */
export const SandboxLive = Sandbox.layerLinux().pipe(Layer.orDie)

/** Every command in its own bubblewrap (what `steward sandbox -- CMD` does). */
export const OneShotLive = Sandbox.layerLinux({ persistent: false }).pipe(Layer.orDie)

export interface RunOptions {
  readonly level?: "read_only" | "assist" | "execute" | "autonomous"
  readonly policy?: unknown
  readonly timeoutMs?: number
  readonly env?: Record<string, string>
  readonly stdin?: string
}

/** Run a shell line in the scene's workspace; output decoded. */
export const runIn = (scene: Scene, command: string, options: RunOptions = {}) =>
  Effect.gen(function*() {
    const sandbox = yield* Sandbox.Sandbox
    const profile = yield* SandboxProfile.make({
      workspace: scene.workspace,
      home: scene.home,
      level: options.level ?? "execute",
      policy: options.policy
    })
    const done = yield* sandbox.run(profile, {
      argv: Sandbox.shell(command),
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        HOME: scene.home,
        OUTSIDE: scene.outside,
        ...options.env
      },
      timeoutMs: options.timeoutMs ?? 60_000,
      ...(options.stdin === undefined ? {} : { stdin: options.stdin })
    })
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
    return { ...done, out: text(done.stdout), err: text(done.stderr) }
  })
