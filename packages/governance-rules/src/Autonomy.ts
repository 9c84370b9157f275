/**
 * Autonomy levels as real state, and the rule data each level brings: the **universal** layer
 * (every level; nothing can loosen it) and the **level baseline**.
 *
 * | level | routine shell | file writes | network | publishing, secrets, outside the workspace |
 * | --- | --- | --- | --- | --- |
 * | `read_only` | read-only commands only (others denied) | denied | ask | ask |
 * | `assist` | read-only commands; others ask | ask | ask | ask |
 * | `execute` (default) | allowed; inline code, shells reading stdin, remote shells, `git clean -f`, `git reset --hard` ask | allowed | ask | ask |
 * | `autonomous` | allowed | allowed | allowed | ask |
 *
 * Universal denies at every level: deleting the filesystem root or home recursively (every
 * spelling), `mkfs`, raw writes to block devices, force-push in every form, the cloud metadata
 * address in every encoding.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { INTERPRETERS, SHELLS } from "./internal/analyze/programs.js"
import { GLOBAL_CONFIG, PUBLISH, PUBLISH_EXCEPT, REMOTE_CHANGES, SECRET_COMMANDS } from "./internal/intents.js"
import * as Network from "./internal/network.js"
import * as ProtectedPaths from "./ProtectedPaths.js"
import type { Action, RuleEffect } from "./Rule.js"
import * as Rule from "./Rule.js"

/**
 * @since 0.1.0
 * @category models
 */
export const Level = Schema.Literal("read_only", "assist", "execute", "autonomous")

/**
 * @since 0.1.0
 * @category models
 */
export type Level = typeof Level.Type

/**
 * All levels, least to most autonomous.
 *
 * @since 0.1.0
 * @category models
 */
export const levels: ReadonlyArray<Level> = ["read_only", "assist", "execute", "autonomous"]

/**
 * The default level: routine work proceeds, anything leaving the machine asks.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultLevel: Level = "execute"

const rule = (
  id: string,
  action: Action | "*",
  resource: string,
  effect: RuleEffect,
  note?: string,
  except?: ReadonlyArray<string>
): Rule.Rule =>
  Rule.make({
    id,
    action,
    resource,
    effect,
    ...(note === undefined ? {} : { note }),
    ...(except === undefined ? {} : { except })
  })

const both = (id: string, resource: string, effect: RuleEffect, note: string, except?: ReadonlyArray<string>) => [
  rule(`${id}.read`, "read", resource, effect, note, except),
  rule(`${id}.write`, "write", resource, effect, note, except)
]

const BLOCK_DEVICES =
  "/dev/{sd*,hd*,vd*,xvd*,nvme*,mmcblk*,disk*,dm-*,md*,loop*,sr*,nbd*,zd*,mtd*,rbd*,drbd*,bcache*,zram*,ram*,sg*,mapper/**,disk/**,zvol/**,mem,kmem,port}"

const ENV_EXAMPLES = ProtectedPaths.templateNames.map((glob) => `**/${glob}`)

// Secret files by name come from the one list the sandbox masks from (`ProtectedPaths`); the
// rest are places that hold credentials whatever the file is called.
const SECRET_PATHS: ReadonlyArray<readonly [string, string]> = [
  ...ProtectedPaths.secretNames.map(([id, glob]) => [id, `**/${glob}`] as const),
  ["ssh-key-public", "**/id_{rsa,dsa,ecdsa,ed25519}*"],
  ["ssh-dir", "**/.ssh/**"],
  ["aws", "**/.aws/{credentials,config}"],
  ["npmrc", "**/.npmrc"],
  ["docker-config", "**/.docker/config.json"],
  ["kube-config", "**/.kube/config"],
  ["gh-hosts", "**/.config/gh/hosts.yml"],
  ["gcloud", "**/.config/gcloud/**"],
  ["azure", "**/.azure/**"],
  ["gnupg", "**/.gnupg/**"],
  ["password-store", "**/.password-store/**"],
  ["proc-environ", "/proc/*/environ"],
  ["direnv", "**/.envrc"],
  ["shadow", "/etc/{shadow,gshadow,sudoers}"]
]

// Files whose content something runs later or that hold the gate's own state: the protected list
// the sandbox mounts read-only (`ProtectedPaths`), a directory with everything under it; and the
// git directory itself as a destination (extracting or copying into it installs hooks and config).
const RUNS_LATER: ReadonlyArray<readonly [string, string]> = [
  ...ProtectedPaths.workspaceProtected.map((entry) => {
    const where = `**/${entry.path.replaceAll("/*/", "/**/")}`
    return [
      entry.path.replaceAll("/*", "").replace(/^\./, ""),
      entry.kind === "dir" ? `${where}{,/**}` : where
    ] as const
  }),
  ["git-dir", "**/.git"]
]

