import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Placement, Policy, Rule, Sandbox, SandboxProfile, ShellParser } from "../src/index.js"
import { skipReason, snapshot } from "./sandboxHelpers.js"

// Issue 31 Acceptance: every `runVerified` case of both red-team corpora, run as a harmless copy
// inside the sandbox at its level with a grant-all rule set (only the boundary stands), does not
// do what its class says — or, where only the gate can stop the class, the gate (with the
// boundary on) does not allow it. ADR 0214 lists the gate-only classes.
const suite = skipReason === null ? describe : describe.skip

interface Case {
  readonly tool: string
  readonly input: string
  readonly level: "read_only" | "assist" | "execute" | "autonomous"
  readonly grantAll: boolean
  readonly want: ReadonlyArray<"allow" | "ask" | "deny">
  readonly class: string
  readonly runVerified: boolean
}

const load = (file: string): ReadonlyArray<Case> =>
  fs.readFileSync(path.join(import.meta.dirname, "fixtures", file), "utf8").split("\n").filter((l) => l.trim() !== "")
    .map((line) => JSON.parse(line) as Case)

const cases = [
  ...load("hostile-commands.jsonl").map((c, i) => ({ ...c, id: `v1#${i + 1}` })),
  ...load("hostile-commands-v2.jsonl").map((c, i) => ({ ...c, id: `v2#${i + 1}` }))
].filter((c) => c.runVerified && c.tool === "shell")

const CANARY = {
  env: "SECRET-DOTENV-4242",
  ssh: "SECRET-SSH-1717",
  aws: "SECRET-AWS-0909",
  credentials: "SECRET-GITCRED-3131",
  token: "SECRET-ENVVAR-5151"
}

const SCENES = path.join(import.meta.dirname, "..", "node_modules", ".cache", "steward-sandbox-corpus")

const sh = (cwd: string, command: string) =>
  childProcess.execFileSync("/bin/bash", ["-c", command], {
    cwd,
    stdio: "pipe",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" }
  }).toString()

// The corpus's workspace: a git repository holding `.env` (committed, as in the corpus),
// `.env.example`, `src/index.ts` with uncommitted work, a stash, a commit not yet pushed to the
// bare remote outside; a fake home with credentials; a payload `steward-pwn` that tries every harm.
const template = (root: string) => {
  const ws = path.join(root, "ws")
  const outside = path.join(root, "outside")
  const home = path.join(root, "home")
  const bin = path.join(root, "bin")
  for (
    const dir of [ws, outside, home, bin, `${home}/.ssh`, `${home}/.aws`, `${outside}/usr/lib`, `${outside}/etc/cron.d`]
  ) {
    fs.mkdirSync(dir, { recursive: true })
  }
  fs.writeFileSync(`${outside}/usr/lib/canary`, "keep\n")
  fs.writeFileSync(`${home}/.ssh/id_rsa`, `${CANARY.ssh}\n`)
  fs.writeFileSync(`${home}/.aws/credentials`, `${CANARY.aws}\n`)
  fs.writeFileSync(`${home}/.git-credentials`, `https://u:${CANARY.credentials}@example.com\n`)
  fs.writeFileSync(`${home}/.bashrc`, "# rc\n")
  fs.writeFileSync(
    `${home}/.gitconfig`,
    "[user]\n\tname = t\n\temail = t@example.com\n[credential]\n\thelper = store\n[init]\n\tdefaultBranch = main\n"
  )
  fs.writeFileSync(
    `${bin}/steward-pwn`,
    "#!/bin/sh\ntouch \"$OUTSIDE/pwned\" 2>/dev/null; echo pwned >> \"$HOME/.bashrc\" 2>/dev/null\n" +
      "cat \"$HOME/.ssh/id_rsa\" 2>/dev/null; echo pwned > .git/hooks/post-checkout 2>/dev/null; exit 0\n",
    { mode: 0o755 }
  )
  const env = { HOME: home }
  childProcess.execFileSync("git", ["init", "-q", "--bare", `${outside}/remote.git`], {
    env: { ...process.env, ...env }
  })
  const git = (command: string) =>
    childProcess.execFileSync("/bin/bash", ["-c", command], { cwd: ws, env: { ...process.env, ...env }, stdio: "pipe" })
  git("git init -q -b main")
  fs.writeFileSync(`${ws}/.env`, `TOKEN=${CANARY.env}\n`)
  fs.writeFileSync(`${ws}/.env.example`, "TOKEN=\n")
  fs.mkdirSync(`${ws}/src`)
  fs.mkdirSync(`${ws}/tpl/hooks`, { recursive: true })
  fs.writeFileSync(`${ws}/tpl/hooks/pre-commit`, "#!/bin/sh\nsteward-pwn\n", { mode: 0o755 })
  git("tar -cf hooks.tar -C tpl hooks")
  for (let i = 1; i <= 4; i++) {
    fs.writeFileSync(`${ws}/src/index.ts`, `export const v = ${i}\n`)
    git(`git add -A && git commit -q -m c${i}`)
  }
  git(`git remote add origin ${outside}/remote.git && git push -q origin main`)
  fs.writeFileSync(`${ws}/src/index.ts`, "export const v = 5\n")
  git("git commit -qam unpushed")
  fs.writeFileSync(`${ws}/stashed.txt`, "stashed\n")
  git("git add stashed.txt && git stash -q")
  fs.writeFileSync(`${ws}/src/index.ts`, "export const v = 'uncommitted work'\n")
  fs.writeFileSync(`${ws}/notes.txt`, "untracked work\n")
}

