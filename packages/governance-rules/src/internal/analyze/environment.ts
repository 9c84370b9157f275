/**
 * Environment assignments (`NAME=value cmd`, `env NAME=value`, bare `NAME=value`): variables whose
 * value runs (parsed and decided as a command), variables that load code (ask), proxies (decided
 * as the destination the command then connects to), and the variables that change how the shell
 * itself resolves what it runs.
 *
 * @internal
 */
import * as Network from "../network.js"
import type { Word } from "../shellSyntax.js"
import { type Analyzer, guard, type Segment } from "./model.js"
import { addPath } from "./paths.js"

/** Variables whose value is a command line something runs. @internal */
export const EXEC_ENV: ReadonlySet<string> = new Set([
  "PAGER",
  "GIT_PAGER",
  "MANPAGER",
  "SYSTEMD_PAGER",
  "EDITOR",
  "VISUAL",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_SSH_COMMAND",
  "GIT_SSH",
  "GIT_EXTERNAL_DIFF",
  "GIT_PROXY_COMMAND",
  "SSH_ASKPASS",
  "GIT_ASKPASS",
  "SUDO_ASKPASS",
  "PROMPT_COMMAND",
  "BROWSER",
  "LESSOPEN",
  "LESSCLOSE",
  "FCEDIT",
  "RSYNC_RSH",
  "CVS_RSH"
])

const CODE_LOADING_ENV: ReadonlySet<string> = new Set([
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "BASH_ENV",
  "ENV",
  "ZDOTDIR",
  "NODE_OPTIONS",
  "NODE_PATH",
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PYTHONHOME",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  "RUBYOPT",
  "RUBYLIB",
  "GIT_CONFIG",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_EXEC_PATH",
  "GIT_TEMPLATE_DIR",
  "GIT_DIR",
  "GIT_COMMON_DIR",
  // config homes: git, npm and every XDG tool read their configuration (which runs programs) there
  "HOME",
  "XDG_CONFIG_HOME",
  // JVM, Perl and Python hooks that load code; tools whose options come from a variable
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "MAVEN_OPTS",
  "GRADLE_OPTS",
  "PERL5DB",
  "PYTHONBREAKPOINT",
  "RUSTC_WRAPPER",
  "RUSTC_WORKSPACE_WRAPPER",
  "RIPGREP_CONFIG_PATH",
  "TAR_OPTIONS",
  "GIT_WORK_TREE",
  "PATH",
  "IFS",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PS1",
  "PS0",
  "PS3",
  "HISTFILE",
  "CDPATH",
  "GLOBIGNORE"
])

/** Variables bash expands again when it uses them (a `$(…)` in their value runs). @internal */
export const EVALUATED_VARIABLES: ReadonlySet<string> = new Set(["PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND"])

const PROXY_ENV = /^(?:https?|ftp|all|no)_proxy$|^(?:HTTPS?|FTP|ALL)_PROXY$/

/** @internal */
export const isCodeLoadingEnv = (name: string): boolean =>
  CODE_LOADING_ENV.has(name) || name.startsWith("DYLD_") || name.startsWith("GIT_CONFIG_") ||
  /^CARGO_TARGET_.*_RUNNER$/.test(name)

// `NODE_OPTIONS` that only size or tune the runtime load no code (`--max-old-space-size=8192`).
const TUNING_NODE_OPTION =
  /^--(?:max-old-space-size|max-semi-space-size|stack-size|max-http-header-size|unhandled-rejections|dns-result-order|heapsnapshot-near-heap-limit)=[\w.-]+$|^--(?:enable-source-maps|no-warnings|no-deprecation|trace-warnings|trace-deprecation|trace-uncaught|openssl-legacy-provider|experimental-vm-modules|no-experimental-fetch|expose-gc|preserve-symlinks)$/

const tuningOnly = (name: string, value: Word): boolean =>
  name === "NODE_OPTIONS" && value.resolved && value.text.trim().length > 0 &&
  value.text.trim().split(/\s+/).every((option) => TUNING_NODE_OPTION.test(option))