const LOOPBACK = ["localhost", "127.0.0.1", "\\[::1\\]"]

// The metadata hosts as URL hosts in glob syntax (IPv6 in escaped brackets).
const METADATA = [...Network.METADATA_HOSTS].map((host) => host.includes(":") ? `\\[${host}\\]` : host)

/**
 * The universal layer: evaluated with deny-overrides (any matching deny wins, then any ask) and
 * combined above every other layer, so no level or user rule can loosen it.
 *
 * @since 0.1.0
 * @category rules
 */
export const universalRules: ReadonlyArray<Rule.Rule> = [
  rule("universal.rm-root", "shell", "rm *-r* /", "deny", "recursive delete of the filesystem root"),
  rule("universal.rm-home", "shell", "rm *-r* ~", "deny", "recursive delete of the home directory"),
  rule("universal.mkfs", "shell", "mkfs*", "deny", "formats a filesystem"),
  rule("universal.mke2fs", "shell", "mke2fs *", "deny", "formats a filesystem"),
  rule("universal.block-device-write", "write", BLOCK_DEVICES, "deny", "raw write to a block device"),
  rule("universal.force-push", "shell", "git push --force*", "deny", "force-push rewrites shared history"),
  ...METADATA.map((host, i) =>
    rule(
      `universal.cloud-metadata.${i}`,
      "fetch",
      `*://${host}{,:*}/**`,
      "deny",
      "cloud instance metadata (credentials)"
    )
  ),
  ...PUBLISH.map(([id, pattern]) =>
    rule(`universal.publish.${id}`, "shell", pattern, "ask", "publishing leaves the machine", PUBLISH_EXCEPT[id])
  ),
  ...RUNS_LATER.map(([id, pattern]) =>
    rule(
      `universal.runs-later.${id}`,
      "write",
      pattern,
      "ask",
      "a file whose content runs later (hooks, config, tasks) or the gate's own state"
    )
  ),
  ...SECRET_PATHS.flatMap(([id, pattern]) =>
    both(`universal.secret.${id}`, pattern, "ask", "secrets", id.startsWith("env") ? ENV_EXAMPLES : undefined)
  ),
  rule("universal.secret.env-dump", "shell", "env", "ask", "prints the environment (secrets)"),
  // Out of the sandbox's reach (ADR 0214): committed secrets, hooks installed by a template.
  rule(
    "universal.secret.git-object",
    "shell",
    "git {show,cat-file,archive} *.env*",
    "ask",
    "reads a committed secret through git's object store",
    ["git * *.env.{example,sample,template,dist,defaults}*"]
  ),
  rule(
    "universal.runs-later.git-template",
    "shell",
    "git {clone,init} *--template*",
    "ask",
    "a template directory installs git hooks that run later"
  ),
  rule("universal.secret.printenv", "shell", "printenv *", "ask", "prints the environment (secrets)", [
    "printenv {PATH,HOME,SHELL,USER,LOGNAME,PWD,LANG,LC_ALL,TERM,TZ,HOSTNAME,NODE_ENV,CI,TMPDIR,GOPATH,JAVA_HOME}"
  ]),
  ...SECRET_COMMANDS.map(([id, pattern, note]) => rule(`universal.secret.${id}`, "shell", pattern, "ask", note)),
  ...REMOTE_CHANGES.map(([id, pattern]) =>
    rule(`universal.remote-change.${id}`, "shell", pattern, "ask", "changes or destroys state outside the workspace")
  ),
  ...GLOBAL_CONFIG.map(([id, pattern, except]) =>
    rule(
      `universal.global-config.${id}`,
      "shell",
      pattern,
      "ask",
      "writes configuration outside the workspace (every later command reads it)",
      except
    )
  ),
  ...both("universal.outside-workspace", "/**", "ask", "outside the workspace"),
  ...both("universal.outside-workspace.home", "~", "ask", "outside the workspace")
]

