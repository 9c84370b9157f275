import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { GovernanceError, Policy, Rule, ShellParser } from "../src/index.js"
import * as Glob from "../src/internal/glob.js"
import { Parser } from "./helpers.js"

// Issue 12: for random compositions of wrappers, shells and expansions around a universal-deny
// command, the decision is never `allow` (and a composition the engine fully reads still denies).
const CORES: ReadonlyArray<ReadonlyArray<string>> = [
  ["rm", "-rf", "/"],
  ["rm", "-fr", "~"],
  ["git", "push", "-f", "origin", "main"],
  ["git", "push", "origin", "+main"],
  ["mkfs.ext4", "/dev/sda1"],
  ["dd", "if=/dev/zero", "of=/dev/sda"],
  ["curl", "http://169.254.169.254/latest/meta-data/"]
]

const squote = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`

// Word-level spellings bash reads as the same word.
const spell = (token: string, style: number): string => {
  switch (style % 6) {
    case 0:
      return token
    case 1:
      return squote(token)
    case 2:
      return `"${token.replace(/(["\\$`])/g, "\\$1")}"`
    case 3:
      return token.length > 1 ? `${token[0]}''${token.slice(1)}` : token
    case 4:
      return `$'${token.replace(/[\\']/g, "\\$&")}'`
    default:
      return token === "/" ? "{/,/tmp/x}" : token
  }
}

// Wrappers (argv) and shells (a string), each turning a command line into another.
const LAYERS: ReadonlyArray<(inner: string) => string> = [
  (c) => `sudo -u root ${c}`,
  (c) => `env -i FOO=1 ${c}`,
  (c) => `timeout -s KILL 5 ${c}`,
  (c) => `nice -n 5 ${c}`,
  (c) => `nohup ${c}`,
  (c) => `setsid -f ${c}`,
  (c) => `stdbuf -oL ${c}`,
  (c) => `taskset -c 0 ${c}`,
  (c) => `flock /tmp/lock ${c}`,
  (c) => `strace -f -o /dev/null ${c}`,
  (c) => `ionice -c3 ${c}`,
  (c) => `chronic ${c}`,
  (c) => `busybox ${c}`,
  (c) => `coproc ${c}`,
  (c) => `command ${c}`,
  (c) => `time ${c}`,
  (c) => `npx ${c}`,
  (c) => `pnpm exec ${c}`,
  (c) => `uv run ${c}`,
  (c) => `mystery-wrapper --opt x ${c}`,
  // issue 32: option values and global options that hid the command, new runners and wrappers
  (c) => `bash -O extglob -c ${squote(c)}`,
  (c) => `bash +O extglob -c ${squote(c)}`,
  (c) => `bash --rcfile /dev/null -c ${squote(c)}`,
  (c) => `bash -euo pipefail -c ${squote(c)}`,
  (c) => `bash -s x <<< ${squote(c)}`,
  (c) => `pnpm --filter app exec ${c}`,
  (c) => `npm --prefix . exec -- ${c}`,
  (c) => `npm -w pkg exec -- ${c}`,
  (c) => `tox exec -e py -- ${c}`,
  (c) => `npm explore lodash -- ${c}`,
  (c) => `ccache ${c}`,
  (c) => `scan-build -o out ${c}`,
  (c) => `ssh -o ProxyCommand=${squote(c)} host`,
  (c) => `ssh host ${squote(c)}`,
  (c) => `for i in 1; do ${c}; done`,
  (c) => `if true; then ${c}; fi`,
  (c) => `case x in *) ${c};; esac`,
  (c) => `coverage run ${squote(c)}`,
  (c) => `bash -c ${squote(c)}`,
  (c) => `sh -xc ${squote(c)}`,
  (c) => `rbash -c ${squote(c)}`,
  (c) => `zsh -lc ${squote(c)}`,
  (c) => `tcsh -c ${squote(c)}`,
  (c) => `pwsh -Command ${squote(c)}`,
  (c) => `eval ${squote(c)}`,
  (c) => `script -qc ${squote(c)} /dev/null`,
  (c) => `su -c ${squote(c)}`,
  (c) => `sg root -c ${squote(c)}`,
  (c) => `flock /tmp/lock -c ${squote(c)}`,
  (c) => `env -S${squote(c)}`,
  (c) => `watch -n 1 ${squote(c)}`,
  (c) => `bash <<< ${squote(c)}`,
  (c) => `echo ${squote(c)} | sh`,
  (c) => `x=$(${c})`,
  (c) => `echo "$(${c})"`,
  (c) => `(${c})`,
  (c) => `{ ${c}; }`,
  (c) => `true && ${c}`,
  (c) => `git status; ${c}`,
  (c) => `unknown-tool ${squote(c)}`,
  // issue 32, second pass: cmake's command mode, a moved directory, xargs' placeholder, variables
  // set by builtins, code in string literals, data: modules, Ex mode on stdin
  (c) => `cmake -E env FOO=1 ${c}`,
  (c) => `cmake -E chdir src ${c}`,
  (c) => `env -C src ${c}`,
  (c) => `echo ${squote(c)} | xargs -I{} sh -c '{}'`,
  (c) => `xargs -a list.txt -I% sh -c ${squote(`${c} %`)}`,
  (c) => `printf -v GIT_EDITOR %s ${squote(c)}; export GIT_EDITOR; git commit`,
  (c) => `read -r GIT_SEQUENCE_EDITOR <<< ${squote(c)}; git rebase -i HEAD~1`,
  (c) => `python3 -c ${squote(`import os; os.system(${JSON.stringify(c)})`)}`,
  (c) => `python3 -m timeit -n1 ${squote(`import os; os.system(${JSON.stringify(c)})`)}`,
  (c) => `node --import ${squote(`data:text/javascript,require("child_process").execSync(${JSON.stringify(c)})`)} x.js`,
  (c) => `printf '%s\n' ${squote(`!${c}`)} | ex -s`,
  (c) => `cargo --config ${squote(`target.x.runner=${JSON.stringify(c)}`)} run`,
  (c) => `find . -name '*.ts' -exec ${c} \;`
]

