/**
 * The one list of paths that stay out of a command's reach even inside the workspace: files whose
 * content runs code later or holds the gate's own state (**protected**: read-only), and files that
 * hold secrets (**masked**: unreadable). The sandbox mounts from this list and the gate (issue 32)
 * decides writes from it, so the boundary and the rules can never disagree about what is protected.
 *
 * @example
 * ```ts
 * import { ProtectedPaths } from "@steward/governance-rules"
 *
 * ProtectedPaths.isSecretName(".env.local") // true
 * ProtectedPaths.isSecretName(".env.example") // false
 * ProtectedPaths.workspaceProtected.some((entry) => entry.path === ".git/hooks") // true
 * ```
 *
 * @since 0.1.0
 */

/**
 * One protected or masked path: relative to the workspace (or the home directory), what it is when
 * it is missing (`dir` or `file`: the sandbox holds a missing path's place with an empty one of
 * that kind so the command cannot create it), and why it is protected.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly path: string
  readonly kind: "dir" | "file"
  readonly why: string
  /**
   * What a missing file's placeholder holds when an empty one would change what reads it: git
   * reads `.git/commondir` whenever it exists, and `.` names the repository itself.
   */
  readonly placeholder?: string
}

const entry = (path: string, kind: "dir" | "file", why: string, placeholder?: string): Entry => ({
  path,
  kind,
  why,
  ...(placeholder === undefined ? {} : { placeholder })
})

const RUNS_CODE = "its content runs code later"
const AGENT_CONFIG = "an agent's configuration (hooks, commands, MCP servers run code)"
const EDITOR = "editor configuration (tasks and settings run code)"
const BUILD = "a build tool's configuration that runs code"

/**
 * Workspace paths that stay read-only inside the boundary, existing or not. `.git` entries apply
 * when `.git` is a directory; a workspace with no `.git` keeps `.git` itself from being created
 * (a repository created inside the boundary would bring hooks and config that run later).
 * Entries ending in `/*` followed by a name (`.git/modules/* /config`) are resolved against what
 * exists.
 *
 * @since 0.1.0
 * @category constants
 */
export const workspaceProtected: ReadonlyArray<Entry> = [
  entry(".git/hooks", "dir", "git runs hooks on commit, checkout, merge and push"),
  entry(".git/config", "file", "git config runs programs (core.fsmonitor, core.pager, aliases, filters)"),
  entry(".git/config.worktree", "file", "per-worktree git config runs programs"),
  entry(".git/commondir", "file", "redirects git to another repository's hooks and config", ".\n"),
  entry(".git/info/attributes", "file", "selects filter and diff drivers that run programs"),
  entry(".git/modules/*/config", "file", "a submodule's git config runs programs"),
  entry(".gitmodules", "file", "submodule URLs and update commands"),
  entry(".steward", "dir", "the gate's own policy and state"),
  entry(".claude", "dir", AGENT_CONFIG),
  entry(".codex", "dir", AGENT_CONFIG),
  entry(".gemini", "dir", AGENT_CONFIG),
  entry(".cursor", "dir", AGENT_CONFIG),
  entry(".mcp.json", "file", AGENT_CONFIG),
  entry(".vscode", "dir", EDITOR),
  entry(".idea", "dir", EDITOR),
  entry(".devcontainer", "dir", "a dev container definition runs code on the host"),
  entry(".husky", "dir", RUNS_CODE),
  entry(".githooks", "dir", RUNS_CODE),
  entry(".github/workflows", "dir", "CI workflows run with the repository's secrets"),
  entry(".envrc", "file", "direnv runs it on entering the directory"),
  entry(".yarnrc.yml", "file", BUILD),
  entry(".yarnrc", "file", BUILD),
  entry(".pnpmfile.cjs", "file", BUILD),
  entry("bunfig.toml", "file", BUILD),
  entry(".npmrc", "file", `${BUILD} (and registry tokens)`),
  entry(".bazelrc", "file", BUILD),
  entry(".pre-commit-config.yaml", "file", RUNS_CODE)
]