const READ_ONLY_COMMANDS = [
  ...("ls cat head tail less more grep egrep fgrep rg ag wc sort uniq cut diff cmp file stat du df pwd").split(" "),
  ...("echo printf which type tree basename dirname realpath readlink date whoami id uname hostname jq true false test sha256sum sha1sum md5sum find")
    .split(" "),
  "git status",
  "git log",
  "git diff",
  "git show",
  "git blame",
  "git rev-parse",
  "git ls-files",
  "git describe",
  "git branch --list",
  "git remote -v",
  "git config --get",
  "git config --get-all",
  "git config --list",
  "git config -l",
  // prints only what it is told to (`-n`); `-i`, `w` and `e` scripts are writes and guards
  "sed -n",
  // marks a variable exported; a value that executes is guarded
  "export"
]

const readOnlyShell = (level: string) =>
  READ_ONLY_COMMANDS.map((command) =>
    rule(`${level}.shell.${command.replace(/\s+/g, "-")}`, "shell", `${command} *`, "allow", "read-only command")
  )

const EXECUTE_ASKS: ReadonlyArray<readonly [string, string, string]> = [
  ["python-c", "python* -c *", "inline interpreter code"],
  ["python-stdin", "python* -", "interpreter reading code from stdin"],
  ["python-bare", "python", "interpreter reading code from stdin"],
  ["python3-bare", "python3", "interpreter reading code from stdin"],
  ["node-e", "node -e *", "inline interpreter code"],
  ["node-eval", "node --eval *", "inline interpreter code"],
  ["node-p", "node -p *", "inline interpreter code"],
  ["node-print", "node --print *", "inline interpreter code"],
  ["node-bare", "node", "interpreter reading code from stdin"],
  ["perl-e", "perl *-*[eE]*", "inline interpreter code"],
  ["ruby-e", "ruby -e *", "inline interpreter code"],
  ["php-r", "php -r *", "inline interpreter code"],
  ["deno-eval", "deno eval *", "inline interpreter code"],
  ["bun-e", "bun -e *", "inline interpreter code"],
  ["bun-eval", "bun --eval *", "inline interpreter code"],
  ["osascript", "osascript -e *", "inline interpreter code"],
  ["awk-system", "*awk *system(*", "awk program runs commands"],
  ["awk-pipe", "*awk *|*", "awk program pipes to or from commands"],
  ["sh-stdin", "sh", "shell reading a script from stdin"],
  ["bash-stdin", "bash", "shell reading a script from stdin"],
  ["zsh-stdin", "zsh", "shell reading a script from stdin"],
  ["dash-stdin", "dash", "shell reading a script from stdin"],
  ["ksh-stdin", "ksh", "shell reading a script from stdin"],
  ["fish-stdin", "fish", "shell reading a script from stdin"],
  ["source-stdin", "{source,.}", "a script read from stdin"],
  ["at", "{at,batch} *", "a job that runs later"],
  ["gh", "gh *", "the GitHub CLI leaves the machine"],
  ["cloud-cli", "{aws,gcloud,gsutil,az,rclone,s3cmd} *", "a cloud CLI leaves the machine"],
  ["cluster-cli", "{kubectl,helm,k9s,kubectx,oc} *", "a cluster CLI reaches a remote API"],
  ["openssl-connect", "openssl s_client *", "raw network connection"],
  ["ssh", "ssh *", "remote shell leaves the machine"],
  ["scp", "scp *", "remote copy leaves the machine"],
  ["sftp", "sftp *", "remote copy leaves the machine"],
  ["rsync-remote", "rsync *:*", "remote copy leaves the machine"],
  ["nc", "nc *", "raw network connection"],
  ["ncat", "ncat *", "raw network connection"],
  ["netcat", "netcat *", "raw network connection"],
  ["telnet", "telnet *", "raw network connection"],
  ["ftp", "ftp *", "raw network connection"],
  ["socat", "socat *", "raw network connection"],
  ["git-clean", "git clean *-f*", "git clean -f deletes untracked work"],
  ["git-reset-hard", "git reset --hard *", "git reset --hard discards work"],
  ["git-checkout-all", "git checkout {,-- }.", "checking out every path discards uncommitted work"],
  ["git-restore-all", "git restore *.", "restoring every path discards uncommitted work"],
  ["git-stash-clear", "git stash {clear,drop}*", "dropping stashes discards saved work"],
  ["git-rm-all", "git rm *-*f* {.,./,:/,:/:}", "forced removal of every path discards uncommitted work"],
  ["sudo-shell", "sudo *", "interactive root shell"]
]

