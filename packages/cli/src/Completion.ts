/**
 * `steward completion bash|zsh|fish`: a completion script generated from the command tree (every
 * area's commands and each command's options), printed on stdout to be sourced:
 * `source <(steward completion bash)`, `steward completion fish | source`. zsh runs the bash
 * function through `bashcompinit`. Words that are not commands (option values, arguments) do not
 * move the completion along the tree.
 *
 * @since 0.4.0
 */
import type { CommandSpec } from "./CommandSpec.js"

/**
 * @since 0.4.0
 * @category models
 */
export const shells = ["bash", "zsh", "fish"] as const

/**
 * @since 0.4.0
 * @category models
 */
export type Shell = (typeof shells)[number]

/** The words that may follow each command path (`"steward"`, `"steward audit next"` …). */
const table = (root: CommandSpec, extra: ReadonlyArray<string>): ReadonlyArray<readonly [string, string]> => {
  const rows: Array<readonly [string, string]> = []
  const walk = (spec: CommandSpec, key: string) => {
    const words = [
      ...spec.children.map((c) => c.name),
      ...(spec.path.length === 1 ? extra : []),
      ...spec.options.flatMap((o) => o.names),
      "--help"
    ]
    rows.push([key, [...new Set(words)].join(" ")])
    for (const child of spec.children) walk(child, `${key} ${child.name}`)
  }
  walk(root, root.name)
  return rows
}

// Every word the tree holds is a command or option name: letters, digits, `-`, `_`, `.`.
const safe = (word: string) => word.replace(/[^\w .-]/g, "")

const bash = (rows: ReadonlyArray<readonly [string, string]>): string =>
  [
    "# steward completion (bash); load with: source <(steward completion bash)",
    "_steward() {",
    "  local -A next=(",
    ...rows.map(([key, words]) => `    [${JSON.stringify(safe(key))}]=${JSON.stringify(safe(words))}`),
    "  )",
    "  local path=steward w i",
    "  for ((i = 1; i < COMP_CWORD; i++)); do",
    "    w=\"${COMP_WORDS[i]}\"",
    "    [[ \"$w\" == -* ]] && continue",
    "    if [[ -n \"${next[\"$path $w\"]+set}\" ]]; then path=\"$path $w\"; fi",
    "  done",
    "  COMPREPLY=($(compgen -W \"${next[\"$path\"]}\" -- \"${COMP_WORDS[COMP_CWORD]}\"))",
    "}",
    "complete -F _steward steward",
    ""
  ].join("\n")

const fish = (rows: ReadonlyArray<readonly [string, string]>): string =>
  [
    "# steward completion (fish); load with: steward completion fish | source",
    "function __steward_next",
    "  switch $argv[1]",
    ...rows.flatMap(([key, words]) => [`    case ${JSON.stringify(safe(key))}`, `      echo ${safe(words)}`]),
    "  end",
    "end",
    "function __steward_complete",
    "  set -l path steward",
    "  for w in (commandline -opc)[2..-1]",
    "    string match -q -- '-*' $w; and continue",
    "    set -l candidate \"$path $w\"",
    "    set -l found (__steward_next $candidate)",
    "    test -n \"$found\"; and set path $candidate",
    "  end",
    "  string split ' ' -- (__steward_next $path)",
    "end",
    "complete -c steward -f -a '(__steward_complete)'",
    ""
  ].join("\n")

/**
 * The completion script of `shell` for the tree under `root`; `extra`: the root's own words
 * (`help`, `completion`, `--version`).
 *
 * @since 0.4.0
 * @category rendering
 */
export const script = (shell: Shell, root: CommandSpec, extra: ReadonlyArray<string>): string => {
  const rows = table(root, extra)
  switch (shell) {
    case "bash":
      return bash(rows)
    case "zsh":
      return [
        "# steward completion (zsh); load with: source <(steward completion zsh)",
        "autoload -U +X bashcompinit && bashcompinit",
        bash(rows).split("\n").slice(1).join("\n")
      ].join("\n")
    case "fish":
      return fish(rows)
  }
}
