/**
 * The real agent CLIs as test subjects: where the pinned builds are installed (`.ci/run` installs
 * them from the npm registry into `node_modules/.cache/steward-agent-clis`, or
 * `$STEWARD_AGENT_CLIS_DIR`), and how each runs headless, fully offline, against a scripted model
 * server: every setting the reference lists for staying on loopback (telemetry, update checks,
 * error reports, Codex's plugin features), a scratch home, and the flags of its headless mode.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export type Client = "claude-code" | "codex" | "gemini"

export const pins: Readonly<
  Record<Client, { readonly pkg: string; readonly version: string; readonly dir: string; readonly bin: string }>
> = {
  "claude-code": { pkg: "@anthropic-ai/claude-code", version: "2.1.197", dir: "claude", bin: "claude" },
  codex: { pkg: "@openai/codex", version: "0.171.0", dir: "codex", bin: "codex" },
  gemini: { pkg: "@google/gemini-cli", version: "0.61.0", dir: "gemini", bin: "gemini" }
}

const repo = path.resolve(import.meta.dirname, "..", "..", "..", "..")
export const cacheDir = (): string =>
  process.env["STEWARD_AGENT_CLIS_DIR"] || path.join(repo, "node_modules", ".cache", "steward-agent-clis")

/** The CLI's executable, or why it cannot run here (the test skips with that reason). */
export const binary = (client: Client): { readonly path: string } | { readonly missing: string } => {
  const pin = pins[client]
  const dir = path.join(cacheDir(), pin.dir)
  const exe = path.join(dir, "node_modules", ".bin", pin.bin)
  const manifest = path.join(dir, "node_modules", ...pin.pkg.split("/"), "package.json")
  if (!fs.existsSync(exe) || !fs.existsSync(manifest)) {
    return { missing: `${pin.pkg}@${pin.version} is not installed in ${dir} (.ci/run installs it)` }
  }
  const version = (JSON.parse(fs.readFileSync(manifest, "utf8")) as { version: string }).version
  if (version !== pin.version) return { missing: `${pin.pkg} in ${dir} is ${version}, not the pinned ${pin.version}` }
  return { path: exe }
}

/** The built CLI the installed hooks run (`.ci/run` builds before the tests). */
export const builtCli = path.join(repo, "packages", "cli", "dist", "bin.js")

export interface Sandbox {
  readonly root: string
  readonly home: string
  readonly ws: string
  readonly tmp: string
  readonly sockets: string
}

/**
 * A scratch home and project for one run. Under the repository's cache directory, not `/tmp`:
 * Codex refuses to create its sandbox helper under the temp directory.
 */
export const scratch = (name: string): Sandbox => {
  const base = path.join(repo, "node_modules", ".cache", "steward-agent-runs")
  fs.mkdirSync(base, { recursive: true })
  const root = fs.realpathSync(fs.mkdtempSync(path.join(base, `${name}-`)))
  const s = {
    root,
    home: path.join(root, "home"),
    ws: path.join(root, "ws"),
    tmp: path.join(root, "tmp"),
    // Short: a Unix socket's path has at most ~100 bytes, and the repository's cache path is long
    // (a socket path too long means no decision server: every call decides in its own process).
    sockets: fs.mkdtempSync(path.join(os.tmpdir(), "stw-"))
  }
  for (const d of [s.home, s.ws, s.tmp]) fs.mkdirSync(d, { recursive: true })
  return s
}

/** The environment of a run: nothing of the host's but PATH, every loopback setting on. */
export const environment = (client: Client, s: Sandbox, modelUrl: string): Record<string, string> => {
  const common = {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: s.home,
    TMPDIR: s.tmp,
    LANG: "C.UTF-8",
    // Steward's decision server for this run only (the test stops it).
    STEWARD_HOOK_SOCKET_DIR: s.sockets,
    STEWARD_HOOK_SERVER_IDLE_MS: "120000",
    NO_PROXY: "127.0.0.1,localhost"
  }
  switch (client) {
    case "claude-code":
      return {
        ...common,
        ANTHROPIC_BASE_URL: modelUrl,
        ANTHROPIC_API_KEY: "sk-scripted",
        CLAUDE_CONFIG_DIR: path.join(s.home, ".claude"),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_BUG_COMMAND: "1"
      }
    case "codex":
      return { ...common, CODEX_HOME: path.join(s.home, ".codex"), SCRIPTED_API_KEY: "sk-scripted" }
    case "gemini":
      return {
        ...common,
        GOOGLE_GEMINI_BASE_URL: modelUrl,
        GEMINI_API_KEY: "scripted",
        GEMINI_CLI_TRUST_WORKSPACE: "true"
      }
  }
}

