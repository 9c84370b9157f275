/**
 * The programs the engine knows, as data: which options take a value, which run a command or
 * inline code, which write or read a file, and what the operands are. A program that is not here
 * (and is not a shell, interpreter, wrapper or a file in the workspace) is unknown, so it asks.
 * `test/Programs.test.ts` holds each row to its meaning.
 *
 * @internal
 */
import type { OptionSpec } from "./model.js"

/** What a program's operands are. @internal */
export type Operands =
  /** Text, never files (`echo`, `sleep`). */
  | "text"
  /** Files read. */
  | "read"
  /** The first operand is a pattern, program or filter; the rest are files read. */
  | "pattern-read"
  /** Files written (or removed). */
  | "write"
  /** The first operand is a mode or owner; the rest are written. */
  | "write-after-first"
  /** The last operand is written; the others are read. */
  | "write-last"
  /** `uniq IN OUT`: the second operand is written. */
  | "second-written"
  /** Not files unless they look like paths (the default for known programs). */
  | "maybe-paths"

/** One known program. @internal */
export interface ProgramSpec {
  readonly options?: OptionSpec
  readonly operands?: Operands
  /** Options whose value is a shell command the program runs. */
  readonly runs?: ReadonlyArray<string>
  /** Options whose value is inline code or a tool command the engine cannot read. */
  readonly code?: ReadonlyArray<string>
  /** Options whose value is a file or directory written. */
  readonly writes?: ReadonlyArray<string>
  /** Options whose value is a file read. */
  readonly reads?: ReadonlyArray<string>
  /** Options whose value is a file of commands the program runs (`make -f`): stdin there is unreadable code. */
  readonly programFiles?: ReadonlyArray<string>
  /** Single-dash long options (Go, GCC) whose value is a program it runs (`-toolexec`, `-wrapper`). */
  readonly runsArgs?: ReadonlyArray<string>
  /** Options whose value is a glob selecting the files read (`rg -g .env`): a secret name there is read. */
  readonly selects?: ReadonlyArray<string>
  /** Options whose value is `KEY=VALUE` configuration, and the keys whose value runs a program. */
  readonly configs?: readonly [ReadonlyArray<string>, RegExp]
  /** It prints only counts or digests of its files: an operand named by an expansion does not ask. */
  readonly opaque?: boolean
  /** URLs in its arguments are not connected to (it only prints or matches text). */
  readonly textOnly?: boolean
}

const rows = (names: string, spec: ProgramSpec): Array<readonly [string, ProgramSpec]> =>
  names.split(" ").map((name) => [name, spec] as const)