/** The gate at `execute` on a workspace, as one function of a shell command. */
const gate = Effect.gen(function*() {
  const parser = yield* ShellParser.ShellParser
  yield* parser.ready
  const compiled = yield* Policy.compile({ level: "execute", workspace: "/srv/app" })
  return (command: string) => Policy.decideSync(compiled, parser, { tool: "shell", command })
})

/** Every command is denied by a universal rule (the layer no policy can relax). */
const assertUniversalDeny = (
  decide: (command: string) => Policy.Decision,
  commands: ReadonlyArray<string>
): void => {
  for (const command of commands) {
    const decision = decide(command)
    assert.strictEqual(decision.decision, "deny", command)
    assert.strictEqual(decision.citation.layer, "universal", command)
  }
}

describe("fail closed", () => {
  layer(Parser)((it) => {
    it.effect("no composition of wrappers, shells and expansions around a universal deny is allowed", () =>
      Effect.gen(function*() {
        const parser = yield* ShellParser.ShellParser
        yield* parser.ready
        const compiled = yield* Policy.compile({ level: "execute", workspace: "/srv/app" })
        fc.assert(
          fc.property(
            fc.constantFrom(...CORES),
            fc.array(fc.nat({ max: 5 }), { minLength: 6, maxLength: 6 }),
            fc.array(fc.nat({ max: LAYERS.length - 1 }), { minLength: 1, maxLength: 4 }),
            (core, styles, layers) => {
              let command = core.map((t, i) => spell(t, styles[i] ?? 0)).join(" ")
              for (const l of layers) command = LAYERS[l]!(command)
              const decision = Policy.decideSync(compiled, parser, { tool: "shell", command })
              if (decision.decision === "allow") throw new Error(`allowed: ${command}`)
              return true
            }
          ),
          { numRuns: 1500 }
        )
      }))

    // A property run found `$(` around `(…)` written without a space: `$((…))`, which a shell may
    // read as arithmetic or as a subshell's output. The second reading is decided too (it can only
    // deny); arithmetic itself still runs.
    it.effect("$((…)) is also read as $( (…) ): a universal deny inside it denies, arithmetic does not", () =>
      Effect.gen(function*() {
        const decide = yield* gate
        assertUniversalDeny(decide, [
          "x=$(('mkfs.ext4' /dev/sda1))",
          "echo \"$(('rm' -rf /))\"",
          "env -i FOO=1 bash -c 'x=$(('\\''mkfs.ext4'\\'' /dev/sda1))'"
        ])
        for (const command of ["echo $((1 + 2))", "x=$((i * 2 + 1))"]) {
          assert.strictEqual(decide(command).decision, "allow", command)
        }
      }))

    // CI (seed -173146668) composed `printf '%s\n' '!CMD' | ex -s`, `x=$(…)` and `coverage run '…'`
    // into an allow. Cause: a pipe's text was computed only for `echo` and a one-argument `printf`,
    // so the Ex-mode reading of `!CMD` had nothing to read; the code-from-stdin guard that asked
    // instead counts only outside a speculative reading (a known tool's argument is one).
    it.effect("a pipe's printf with arguments is read exactly: its Ex-mode commands decide inside any reading", () =>
      Effect.gen(function*() {
        const decide = yield* gate
        assertUniversalDeny(decide, [
          "coverage run 'x=$(printf '\\''%s\n'\\'' '\\''!rm -rf /'\\'' | ex -s)'",
          "printf '%s\\n' '!rm -rf /' | ex -s",
          "printf '%s %s\\n' '!rm' '-rf /' | vim -es",
          "echo -e '!rm -rf \\x2f' | ex -s"
        ])
        assert.strictEqual(decide("printf '%s\\n' a.txt b.txt | xargs -I{} cat {}").decision, "allow")
      }))

    // Deeper runs: the same loss when the pipe's writer is wrapped (`sudo -u root echo CMD | sh`,
    // an unknown wrapper, a subshell) — the engine read only a bare `echo`/`printf`.
    it.effect("what a wrapped, unknown or grouped writer prints is read speculatively by every stdin reader", () =>
      Effect.gen(function*() {
        const decide = yield* gate
        assertUniversalDeny(decide, [
          "coverage run 'x=$(sudo -u root echo '\\''rm -rf /'\\'' | sh)'",
          "coverage run 'for i in 1; do sudo -u root echo '\\''rm -rf /'\\'' | sh; done'",
          "coverage run 'x=$(mystery-wrapper --opt x echo '\\''rm -rf /'\\'' | sh)'",
          "coverage run 'x=$( (echo '\\''rm -rf /'\\'') | bash)'",
          "coverage run 'x=$(nice -n 5 printf '\\''%s\n'\\'' '\\''!rm -rf /'\\'' | ex -s)'"
        ])
      }))

    // Deeper runs: `echo CMD | xargs -I{} sh -c '{}'` behind a wrapper; and xargs reads every line.
    it.effect("xargs runs each line it is fed (and what an unknown pipe may feed it) as a command", () =>
      Effect.gen(function*() {
        const decide = yield* gate
        assertUniversalDeny(decide, [
          "printf 'git status\\nrm -rf /\\n' | xargs -I{} sh -c '{}'",
          "coverage run '(sudo -u root echo '\\''rm -rf /'\\'' | xargs -I{} sh -c '\\''{}'\\'')'",
          "coverage run 'x=$(echo / | xargs rm -rf)'",
          // an item that spans lines (a deeper run) or NUL-delimited items (`-0`): other splits are read too
          `env -i FOO=1 coverage run ${
            squote(
              `for i in 1; do echo ${
                squote(`printf '%s\n' ${squote("!rm -rf /")} | ex -s`)
              } | xargs -I{} sh -c '{}'; done`
            )
          }`,
          "printf 'git status\\0rm -rf /' | xargs -0 -I{} sh -c '{}'"
        ])
      }))

    // Deeper runs (layers ssh -o ProxyCommand, coverage run, mystery-wrapper, coverage run): the
    // ProxyCommand's value lost a quote at each end independently, so `git push origin $'+main'`
    // became `… $'+main`, which does not parse — an ask, dropped inside a speculative reading.
    it.effect("an ssh command option strips only a pair of quotes around its whole value", () =>
      Effect.gen(function*() {
        const decide = yield* gate
        assertUniversalDeny(decide, [
          "ssh -o ProxyCommand='git push origin $'\\''+main'\\''' host",
          "ssh -o ProxyCommand=\"'git' push origin '+main'\" host",
          "coverage run 'mystery-wrapper --opt x ssh -o ProxyCommand='\\''git push origin $'\\''\\'\\'''\\''+main'\\''\\'\\'''\\''' host'"
        ])
        assert.strictEqual(decide("ssh -o 'ProxyCommand=\"nc %h %p\"' host").decision, "ask")
      }))

    // Deeper runs: `(…)` around `(…)` spells `((…))`, and `$(…)` around it `$((…))`, which the grammar
    // cannot parse as arithmetic either (a parse error, an ask dropped inside a speculative
    // reading). A shell without arithmetic commands (dash) runs them as nested subshells.
    it.effect("((…)) and $((…)) that do not parse are also read as nested subshells", () =>
      Effect.gen(function*() {
        const decide = yield* gate
        assertUniversalDeny(decide, [
          "((bash -c 'rm -rf /'))",
          "coverage run '((bash -O extglob -c '\\''rm -rf /'\\''))'",
          "coverage run 'x=$((printf -v GIT_EDITOR %s '\\''rm -rf /'\\''; export GIT_EDITOR; git commit))'"
        ])
        for (const command of ["echo $((1 + 2))", "x=$(( (1 + 2) * 3 ))"]) {
          assert.strictEqual(decide(command).decision, "allow", command)
        }
      }))

    it.effect("every ask names what could not be resolved", () =>
      Effect.gen(function*() {
        const parser = yield* ShellParser.ShellParser
        yield* parser.ready
        const compiled = yield* Policy.compile({ level: "execute", workspace: "/srv/app" })
        const cases: ReadonlyArray<readonly [string, string]> = [
          ["frobnicate --all", "engine.unknown-program"],
          ["/???/git status", "engine.glob-command"],
          ["echo x | base64 -d | sh /dev/stdin", "engine.code-from-stdin"],
          ["cat $PWD/.env", "engine.unresolved-target"],
          ["curl https://$H/", "engine.unresolved-host"],
          ["hash -p /usr/bin/git ls", "engine.rebinds-command"],
          ["vim -c ':wq' x", "engine.inline-code"]
        ]
        for (const [command, ruleId] of cases) {
          const decision = Policy.decideSync(compiled, parser, { tool: "shell", command })
          assert.strictEqual(decision.decision, "ask", command)
          const ids = decision.segments.flatMap((s) => s.checks.map((c) => c.citation.ruleId))
          assert.include(ids, ruleId, command)
        }
      }))

    it.effect("a workspace script and the programs the engine knows still run", () =>
      Effect.gen(function*() {
        const parser = yield* ShellParser.ShellParser
        yield* parser.ready
        const compiled = yield* Policy.compile({ level: "execute", workspace: "/srv/app" })
        for (
          const command of [
            "./scripts/test.sh --ci",
            "npx vitest run",
            "pnpm exec tsc -b",
            "timeout 60 npm test",
            "git push -n -f origin main",
            "grep -rn 169.254.169.254 src/",
            "find . -name '*.log' -exec grep -l error {} +"
          ]
        ) {
          assert.strictEqual(Policy.decideSync(compiled, parser, { tool: "shell", command }).decision, "allow", command)
        }
      }))
  })
})