// Package indexes redirected through the environment: where the tool connects.
const REGISTRY_ENV =
  /^(?:PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|UV_INDEX_URL|UV_EXTRA_INDEX_URL|UV_DEFAULT_INDEX|POETRY_REPOSITORIES_.*_URL|NPM_CONFIG_REGISTRY|npm_config_registry|YARN_REGISTRY|YARN_NPM_REGISTRY_SERVER|BUN_CONFIG_REGISTRY|GOPROXY|CARGO_REGISTRIES_.*_INDEX)$/

// git's trace variables take a path to write to (anything but a number or a boolean).
const TRACE_ENV = /^GIT_TRACE/

/** The `$(…)` and backtick bodies inside a literal string (what bash runs if it evaluates it). @internal */
export const substitutionsIn = (text: string): Array<string> => {
  const out: Array<string> = []
  if (!text.includes("$(") && !text.includes("`")) return out
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "$" && text[i + 1] === "(" && text[i + 2] !== "(") {
      let depth = 1
      let j = i + 2
      for (; j < text.length && depth > 0; j++) {
        if (text[j] === "(") depth++
        else if (text[j] === ")") depth--
      }
      out.push(text.slice(i + 2, depth === 0 ? j - 1 : j))
      i = j - 1
    } else if (text[i] === "`") {
      const end = text.indexOf("`", i + 1)
      out.push(text.slice(i + 1, end < 0 ? text.length : end))
      if (end < 0) break
      i = end
    }
  }
  return out
}

/** @internal */
export interface Assignment {
  readonly name: string
  readonly value: Word
}

/** Decide environment assignments on a segment. `run` analyses a nested source. @internal */
export const analyzeAssignments = (
  analyzer: Analyzer,
  segment: Segment,
  assignments: ReadonlyArray<Assignment>,
  run: (source: string) => void
): void => {
  for (const { name, value } of assignments) {
    // A value naming the metadata service can be what the program connects to.
    for (const host of Network.metadataIn(value.text)) {
      segment.checks.push({ action: "fetch", resource: Network.hostUrl(host) })
    }
    if (name === "CDPATH") analyzer.cdpath = true
    if (PROXY_ENV.test(name)) {
      if (!value.resolved) guard(segment, "unresolved-host", `${name}=${value.text}`)
      else if (value.text.length > 0) {
        const url = Network.normalizeUrl(value.text)
        if (url === null) guard(segment, "unresolved-host", `${name}=${value.text}`)
        else segment.checks.push({ action: "fetch", resource: url })
      }
    }
    if (name.startsWith("BASH_FUNC_")) {
      // An exported function: its body runs when the name is called.
      guard(segment, "rebinds-command", `${name}=${value.text}`)
      const body = /^\(\)\s*\{([\s\S]*)\}\s*$/.exec(value.text)
      if (body !== null) run(body[1]!)
      continue
    }
    if (EVALUATED_VARIABLES.has(name)) {
      for (const inner of substitutionsIn(value.text)) run(inner)
    }
    if (REGISTRY_ENV.test(name)) {
      const url = value.resolved ? Network.normalizeUrl(value.text.split(/[\s,]+/)[0] ?? "") : null
      if (url === null) guard(segment, "unresolved-host", `${name}=${value.text}`)
      else segment.checks.push({ action: "fetch", resource: url })
    }
    if (TRACE_ENV.test(name) && !/^(?:[0-9]*|true|false|yes|no|on|off)$/i.test(value.text)) {
      addPath(analyzer, segment, "write", value)
    }
    if (isCodeLoadingEnv(name) && !tuningOnly(name, value)) guard(segment, "env-executes", `${name}=${value.text}`)
    else if (EXEC_ENV.has(name)) {
      if (!value.resolved) guard(segment, "env-executes", `${name}=${value.text}`)
      else if (value.text.trim().length > 0) run(value.text)
    }
  }
}