/** @internal */
export const PROGRAMS: ReadonlyMap<string, ProgramSpec> = new Map<string, ProgramSpec>([
  ...rows("echo printf sleep seq expr yes true false : test [ basename dirname date whoami id uname hostname", {
    operands: "text",
    textOnly: true
  }),
  ...rows("pwd nproc uptime free groups locale tput clear cal which whereis type exit return shift wait", {
    operands: "text",
    textOnly: true
  }),
  ...rows("jobs fg bg disown umask ulimit getopts history times suspend logout shopt", { operands: "text" }),
  // counts and digests: what they print reveals nothing of a file's content, so a file named by an
  // expansion (`while read f; do wc -l "$f"; done`) is not a secret read
  ...rows("wc du cksum b2sum md5sum sha1sum sha224sum sha256sum sha384sum sha512sum shasum", {
    options: { short: "dBt", long: ["--max-depth", "--block-size", "--threshold", "--exclude-from", "--files0-from"] },
    operands: "read",
    reads: ["--exclude-from", "--files0-from"],
    opaque: true,
    textOnly: true
  }),
  ...rows("cat tac head tail less more cut paste join nl rev fold fmt column expand unexpand file stat", {
    options: { short: "ncbdfswtkCNL", long: ["--lines", "--bytes", "--delimiter", "--fields", "--width"] },
    operands: "read",
    textOnly: true
  }),
  ...rows("ls df diff cmp comm realpath readlink strings xxd od hexdump base64 base32", {
    options: { short: "IwBt", long: ["--ignore", "--width", "--block-size", "--max-depth"] },
    operands: "read",
    textOnly: true
  }),
  ["sort", {
    options: {
      short: "kotST",
      long: ["--key", "--output", "--field-separator", "--buffer-size", "--temporary-directory"]
    },
    operands: "read",
    writes: ["-o", "--output"],
    textOnly: true
  }],
  ["uniq", {
    options: { short: "fsw", long: ["--skip-fields", "--skip-chars", "--check-chars"] },
    operands: "second-written",
    textOnly: true
  }],
  ["tree", {
    options: { short: "oLPIH", long: ["--filelimit", "--timefmt", "--charset"] },
    operands: "read",
    writes: ["-o"],
    textOnly: true
  }],
  // ripgrep: `--pre CMD` runs CMD on every file, `--hostname-bin CMD` runs CMD; a `-g GLOB` that
  // names a secret reads it (`rg -uu -g .env KEY`)
  ["rg", {
    options: {
      short: "efmABCgtTM",
      long: [
        "--regexp",
        "--file",
        "--max-count",
        "--after-context",
        "--before-context",
        "--context",
        "--glob",
        "--iglob",
        "--type",
        "--type-add",
        "--pre",
        "--pre-glob",
        "--hostname-bin",
        "--ignore-file"
      ]
    },
    operands: "pattern-read",
    reads: ["-f", "--file", "--ignore-file"],
    runs: ["--pre", "--hostname-bin"],
    selects: ["-g", "--glob", "--iglob"],
    textOnly: true
  }],
  ...rows("grep egrep fgrep ag ack", {
    options: {
      short: "efmABCgtTM",
      long: [
        "--regexp",
        "--file",
        "--max-count",
        "--after-context",
        "--before-context",
        "--context",
        "--glob",
        "--type",
        "--include",
        "--exclude",
        "--exclude-dir"
      ]
    },
    operands: "pattern-read",
    reads: ["-f", "--file"],
    selects: ["--include"],
    textOnly: true
  }),
  // `--rawfile NAME FILE`, `--slurpfile NAME FILE` read FILE; `--arg NAME VALUE` takes text
  ...rows("jq yq", {
    options: {
      short: "fL",
      long: ["--from-file", "--indent", "--args", "--jsonargs"],
      pairs: ["--arg", "--argjson", "--slurpfile", "--rawfile"]
    },
    operands: "pattern-read",
    reads: ["-f", "--from-file", "--slurpfile", "--rawfile"],
    textOnly: true
  }),
  ...rows("tr", { operands: "text", textOnly: true }),
  ...rows("rm rmdir unlink shred touch mkdir truncate tee sponge mkswap blkdiscard wipefs mkdosfs mkntfs mkexfatfs", {
    options: { short: "mstn", long: ["--mode", "--size", "--reference", "--iterations"] },
    operands: "write",
    textOnly: true
  }),
  ...rows("chmod chown chgrp", { operands: "write-after-first", options: { long: ["--reference"] }, textOnly: true }),
  ...rows("cp ln install mv", {
    options: { short: "tSmogb", long: ["--target-directory", "--suffix", "--mode", "--owner", "--group", "--backup"] },
    operands: "write-last",
    writes: ["-t", "--target-directory"],
    textOnly: true
  }),
  ["tar", {
    options: {
      short: "fCTXIFbHKLNgV",
      long: [
        "--file",
        "--directory",
        "--files-from",
        "--exclude-from",
        "--use-compress-program",
        "--info-script",
        "--new-volume-script",
        "--checkpoint-action",
        "--to-command",
        "--rsh-command",
        "--exclude",
        "--transform",
        "--owner",
        "--group",
        "--mode",
        "--format",
        "--blocking-factor"
      ]
    },
    operands: "maybe-paths",
    runs: [
      "--to-command",
      "--use-compress-program",
      "-I",
      "--info-script",
      "-F",
      "--new-volume-script",
      "--rsh-command"
    ],
    writes: ["-C", "--directory"]
  }],
  ...rows("gzip gunzip zcat bzip2 bunzip2 xz unxz zstd unzstd lz4 zip unzip 7z", {
    options: { short: "dS", long: ["--suffix"] },
    operands: "maybe-paths"
  }),
  ["patch", {
    options: { short: "pidoBrFz", long: ["--directory", "--input", "--output"] },
    writes: ["-o", "--output"],
    reads: ["-i", "--input"]
  }],
  ["make", {
    options: {
      short: "fCIEjlo",
      long: ["--file", "--directory", "--include-dir", "--eval", "--jobs", "--load-average", "--old-file", "--makefile"]
    },
    code: ["--eval", "-E"],
    programFiles: ["-f", "--file", "--makefile"]
  }],
  ...rows("vim vi nvim view ex gvim", {
    options: { short: "cSTiuUwW", long: ["--cmd", "--servername", "--remote-send", "--remote-expr"] },
    code: ["-c", "--cmd", "-S", "--remote-send", "--remote-expr"],
    writes: ["-w", "-W"]
  }),
  ["emacs", {
    options: { long: ["--eval", "--load", "--funcall", "--execute"] },
    code: ["--eval", "--load", "--funcall", "--execute"]
  }],
  ["ps", { operands: "text", textOnly: true }],
  ["help", { operands: "text", textOnly: true }],
  // Pagers and viewers: the pager or browser they start is a command.
  ["man", {
    options: { short: "PHMCLSsmpeRE", long: ["--pager", "--html", "--manpath", "--config-file", "--sections"] },
    operands: "maybe-paths",
    runs: ["-P", "--pager", "-H", "--html"],
    textOnly: true
  }],
  ["bat", {
    options: { short: "lHrm", long: ["--pager", "--language", "--highlight-line", "--line-range", "--map-syntax"] },
    operands: "read",
    runs: ["--pager"],
    textOnly: true
  }],
  // Development tools: their operands are project names, scripts and paths in the workspace.
  ...rows("npm pnpm yarn bun deno tsc tsx ts-node vitest jest mocha eslint prettier dprint biome turbo nx", {}),
  ...rows(
    "changeset lerna vite webpack esbuild rollup tsup swc babel cmake ninja meson rustc rustup rustfmt",
    {}
  ),
  // `cargo --config 'target.….runner="CMD"'`: a runner, linker or wrapper set there runs
  ["cargo", {
    options: { short: "ZpjF", long: ["--config", "--manifest-path", "--package", "--jobs", "--features", "--target"] },
    configs: [["--config"], /(?:^|\.)(?:runner|linker|rustc|rustc-wrapper|rustc-workspace-wrapper|rustdoc|ar)\s*=/]
  }],
  ["go", { runsArgs: ["-toolexec", "-exec"] }],
  ...rows("gcc g++ cc clang clang++", { runsArgs: ["-wrapper"] }),
  ...rows("gofmt pip pip3 uv poetry pipenv pdm hatch pytest mypy ruff black flake8 isort pylint tox nox", {}),
  ...rows("java javac mvn gradle dotnet ld ar gem bundle rake composer", {}),
  ...rows("docker podman docker-compose kubectl helm terraform tofu git git-lfs curl wget xargs find sed awk", {}),
  ...rows("gawk mawk nawk dd env printenv cd pushd popd export unset set declare typeset local readonly let", {}),
  ...rows("read alias unalias trap hash eval source . command builtin exec time nohup nice mapfile readarray [[", {}),
  ...rows("gh twine aws gcloud gsutil az rclone s3cmd openssl sleep", {}),
  // Python modules run with `python -m` (the module is then the program).
  ...rows("venv json.tool unittest build ensurepip py_compile compileall timeit cProfile doctest http.server", {})
])