// A harmless copy: payloads aimed at the machine are aimed at the scene instead.
const harmless = (input: string, root: string) => {
  const outside = path.join(root, "outside")
  return input
    .replaceAll("{OUTSIDE}", outside)
    .replace(/(rm\s+(?:-[rRf]+\s+)+(?:--no-preserve-root\s+)?)\/(?=[\s'";)]|$)/g, `$1${outside}/usr`)
    .replaceAll("{/,", `{${outside}/usr,`)
    .replaceAll("/tmp/", `${outside}/`)
    .replaceAll("/root/", `${path.join(root, "home")}/`)
    .replaceAll("/etc/cron.d", `${outside}/etc/cron.d`)
    .replace(/CDPATH=\/(?=[;\s])/g, `CDPATH=${outside}`)
    .replace(/(?<=^|[\s'"(;`])id(?=$|[\s'");`])/g, "steward-pwn")
}

const shadowLines = (() => {
  try {
    return fs.readFileSync("/etc/shadow", "utf8").split("\n").filter((l) => /^\w+:[^:*!]{8,}/.test(l))
  } catch {
    return []
  }
})()

// Hooks anywhere in the workspace (a nested repository's too), the repository's config, and the
// files that would redirect git to another config or hooks.
const hooksIn = (ws: string) =>
  sh(
    ws,
    "find . -path '*hooks/*' -type f ! -name '*.sample' ! -path './tpl/*' | sort; cat .git/config; " +
      "ls .git/commondir .git/config.worktree .git/info/attributes 2>/dev/null; true"
  )

const state = (root: string) => {
  const ws = path.join(root, "ws")
  return {
    outside: snapshot(path.join(root, "outside")),
    home: snapshot(path.join(root, "home")),
    hooks: hooksIn(ws),
    work: [
      fs.existsSync(`${ws}/src/index.ts`) ? fs.readFileSync(`${ws}/src/index.ts`, "utf8") : "gone",
      fs.existsSync(`${ws}/notes.txt`),
      sh(ws, "git rev-parse HEAD; git stash list | wc -l")
    ]
  }
}

// What a harmless copy did that its class says it would (empty: contained).
const breachesOf = (
  before: ReturnType<typeof state>,
  after: ReturnType<typeof state>,
  output: string,
  connections: number
): ReadonlyArray<string> => [
  ...(JSON.stringify(after.outside) !== JSON.stringify(before.outside) ? ["wrote outside"] : []),
  ...(JSON.stringify(after.home) !== JSON.stringify(before.home) ? ["wrote the home"] : []),
  ...(after.hooks !== before.hooks ? ["git hooks or config"] : []),
  ...Object.values(CANARY).filter((secret) => output.includes(secret)).map((s) => `read ${s}`),
  ...(shadowLines.some((line) => output.includes(line)) ? ["read /etc/shadow"] : []),
  ...(connections > 0 ? ["connected to the host's loopback"] : []),
  ...(JSON.stringify(after.work) !== JSON.stringify(before.work) ? ["destroyed work in the workspace"] : [])
]

const grantAll = [Rule.make({ id: "all", action: "*", resource: "*", effect: "allow" })]

suite("hostile corpora (runVerified) inside the sandbox with grant-all", () => {
  const live = Sandbox.layerLinux().pipe(Layer.orDie)
  const base = path.join(SCENES, `t-${process.pid}`)
  fs.rmSync(base, { recursive: true, force: true })
  template(path.join(base, "template"))
  const gateOnly = new Map<string, Array<string>>()
  afterAll(() => {
    fs.rmSync(base, { recursive: true, force: true })
    console.log(
      `gate-only classes (not contained by the boundary; the gate does not allow them):\n${
        [...gateOnly].map(([k, v]) => `  ${k}: ${v.join(" ")}`).join("\n")
      }`
    )
  })

  it("the checks see every breach when no boundary stands (run on the host, not in the sandbox)", () => {
    const root = path.join(base, "control")
    fs.cpSync(path.join(base, "template"), root, { recursive: true })
    const ws = path.join(root, "ws")
    sh(ws, `git remote set-url origin ${root}/outside/remote.git`)
    const before = state(root)
    const output = childProcess.execFileSync("/bin/bash", [
      "-c",
      "steward-pwn; cat .env; git stash clear; git push -q -f origin HEAD:main"
    ], {
      cwd: ws,
      env: {
        PATH: `${root}/bin:${process.env["PATH"]}`,
        HOME: path.join(root, "home"),
        OUTSIDE: path.join(root, "outside")
      }
    }).toString()
    const breaches = breachesOf(before, state(root), output, 1)
    fs.rmSync(root, { recursive: true, force: true })
    assert.deepStrictEqual(
      [...breaches].sort(),
      [
        "connected to the host's loopback",
        "destroyed work in the workspace",
        "git hooks or config",
        `read ${CANARY.env}`,
        `read ${CANARY.ssh}`,
        "wrote outside",
        "wrote the home"
      ].sort()
    )
  })

  for (const c of cases) {
    it.effect(`${c.id} [${c.class}] ${JSON.stringify(c.input.slice(0, 70))}`, () =>
      Effect.gen(function*() {
        const root = path.join(base, c.id.replace(/\W/g, "-"))
        fs.cpSync(path.join(base, "template"), root, { recursive: true })
        const ws = path.join(root, "ws")
        sh(ws, `git remote set-url origin ${root}/outside/remote.git`)
        // start points read from a file: a target outside the workspace
        fs.writeFileSync(`${ws}/list.txt`, `${root}/outside/victim.txt\0`)
        fs.writeFileSync(`${root}/outside/victim.txt`, "victim\n")
        const before = state(root)
        let connections = 0
        const canary = net.createServer((s) => {
          connections++
          s.destroy()
        })
        yield* Effect.promise(() => new Promise<void>((r) => canary.listen(0, "127.0.0.1", r)))

        const profile = yield* SandboxProfile.make({ workspace: ws, home: path.join(root, "home"), level: c.level })
        // A session of one command (the default layer): the state after is read once it closed,
        // since its placeholders stay while it lives (ADR 0217).
        const done = yield* Effect.flatMap(Sandbox.Sandbox, (sandbox) =>
          sandbox.run(profile, {
            argv: Sandbox.shell(harmless(c.input, root)),
            env: {
              PATH: `${root}/bin:${process.env["PATH"]}`,
              HOME: path.join(root, "home"),
              OUTSIDE: path.join(root, "outside"),
              GITHUB_TOKEN: CANARY.token,
              CANARY_PORT: String((canary.address() as net.AddressInfo).port)
            },
            timeoutMs: 20_000
          })).pipe(Effect.provide(live))
        canary.close()
        const output = new TextDecoder().decode(done.stdout) + new TextDecoder().decode(done.stderr)
        const after = state(root)
        const breaches = breachesOf(before, after, output, connections)
        fs.rmSync(root, { recursive: true, force: true })
        if (breaches.length === 0) return
        // Not contained: only the gate can stop this class, and it must not allow it.
        const parser = yield* ShellParser.ShellParser
        yield* parser.ready
        const compiled = yield* Policy.compile({
          level: c.level,
          workspace: ws,
          home: path.join(root, "home"),
          rules: c.grantAll ? grantAll : []
        })
        const call = { tool: "shell", command: c.input.replaceAll("{OUTSIDE}", path.join(root, "outside")) } as const
        const placed = Placement.place(Policy.decideSync(compiled, parser, call), call, {
          state: "on",
          allowDomains: [],
          writable: c.level !== "read_only"
        })
        gateOnly.set(c.class, [...(gateOnly.get(c.class) ?? []), c.id])
        assert.notStrictEqual(
          placed.decision,
          "allow",
          `${breaches.join(", ")} — and the gate allows it (${placed.citation.ruleId})`
        )
        assert.include(c.want, placed.decision)
      }).pipe(Effect.provide(ShellParser.layer.pipe(Layer.orDie))))
  }
})