describe("patterns in linear time", () => {
  const catastrophic = "*a*a*a*a*a*a*a*a*a*a*a*a*c*b"

  it("the catastrophic user pattern costs at most length × pattern-length character tests", () => {
    const glob = Glob.compile(catastrophic)
    for (const length of [61, 1_000, 10_000]) {
      const resource = "a".repeat(length)
      const steps = { n: 0 }
      assert.isFalse(glob.count(resource, steps))
      // Deterministic bound: every piece is found by a left-to-right scan that never backs up.
      assert.isAtMost(steps.n, (length + 1) * catastrophic.length)
    }
    assert.isTrue(glob.test("xaaaaaaaaaaaaaaacb"))
  })

  it.effect("as a user rule it compiles and decides; a path pattern with no linear bound is refused at load", () =>
    Effect.gen(function*() {
      const parser = yield* ShellParser.ShellParser
      yield* parser.ready
      const compiled = yield* Policy.compile({
        level: "execute",
        workspace: "/srv/app",
        rules: [Rule.make({ id: "dos", action: "shell", resource: catastrophic, effect: "deny" })]
      })
      const decision = Policy.decideSync(compiled, parser, {
        tool: "shell",
        command: `echo ${"a".repeat(55)}`
      })
      assert.strictEqual(decision.decision, "allow")
      const refused = yield* Effect.flip(Policy.compile({
        rules: [Rule.make({ id: "ext", action: "read", resource: "+(a*)*a*a*b", effect: "deny" })]
      }))
      assert.instanceOf(refused, GovernanceError.GovernanceError)
      assert.strictEqual(refused.code, "policy-invalid")
      assert.include(refused.message, "rules[0].resource")
    }).pipe(Effect.provide(Parser)))

  it("brace alternatives past the bound are refused", () => {
    assert.throws(() => Glob.compile("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"), Glob.GlobError)
  })
})

describe("wrappers that only run a script", () => {
  layer(Parser)((it) => {
    it.effect("`env -S`, `script -c` and `flock -c` decide the script they run", () =>
      Effect.gen(function*() {
        const parser = yield* ShellParser.ShellParser
        yield* parser.ready
        const compiled = yield* Policy.compile({ level: "execute", workspace: "/srv/app" })
        const decide = (command: string) => Policy.decideSync(compiled, parser, { tool: "shell", command }).decision
        assert.strictEqual(decide("env -S'ls -la \"src dir\"'"), "allow")
        assert.strictEqual(decide("script -qc 'git status' /dev/null"), "allow")
        assert.strictEqual(decide("flock /tmp/l -c 'npm test'"), "allow")
        assert.strictEqual(decide("env -S'rm -rf \"/\"'"), "deny")
      }))
  })
})