/**
 * Home-directory paths masked inside the boundary (credentials and agents' sockets).
 *
 * @since 0.1.0
 * @category constants
 */
export const homeMasked: ReadonlyArray<Entry> = [
  entry(".ssh", "dir", "SSH keys"),
  entry(".aws", "dir", "cloud credentials"),
  entry(".azure", "dir", "cloud credentials"),
  entry(".config/gcloud", "dir", "cloud credentials"),
  entry(".config/gh", "dir", "GitHub tokens"),
  entry(".npmrc", "file", "registry tokens"),
  entry(".pypirc", "file", "registry tokens"),
  entry(".docker/config.json", "file", "registry credentials"),
  entry(".kube", "dir", "cluster credentials"),
  entry(".netrc", "file", "credentials"),
  entry(".git-credentials", "file", "credentials"),
  entry(".gnupg", "dir", "signing keys and the agent socket"),
  entry(".password-store", "dir", "credentials")
]

/**
 * Secret files by name (a glob over the file name, not the path): the sandbox masks the files
 * whose name matches, and the gate asks before reading or writing them (`universal.secret.<id>`).
 * Their committed templates (`templateNames`) are meant to be read.
 *
 * @since 0.1.0
 * @category constants
 */
export const secretNames: ReadonlyArray<readonly [id: string, glob: string]> = [
  ["env", ".env"],
  ["env-variant", ".env.*"],
  ["env-suffix", "*.env"],
  ["pem", "*.pem"],
  ["key", "*.key"],
  ["pkcs12", "*.{p12,pfx}"],
  ["ssh-key", "id_{rsa,dsa,ecdsa,ed25519}"],
  ["netrc", ".netrc"],
  ["pypirc", ".pypirc"],
  ["git-credentials", ".git-credentials"],
  ["credentials-json", "credentials{,.json}"],
  ["putty-key", "*.ppk"],
  ["htpasswd", ".htpasswd"],
  ["keepass", "*.kdbx"],
  ["terraform-state", "*.tfstate{,.backup}"],
  ["cloudflare-dev-vars", ".dev.vars"],
  ["mysql-client", ".my.cnf"],
  ["s3cmd", ".s3cfg"],
  ["gcloud-action-creds", "gha-creds-*.json"]
]

/**
 * Committed templates of a secret file (`.env.example`): their content is meant to be read.
 *
 * @since 0.1.0
 * @category constants
 */
export const templateNames: ReadonlyArray<string> = [
  ".env.{example,sample,template,dist,defaults}",
  "*.env.example"
]

// The same globs as one expression each (names only: `*` never crosses a `/`).
const globToRegExp = (globs: ReadonlyArray<string>): RegExp => {
  const one = (glob: string): string => {
    let out = ""
    for (let i = 0; i < glob.length; i++) {
      const c = glob[i]!
      if (c === "*") out += "[^/]*"
      else if (c === "?") out += "[^/]"
      else if (c === "{") {
        const close = glob.indexOf("}", i)
        out += `(?:${glob.slice(i + 1, close).split(",").map(one).join("|")})`
        i = close
      } else out += c.replace(/[.+^$()|[\]\\]/g, "\\$&")
    }
    return out
  }
  return new RegExp(`^(?:${globs.map(one).join("|")})$`)
}

const SECRET_NAME = globToRegExp(secretNames.map(([, glob]) => glob))
const TEMPLATE_NAME = globToRegExp(templateNames)

/**
 * Whether a file name (not a path) holds secrets: `.env` and its variants but not their templates
 * (`.env.example`), keys, certificates' private parts, credential files (`secretNames`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name) && !TEMPLATE_NAME.test(name)

/**
 * Directories a workspace scan for secrets does not descend into: installed dependencies and build
 * output (large, and not the user's secrets), and `.git` (objects, not files).
 *
 * @since 0.1.0
 * @category constants
 */
export const scanSkips: ReadonlySet<string> = new Set([
  ".git",
  "node_modules",
  ".pnpm-store",
  ".venv",
  "venv",
  "__pycache__",
  "target",
  "dist",
  "build",
  ".next",
  ".turbo",
  "vendor"
])