// Every other shell reading stdin, every interpreter's inline code and stdin (from the tables).
const INLINE_ASKS: ReadonlyArray<readonly [string, string, string]> = [
  ...[...SHELLS.keys()]
    .filter((name) => !["sh", "bash", "zsh", "dash", "ksh", "fish"].includes(name))
    .map((name) => [`${name}-stdin`, name, "shell reading a script from stdin"] as const),
  ...[...INTERPRETERS.entries()].flatMap(([name, spec]) => [
    [`${name}-inline`, `${name} ${spec.canonical} *`, "inline interpreter code"] as const,
    [`${name}-stdin-dash`, `${name} -`, "interpreter reading code from stdin"] as const
  ])
]

const UNREADABLE_CODE = new Set([
  "inline interpreter code",
  "interpreter reading code from stdin",
  "shell reading a script from stdin",
  "a script read from stdin",
  "awk program runs commands",
  "awk program pipes to or from commands"
])

/**
 * The `execute` asks that exist only because the engine cannot read the code a command runs: the
 * sandbox contains them (`Placement`); every other level ask names an intent and stays an ask.
 *
 * @since 0.1.0
 * @category rules
 */
export const unreadableCodeAsks: ReadonlySet<string> = new Set(
  [...EXECUTE_ASKS, ...INLINE_ASKS].filter(([, , note]) => UNREADABLE_CODE.has(note)).map(([id]) =>
    `execute.shell.${id}`
  )
)

/**
 * The level baseline. Evaluated last-match-wins inside the layer; combined deny-overrides with the
 * other layers, so project/user rules can tighten it or grant what it leaves unsaid, but not
 * loosen what it says.
 *
 * @since 0.1.0
 * @category rules
 */
export const baselineRules = (level: Level): ReadonlyArray<Rule.Rule> => {
  switch (level) {
    case "read_only":
      return [
        rule("read_only.read", "read", "**", "allow", "reading is allowed"),
        rule("read_only.write", "write", "**", "deny", "read_only: no writes"),
        rule("read_only.shell", "shell", "*", "deny", "read_only: only read-only commands"),
        ...readOnlyShell("read_only"),
        rule("read_only.agent", "agent", "*", "deny", "read_only: no subagents")
      ]
    case "assist":
      return [
        rule("assist.read", "read", "**", "allow", "reading is allowed"),
        ...readOnlyShell("assist")
      ]
    case "execute":
      return [
        rule("execute.read", "read", "**", "allow", "reading is allowed"),
        rule("execute.write", "write", "**", "allow", "routine work proceeds"),
        rule("execute.shell", "shell", "*", "allow", "routine work proceeds"),
        rule("execute.agent", "agent", "*", "allow", "subagents inherit the caller's rules"),
        ...LOOPBACK.map((host, i) =>
          rule(
            `execute.fetch.loopback.${i}`,
            "fetch",
            `*://${host}{:*,}/**`,
            "allow",
            "loopback does not leave the machine"
          )
        ),
        ...EXECUTE_ASKS.map(([id, pattern, note]) => rule(`execute.shell.${id}`, "shell", pattern, "ask", note)),
        ...INLINE_ASKS.map(([id, pattern, note]) => rule(`execute.shell.${id}`, "shell", pattern, "ask", note)),
        // `python3 -m http.server` listens on every interface unless bound to loopback
        rule(
          "execute.shell.serve-workspace",
          "shell",
          "http.server *",
          "ask",
          "serves the workspace (and its secrets) to the network",
          ["http.server *{-b,--bind}{ ,=}{127.0.0.1,localhost,::1}*"]
        ),
        // a cluster CLI's subcommands that never reach the cluster
        rule(
          "execute.shell.cluster-local",
          "shell",
          "{kubectl version --client,kubectl completion,kubectl kustomize,helm {template,lint,create,package,show,version,completion}} *",
          "allow",
          "renders or checks files locally"
        )
      ]
    case "autonomous":
      return [
        rule("autonomous.all", "*", "**", "allow", "autonomous: everything the universal layer does not stop"),
        rule("autonomous.shell", "shell", "*", "allow", "autonomous: everything the universal layer does not stop")
      ]
  }
}