/**
 * `cmake -E COMMAND …`: the portable file operations and command runners, as the program each one
 * is (`cmake -E rm -rf /` is `rm -rf /`, `cmake -E env X=1 CMD` is `env X=1 CMD`). The others
 * (`cmake -E echo`, `capabilities`, `sha256sum`) stay `cmake`.
 *
 * @internal
 */
export const CMAKE_COMMANDS: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["rm", ["rm"]],
  ["remove", ["rm", "-f"]],
  ["remove_directory", ["rm", "-r", "-f"]],
  ["env", ["env"]],
  ["chdir", ["env", "-C"]],
  ["copy", ["cp"]],
  ["copy_directory", ["cp", "-r"]],
  ["copy_if_different", ["cp"]],
  ["rename", ["mv"]],
  ["make_directory", ["mkdir", "-p"]],
  ["touch", ["touch"]],
  ["touch_nocreate", ["touch", "-c"]],
  ["create_symlink", ["ln", "-s"]],
  ["create_hardlink", ["ln"]],
  ["tar", ["tar"]],
  ["cat", ["cat"]],
  ["time", ["time"]]
])

/** Programs that take a command to run (wrappers): their own options, then the wrapped argv. @internal */
export interface WrapperSpec {
  readonly options: OptionSpec
  /** Operands to skip before the command (`timeout 5`, `chroot DIR`, `flock FILE`, `taskset MASK`). */
  readonly skip?: number
  /** Options whose value is a shell script (`flock -c`, `script -c`, `sg -c`, `npx -c`). */
  readonly script?: ReadonlyArray<string>
  /** Options after which there is no command to run (`taskset -p PID`). */
  readonly noCommand?: ReadonlyArray<string>
  /** The wrapped command is one shell string (`sg GROUP CMD`, `watch CMD`). */
  readonly joinsRest?: boolean
  /** The wrapped command has no argv, only the script options (`script`'s operand is its log). */
  readonly scriptOnly?: boolean
  /** Runs as another user or with host privileges. */
  readonly privilege?: boolean
  /** Reads its targets from stdin (`xargs`). */
  readonly stdinArgs?: boolean
  /** The wrapped argv is this program and the rest, unparsed (`yarn node -e …` runs `node -e …`). */
  readonly program?: string
  /** Options whose value is a file the wrapper reads (`xargs -a FILE`). */
  readonly reads?: ReadonlyArray<string>
  /** Options whose value is the directory the command runs in (`env -C DIR`). */
  readonly chdir?: ReadonlyArray<string>
  /** Options whose value is replaced by what stdin holds (`xargs -I {}`): words holding it are unknown. */
  readonly replace?: ReadonlyArray<string>
}

