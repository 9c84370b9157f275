/**
 * Package managers and container tools: global options before the subcommand are moved after it
 * (`npm --workspace=x publish` is `npm publish --workspace=x`, `docker --context prod push` is
 * `docker push --context prod`) so publishing rules see the subcommand; `docker run` bind mounts
 * are writes of their source and host namespaces or privileges ask.
 *
 * @internal
 */
import type { Word } from "../shellSyntax.js"
import { type Analyzer, guard, isFlag, joinArgv, type Segment } from "./model.js"
import { addPath } from "./paths.js"
import type { ProgramSpec } from "./programs.js"

const VALUED_GLOBALS: Record<string, ReadonlySet<string>> = {
  npm: new Set(["-w", "--workspace", "--prefix", "-C", "--registry", "--userconfig", "--cache", "--loglevel", "--otp"]),
  pnpm: new Set(["-C", "--dir", "--filter", "-F", "--workspace-dir", "--reporter", "--loglevel"]),
  yarn: new Set(["--cwd", "--registry"]),
  bun: new Set(["--cwd", "-c", "--config"]),
  docker: new Set([
    "--context",
    "-c",
    "-H",
    "--host",
    "--config",
    "-l",
    "--log-level",
    "--tlscacert",
    "--tlscert",
    "--tlskey"
  ]),
  podman: new Set(["--connection", "-c", "--url", "--root", "--runroot", "--log-level", "--storage-driver"])
}

/** The argv with global options moved after the subcommand (for matching). @internal */
export const subcommandFirst = (name: string, args: ReadonlyArray<Word>): ReadonlyArray<Word> => {
  const valued = VALUED_GLOBALS[name]
  if (valued === undefined) return args
  let i = 0
  while (i < args.length && args[i]!.resolved && isFlag(args[i]!.text)) {
    const text = args[i]!.text
    i += !text.includes("=") && valued.has(text) ? 2 : 1
  }
  if (i === 0 || i >= args.length) return args
  return [args[i]!, ...args.slice(i + 1), ...args.slice(0, i)]
}

/** `docker run|create|exec` (and `container run|…`): the operands are the image and the container's argv. @internal */
export const runsContainer = (name: string, args: ReadonlyArray<Word>): boolean => {
  if (name !== "docker" && name !== "podman") return false
  const sub = args[0]?.text === "container" ? args[1]?.text : args[0]?.text
  return sub === "run" || sub === "create" || sub === "exec"
}

/** How a container run's operands are read: text (`docker run img ls /w` lists `/w` in the container). @internal */
export const CONTAINER_ARGV: ProgramSpec = { operands: "text" }

const HOST_NAMESPACES = /^--(?:pid|net|network|ipc|uts|userns|cgroupns)=host$/

/** `docker run`/`create`: bind mounts and host privileges. @internal */
export const analyzeContainer = (
  analyzer: Analyzer,
  segment: Segment,
  name: string,
  given: ReadonlyArray<Word>
): void => {
  // `docker container run` is `docker run`
  const args = given[0]?.text === "container" ? given.slice(1) : given
  const sub = args[0]?.text
  if (sub !== "run" && sub !== "create" && sub !== "exec") return
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!
    const text = arg.text
    if (
      text === "--privileged" || HOST_NAMESPACES.test(text) || /^--(?:cap-add|device|security-opt)(?:=|$)/.test(text)
    ) {
      guard(segment, "privilege", `${name} ${sub} ${text}`)
    }
    if (/^--(?:pid|net|network|ipc|uts|userns)$/.test(text) && args[i + 1]?.text === "host") {
      guard(segment, "privilege", `${name} ${sub} ${text} host`)
    }
    let mount: string | null = null
    if (text === "-v" || text === "--volume") mount = args[++i]?.text.split(":")[0] ?? null
    else if (text.startsWith("--volume=")) mount = text.slice(9).split(":")[0] ?? null
    else if (text.startsWith("-v") && text.length > 2) mount = text.slice(2).split(":")[0] ?? null
    else if (text === "--mount" || text.startsWith("--mount=")) {
      const value = text === "--mount" ? args[++i]?.text ?? "" : text.slice(8)
      const source = /(?:^|,)(?:src|source)=([^,]*)/.exec(value)
      mount = source === null ? null : source[1]!
    }
    // A bind mount hands the container read and write access to its source.
    if (mount !== null && (mount.startsWith("/") || mount.startsWith(".") || mount.startsWith("~"))) {
      addPath(analyzer, segment, "write", { text: mount, resolved: arg.resolved })
    }
  }
  segment.canonical ||= joinArgv(name, args)
}
