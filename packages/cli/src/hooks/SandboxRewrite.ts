/**
 * The rewrite that puts an agent's own shell command inside Steward's sandbox: the command the
 * client runs instead is `steward sandbox --workspace W --level L -- bash -c '<command>'`, every
 * word single-quoted for the client's shell (a quote inside becomes `'\''`), so the original
 * command reaches `bash -c` byte for byte and nothing in it is expanded on the way.
 *
 * @since 0.3.0
 */
import type * as Autonomy from "@steward/governance-rules/Autonomy"

/**
 * One word, single-quoted for a POSIX shell.
 *
 * @since 0.3.0
 * @category utils
 */
export const quote = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`

/**
 * How the hook starts Steward: the Node executable and the CLI entry it runs from.
 *
 * @since 0.3.0
 * @category models
 */
export interface Launcher {
  readonly node: string
  readonly entry: ReadonlyArray<string>
}

/**
 * The command line that runs `command` inside the sandbox.
 *
 * @since 0.3.0
 * @category rewriting
 */
export const wrap = (
  launcher: Launcher,
  options: {
    readonly workspace: string
    readonly level: Autonomy.Level
    readonly command: string
    /** The policy file whose `sandbox` section applies. */
    readonly rules?: string | null | undefined
  }
): string =>
  [
    launcher.node,
    ...launcher.entry,
    "sandbox",
    "--workspace",
    options.workspace,
    "--level",
    options.level,
    ...(options.rules === undefined || options.rules === null ? [] : ["--rules", options.rules]),
    "--",
    "bash",
    "-c",
    options.command
  ].map(quote).join(" ")