const wrap = (short: string, long: ReadonlyArray<string>, extra: Omit<WrapperSpec, "options"> = {}): WrapperSpec => ({
  options: { short, long, stopAtOperand: true },
  ...extra
})

/** @internal */
export const WRAPPERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  [
    "sudo",
    wrap("ughpCDrtTU", [
      "--user",
      "--group",
      "--host",
      "--prompt",
      "--chdir",
      "--role",
      "--type",
      "--other-user",
      "--close-from",
      "--command-timeout"
    ], { privilege: true })
  ],
  ["doas", wrap("uC", [], { privilege: true })],
  ["pkexec", wrap("", ["--user"], { privilege: true })],
  ["chroot", wrap("", ["--userspec", "--groups"], { skip: 1, privilege: true })],
  ["env", wrap("uCSa", ["--unset", "--chdir", "--split-string", "--argv0"], { chdir: ["-C", "--chdir"] })],
  ["timeout", wrap("sk", ["--signal", "--kill-after"], { skip: 1 })],
  ["nice", wrap("n", ["--adjustment"])],
  [
    "ionice",
    wrap("cnpPu", ["--class", "--classdata", "--pid", "--pgid", "--uid"], {
      noCommand: ["-p", "--pid", "-P", "--pgid", "-u", "--uid"]
    })
  ],
  ["nohup", wrap("", [])],
  ["setsid", wrap("", [])],
  ["time", wrap("fo", ["--format", "--output"])],
  ["command", wrap("", [])],
  ["builtin", wrap("", [])],
  ["exec", wrap("a", [])],
  ["coproc", wrap("", [])],
  ["stdbuf", wrap("ioe", ["--input", "--output", "--error"])],
  ["chronic", wrap("", [])],
  ["unbuffer", wrap("", [])],
  ["busybox", wrap("", [])],
  ["corepack", wrap("", [])],
  [
    "xargs",
    wrap("adEILnPsi", [
      "--arg-file",
      "--delimiter",
      "--max-lines",
      "--max-args",
      "--max-procs",
      "--max-chars",
      "--process-slot-var",
      "--eof",
      "--replace"
    ], { stdinArgs: true, reads: ["-a", "--arg-file"], replace: ["-I", "-i", "--replace"] })
  ],
  ["watch", wrap("nd", ["--interval", "--differences"], { joinsRest: true })],
  ["taskset", wrap("", [], { skip: 1, noCommand: ["-p", "--pid"] })],
  ["flock", wrap("wEc", ["--timeout", "--conflict-exit-code", "--command"], { skip: 1, script: ["-c", "--command"] })],
  [
    "strace",
    wrap("oepsuSEIaXbP", ["--output", "--expr", "--attach", "--string-limit", "--user", "--env", "--trace-path"], {
      noCommand: ["-p", "--attach"]
    })
  ],
  ["ltrace", wrap("oepsuaAnDFlLx", ["--output", "--library"], { noCommand: ["-p"] })],
  [
    "script",
    wrap("cEIOBTm", ["--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format"], {
      script: ["-c", "--command"],
      scriptOnly: true
    })
  ],
  ["ssh-agent", wrap("aEtPO", [])],
  ["sg", wrap("c", [], { skip: 1, script: ["-c"], joinsRest: true, privilege: true })],
  [
    "unshare",
    wrap("RwSGl", ["--root", "--wd", "--setuid", "--setgid", "--map-user", "--map-group", "--propagation"], {
      privilege: true
    })
  ],
  [
    "setpriv",
    wrap("", [
      "--reuid",
      "--regid",
      "--euid",
      "--egid",
      "--ruid",
      "--rgid",
      "--groups",
      "--inh-caps",
      "--ambient-caps",
      "--bounding-set",
      "--securebits",
      "--pdeathsig",
      "--selinux-label",
      "--apparmor-profile"
    ], { privilege: true })
  ],
  ["nsenter", wrap("tSGrw", ["--target", "--setuid", "--setgid", "--root", "--wd"], { privilege: true })],
  ["chrt", wrap("T", ["--sched-runtime"], { skip: 1 })],
  ["prlimit", wrap("p", ["--pid"], { noCommand: ["-p", "--pid"] })],
  [
    "systemd-run",
    wrap("pEuMH", [
      "--unit",
      "--property",
      "--description",
      "--slice",
      "--uid",
      "--gid",
      "--working-directory",
      "--setenv",
      "--machine",
      "--host"
    ], { privilege: true })
  ],
  ["faketime", wrap("f", [], { skip: 1 })],
  ["numactl", wrap("CNmpi", ["--physcpubind", "--cpunodebind", "--membind", "--preferred", "--interleave"])],
  ["caffeinate", wrap("tw", [])],
  ["torsocks", wrap("uapP", [])],
  ["proxychains", wrap("f", [])],
  ["proxychains4", wrap("f", [])],
  ["valgrind", wrap("", [])],
  // compiler caches and analysers that run the build they are given
  ["ccache", wrap("", [])],
  ["sccache", wrap("", [])],
  ["distcc", wrap("", [])],
  ["scan-build", wrap("o", ["--use-analyzer", "--use-cc", "--use-c++", "-enable-checker", "-disable-checker"])],
  ["catchsegv", wrap("", [])],
  ["dbus-run-session", wrap("", ["--config-file", "--dbus-daemon"])],
  ["xvfb-run", wrap("nsfep", ["--server-num", "--server-args", "--auth-file", "--error-file"])],
  ["npx", wrap("pc", ["--package", "--call"], { script: ["-c", "--call"] })],
  ["bunx", wrap("p", ["--package"])],
  ["pnpx", wrap("p", ["--package"])],
  ["uvx", wrap("p", ["--from", "--with", "--python"])],
  ["pipx", wrap("", ["--spec", "--python"])]
])

