/**
 * How each external agent CLI runs one audit session headless (issue 39, ADR 0017): its argv (the
 * prompt on stdin, never on the command line), its model flag, the exit statuses it reports
 * outcomes with, and the per-session configuration that installs Steward's hooks for that session
 * only — Codex through a session `CODEX_HOME` seeded from a copy of the operator's, Claude Code
 * through `--settings FILE`, Gemini through a session system-settings file. The operator's own
 * agent configuration is read (to copy), never written.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as nodePath from "node:path"
import { cannotRun } from "../../CliError.js"
import * as Install from "../../hooks/Install.js"
import * as Settings from "../../hooks/Settings.js"
import type { ReportedOutcome } from "./agentProcess.js"
import type { ExternalAgent } from "./roleAgents.js"

/**
 * An external agent's name.
 *
 * @since 0.1.0
 * @category models
 */
export type Agent = typeof ExternalAgent.Type["agent"]

/**
 * What one session runs: the arguments after the executable, the environment entries that
 * override the operator's, the exit-status table, and the sandbox the session runs in.
 *
 * @since 0.1.0
 * @category models
 */
export interface Launch {
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly exitOutcomes: Readonly<Record<number, ReportedOutcome>>
  readonly sandboxProfile: string
}

/**
 * The exit statuses each CLI reports an outcome with; any other non-zero status is a `crash`.
 * Gemini's are its documented fatal codes (41 authentication, 44 sandbox, 53 turn limit).
 *
 * @since 0.1.0
 * @category constants
 */
export const exitOutcomes: { readonly [A in Agent]: Readonly<Record<number, ReportedOutcome>> } = {
  codex: {},
  "claude-code": {},
  gemini: { 41: "provider-error", 44: "refused", 53: "blocked" }
}

/**
 * The headless argv of one session (the prompt is written to stdin).
 *
 * @since 0.1.0
 * @category constructors
 */
export const argv = (agent: Agent, model: string | undefined, settingsFile: string): ReadonlyArray<string> => {
  switch (agent) {
    case "codex":
      return [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-hook-trust",
        "-s",
        "workspace-write",
        ...(model === undefined ? [] : ["-m", model]),
        "-"
      ]
    case "claude-code":
      return [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--settings",
        settingsFile,
        ...(model === undefined ? [] : ["--model", model])
      ]
    case "gemini":
      return [
        "--output-format",
        "stream-json",
        "--approval-mode",
        "yolo",
        ...(model === undefined ? [] : ["-m", model])
      ]
  }
}

/**
 * Where a session's own agent configuration lives, under its directory in the state directory.
 *
 * @since 0.1.0
 * @category paths
 */
export const configPaths = (agent: Agent, sessionDir: string) => {
  const home = nodePath.join(sessionDir, "agent-home")
  return {
    home,
    settingsFile: agent === "codex"
      ? nodePath.join(home, "hooks.json")
      : nodePath.join(home, agent === "gemini" ? "system-settings.json" : "settings.json")
  }
}

/**
 * Write the session's configuration and return how to launch it. `operatorEnv` is the
 * environment the loop runs in (read for the operator's own `CODEX_HOME`, copied from).
 *
 * @since 0.1.0
 * @category constructors
 */
export const prepare = Effect.fn("AgentCli.prepare")(function*(input: {
  readonly agent: typeof ExternalAgent.Type
  readonly sessionDir: string
  readonly workspace: string
  readonly stateDir: string
  readonly operatorEnv: Readonly<Record<string, string | undefined>>
  readonly operatorHome: string
}) {
  const fs = yield* FileSystem.FileSystem
  const agent = input.agent.agent
  const { home, settingsFile } = configPaths(agent, input.sessionDir)
  const io = (what: string) => (e: { readonly message: string }) => cannotRun("io", `${what}: ${e.message}`)
  yield* fs.makeDirectory(home, { recursive: true }).pipe(Effect.mapError(io(`cannot create ${home}`)))
  const target: Install.Target = {
    client: agent,
    user: false,
    workspace: input.workspace,
    level: "execute",
    stateDir: input.stateDir,
    rules: undefined
  }
  const run = Install.hookLauncher()
  const hooks = Settings.install({}, agent, (event) => Install.hookCommand(target, event, run))
  yield* fs.writeFileString(settingsFile, Settings.stringify(hooks, null)).pipe(
    Effect.mapError(io(`cannot write ${settingsFile}`))
  )
  let env: Record<string, string> = {}
  if (agent === "codex") {
    // the operator's Codex configuration (provider, credentials) is copied, never changed
    const own = input.operatorEnv["CODEX_HOME"] || nodePath.join(input.operatorHome, ".codex")
    for (const file of ["config.toml", "auth.json"]) {
      const from = nodePath.join(own, file)
      if (yield* fs.exists(from).pipe(Effect.orElseSucceed(() => false))) {
        yield* fs.copyFile(from, nodePath.join(home, file)).pipe(Effect.mapError(io(`cannot copy ${from}`)))
      }
    }
    env = { CODEX_HOME: home }
  }
  if (agent === "gemini") env = { GEMINI_CLI_SYSTEM_SETTINGS_PATH: settingsFile }
  return {
    args: argv(agent, input.agent.model, settingsFile),
    env,
    exitOutcomes: exitOutcomes[agent],
    sandboxProfile: agent === "codex" ? "codex:workspace-write+steward-hooks" : "steward-hooks:execute"
  } satisfies Launch
})