/** The client's own configuration for staying offline (Codex's provider, Gemini's user settings). */
export const configure = (client: Client, s: Sandbox, modelUrl: string, fixtures: string): void => {
  if (client === "codex") {
    const dir = path.join(s.home, ".codex")
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, "config.toml"),
      fs.readFileSync(path.join(fixtures, "codex-config.toml"), "utf8")
        .replace(/^notify = .*\n/m, "")
        .replace(/base_url = ".*"/, `base_url = "${modelUrl}/v1"`)
    )
  }
  if (client === "gemini") {
    fs.mkdirSync(path.join(s.home, ".gemini"), { recursive: true })
    fs.copyFileSync(path.join(fixtures, "gemini-user-settings.json"), path.join(s.home, ".gemini", "settings.json"))
  }
}

/** The headless command line of one prompt (`resume`: Claude Code's session id, or Codex's last). */
export const argv = (
  client: Client,
  prompt: string,
  options: {
    readonly session?: string
    readonly resume?: boolean
    /** Codex's sandbox mode (`-s`), `workspace-write` unless given. */
    readonly codexSandbox?: "read-only" | "workspace-write" | "danger-full-access"
  } = {}
) => {
  switch (client) {
    case "claude-code":
      return [
        "-p",
        prompt,
        "--output-format",
        "stream-json",
        "--verbose",
        ...(options.session === undefined
          ? []
          : options.resume === true
          ? ["--resume", options.session]
          : ["--session-id", options.session])
      ]
    case "codex":
      return [
        "exec",
        ...(options.resume === true ? ["resume", "--last"] : []),
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-hook-trust",
        ...(options.resume === true ? [] : ["-s", options.codexSandbox ?? "workspace-write"]),
        prompt
      ]
    case "gemini":
      return ["-p", prompt, "--output-format", "stream-json", "--approval-mode", "yolo"]
  }
}

export interface RunResult {
  readonly exitCode: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Run the CLI in the project, stdin closed, killed at `timeoutMs`. */
export const run = (
  exe: string,
  args: ReadonlyArray<string>,
  s: Sandbox,
  env: Record<string, string>,
  timeoutMs = 120_000
) =>
  new Promise<RunResult>((resolve) => {
    const child = spawn(exe, args, { cwd: s.ws, env, stdio: ["ignore", "pipe", "pipe"], detached: true })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {
        // already gone
      }
    }, timeoutMs)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ exitCode: code, stdout, stderr })
    })
  })

/**
 * Start this run's decision server before the client does (the first hook call of a build
 * decides in its own process, without the boundary's probe), and wait until it listens.
 */
export const warmServer = async (s: Sandbox, env: Record<string, string>): Promise<void> => {
  const lean = path.join(path.dirname(builtCli), "hook.cjs")
  const warm = path.join(s.root, "warm")
  fs.mkdirSync(warm, { recursive: true })
  const input = JSON.stringify({ session_id: "warm", cwd: warm, hook_event_name: "SessionStart", source: "startup" })
  await new Promise<void>((resolve) => {
    const child = spawn(process.execPath, [
      lean,
      "claude-code",
      "SessionStart",
      "--workspace",
      warm,
      "--state-dir",
      warm
    ], {
      env,
      stdio: ["pipe", "ignore", "ignore"]
    })
    child.on("close", () => resolve())
    child.stdin.end(input)
  })
  const listening = () =>
    fs.existsSync(s.sockets) &&
    fs.readdirSync(s.sockets).some((d) => fs.readdirSync(path.join(s.sockets, d)).some((f) => f.endsWith(".pid")))
  for (let i = 0; i < 300 && !listening(); i++) await new Promise((r) => setTimeout(r, 100))
}

/** Stop the decision servers this run started (by the pid each wrote next to its socket). */
export const stopServers = (s: Sandbox): void => {
  if (!fs.existsSync(s.sockets)) return
  for (const dir of fs.readdirSync(s.sockets)) {
    for (const file of fs.readdirSync(path.join(s.sockets, dir)).filter((f) => f.endsWith(".pid"))) {
      try {
        process.kill(Number(fs.readFileSync(path.join(s.sockets, dir, file), "utf8")), "SIGTERM")
      } catch {
        // gone already
      }
    }
  }
  fs.rmSync(s.sockets, { recursive: true, force: true })
}