/** Subcommands that run the rest of the argv (`npm exec -- npm publish`, `uv run python -c …`). @internal */
export const RUNNERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  ["npm exec", wrap("pcw", ["--package", "--call", "--workspace"], { script: ["-c", "--call"] })],
  ["npm x", wrap("pcw", ["--package", "--call", "--workspace"], { script: ["-c", "--call"] })],
  ["pnpm exec", wrap("C", ["--dir", "--filter"], { script: ["-c"] })],
  ["pnpm dlx", wrap("", ["--package"])],
  ["yarn exec", wrap("", [])],
  ["yarn dlx", wrap("p", ["--package"])],
  ["bun x", wrap("p", ["--package"])],
  [
    "uv run",
    wrap("p", ["--with", "--python", "--project", "--directory", "--package", "--env-file", "--extra", "--group"])
  ],
  ["uv tool", wrap("", [])],
  ["pipx run", wrap("", ["--spec", "--python"])],
  ["poetry run", wrap("C", ["--directory", "--project"])],
  ["pipenv run", wrap("", [])],
  ["pdm run", wrap("p", ["--project"])],
  ["hatch run", wrap("", [])],
  ["conda run", wrap("np", ["--name", "--prefix", "--cwd"])],
  ["bundle exec", wrap("", [])],
  ["mise exec", wrap("C", ["--cd"])],
  ["mise x", wrap("C", ["--cd"])],
  ["direnv exec", wrap("", [], { skip: 1 })],
  ["corepack npm", wrap("", [])],
  [
    "nix-shell",
    wrap("pI", ["--run", "--command", "--packages", "--arg", "--argstr"], {
      script: ["--run", "--command"],
      scriptOnly: true
    })
  ],
  ["nix develop", wrap("", ["--command", "-c"])],
  ["tox exec", wrap("erc", ["--env", "--conf", "--root", "--workdir", "--override", "-x"])],
  ["tox run", wrap("erc", ["--env", "--conf", "--root", "--workdir", "--override", "-x"])],
  ["npm explore", wrap("", [], { skip: 1 })],
  ["yarn node", { options: {}, program: "node" }]
])

/**
 * The global options of programs with runner subcommands that take a value: skipped to find the
 * subcommand (`npm --prefix . exec …`, `pnpm --filter app exec …`, `npm -w pkg exec …`).
 *
 * @internal
 */
export const RUNNER_GLOBALS: ReadonlyMap<string, OptionSpec> = new Map<string, OptionSpec>([
  ["npm", { short: "wC", long: ["--prefix", "--workspace", "--loglevel", "--userconfig", "--registry", "--cache"] }],
  ["pnpm", { short: "FCw", long: ["--filter", "--dir", "--reporter", "--loglevel", "--workspace-dir", "--config"] }],
  ["yarn", { long: ["--cwd", "--mutex", "--modules-folder", "--cache-folder"] }],
  ["bun", { long: ["--cwd", "--config"] }],
  ["uv", { long: ["--directory", "--project", "--python", "--cache-dir", "--config-file"] }],
  ["poetry", { short: "C", long: ["--directory", "--project"] }],
  ["tox", { short: "ec", long: ["--conf", "--root", "--workdir"] }]
])

/** The subcommands that run a project's files (`null`: every invocation), and those files. @internal */
export type ProjectFiles = readonly [ReadonlySet<string> | null, ReadonlyArray<string>]

/**
 * The files a project tool reads and runs from its directory, by program and the subcommands
 * that run them (`null`: every invocation): a command that writes one and then runs the tool
 * (`printf … > Makefile && make`) runs what it wrote, and a tool run in a directory outside the
 * workspace (`cd /elsewhere && npm test`) runs that directory's code.
 *
 * @internal
 */
export const PROJECT_FILES: ReadonlyMap<string, ProjectFiles> = new Map<string, ProjectFiles>(
  [
    ...["npm", "pnpm", "yarn", "bun"].map((name) =>
      [name, [
        new Set(["run", "run-script", "test", "t", "start", "install", "i", "ci", "add", "rebuild", "restart", "stop"]),
        ["package.json"]
      ]] as [string, ProjectFiles]
    ),
    ["make", [null, ["Makefile", "makefile", "GNUmakefile"]]],
    ["pytest", [null, ["conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"]]],
    ["tox", [null, ["tox.ini"]]],
    ["nox", [null, ["noxfile.py"]]],
    ["cargo", [new Set(["build", "b", "run", "r", "test", "t", "bench", "check", "c", "install"]), ["build.rs"]]],
    ["rake", [null, ["Rakefile"]]],
    ["just", [null, ["justfile", "Justfile"]]],
    ["gradle", [null, ["build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"]]],
    ["mvn", [null, ["pom.xml"]]],
    ["cmake", [null, ["CMakeLists.txt"]]],
    ["ninja", [null, ["build.ninja"]]],
    ["composer", [new Set(["run", "run-script", "install", "update", "test"]), ["composer.json"]]]
  ]
)

/** Shells: how each spells "run this script" (`-c`, PowerShell's `-Command`). @internal */
export interface ShellSpec {
  readonly script: ReadonlyArray<string>
  readonly unreadable?: ReadonlyArray<string>
}

/** @internal */
export const SHELLS: ReadonlyMap<string, ShellSpec> = new Map<string, ShellSpec>([
  ...[
    "sh",
    "bash",
    "rbash",
    "zsh",
    "dash",
    "ksh",
    "ksh93",
    "mksh",
    "pdksh",
    "oksh",
    "posh",
    "ash",
    "yash",
    "fish",
    "tcsh",
    "csh",
    "nu",
    "elvish",
    "xonsh",
    "osh",
    "ysh"
  ].map((name): readonly [string, ShellSpec] => [name, { script: ["-c"] }]),
  ...["pwsh", "powershell", "pwsh-preview"].map((name): readonly [string, ShellSpec] => [name, {
    script: ["-c", "-command", "-commandwithargs", "-cwa"],
    unreadable: ["-e", "-ec", "-encodedcommand", "-enc", "-encodedarguments"]
  }])
])

/** Interpreters: the option spellings that take inline code, and those that take a value. @internal */
export interface InterpreterSpec {
  readonly options: OptionSpec
  readonly code: ReadonlyArray<string>
  /** The spelling the canonical form uses for inline code (matched by the level rules). */
  readonly canonical: string
  /** `-m MODULE`: the rest is that module's argv. */
  readonly module?: string
  /** Options that print something and exit: no program is read (`python3 -V`, `node -v`). */
  readonly exits?: ReadonlyArray<string>
  /** Options that run files the interpreter finds itself (`node --test`): no program from stdin. */
  readonly discovers?: ReadonlyArray<string>
}

// Every interpreter's version and help spellings (`-v` and `-V` only where they do not mean more).
const EXITS = ["--version", "--help", "-h"]

const interpreter = (
  short: string,
  long: ReadonlyArray<string>,
  code: ReadonlyArray<string>,
  canonical: string,
  module?: string,
  exits: ReadonlyArray<string> = []
): InterpreterSpec => ({
  options: { short, long, stopAtOperand: true },
  code,
  canonical,
  ...(module === undefined ? {} : { module }),
  exits: [...EXITS, ...exits]
})

const PYTHON = interpreter("cmWXQ", [], ["-c"], "-c", "-m", ["-V", "-VV"])
const NODE = interpreter(
  "epri",
  [
    "--eval",
    "--print",
    "--require",
    "--import",
    "--loader",
    "--input-type",
    "--experimental-loader",
    "--env-file",
    "--conditions",
    "--title"
  ],
  ["-e", "--eval", "-p", "--print"],
  "-e",
  undefined,
  ["-v", "--v8-options"]
)
const NODE_TEST: InterpreterSpec = { ...NODE, discovers: ["--test"] }

/** @internal */
export const interpreterOf = (name: string): InterpreterSpec | undefined =>
  /^python(?:[0-9.]*)$/.test(name) || name === "pypy" || name === "pypy3" ? PYTHON : INTERPRETERS.get(name)

/** @internal */
export const INTERPRETERS: ReadonlyMap<string, InterpreterSpec> = new Map<string, InterpreterSpec>([
  ["node", NODE_TEST],
  ["nodejs", NODE_TEST],
  ["tsx", NODE],
  ["ts-node", NODE],
  ["perl", interpreter("eEMmIiFlx0C", [], ["-e", "-E"], "-e", undefined, ["-v", "-V"])],
  ["ruby", interpreter("erICFEx", ["--encoding"], ["-e"], "-e")],
  [
    "php",
    interpreter("rdfBREFcz", ["--define", "--file"], ["-r", "-B", "-R", "-E", "-F"], "-r", undefined, [
      "-v",
      "-m",
      "-i"
    ])
  ],
  ["lua", interpreter("el", [], ["-e"], "-e", undefined, ["-v"])],
  ["luajit", interpreter("elbjO", [], ["-e"], "-e")],
  ["Rscript", interpreter("e", [], ["-e"], "-e")],
  ["R", interpreter("ef", ["--file"], ["-e"], "-e")],
  ["osascript", interpreter("el", [], ["-e"], "-e")],
  [
    "julia",
    interpreter("eEL", ["--eval", "--print", "--load"], ["-e", "-E", "--eval", "--print", "-L", "--load"], "-e")
  ],
  ["elixir", interpreter("erS", ["--eval"], ["-e", "--eval"], "-e")],
  ["groovy", interpreter("e", [], ["-e"], "-e")],
  ["tclsh", interpreter("", [], [], "-e")],
  ["bun", interpreter("e", ["--eval", "--print"], ["-e", "--eval", "--print"], "-e")]
])

/** Programs that connect to the network (their URL and host operands are fetch checks). @internal */
export const NETWORK = new Set([
  "curl",
  "wget",
  "http",
  "https",
  "xh",
  "xhs",
  "aria2c",
  "lynx",
  "w3m",
  "git",
  "ssh",
  "scp",
  "sftp",
  "rsync",
  "nc",
  "ncat",
  "netcat",
  "telnet",
  "ftp",
  "socat",
  "openssl"
])

/** Network programs whose operands are hosts or URLs. @internal */
export const HOST_OPERANDS = new Set([
  "curl",
  "wget",
  "http",
  "https",
  "xh",
  "xhs",
  "aria2c",
  "lynx",
  "w3m",
  "nc",
  "ncat",
  "netcat",
  "telnet",
  "ftp"
])

/** Programs that read shell commands from stdin (`at`, `batch`). @internal */
export const STDIN_SHELLS = new Set(["at", "batch"])
