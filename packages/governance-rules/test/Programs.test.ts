import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type Autonomy, Policy, ShellParser } from "../src/index.js"
import { INTERPRETERS, PROGRAMS, RUNNERS, SHELLS, WRAPPERS } from "../src/internal/analyze/programs.js"
import { Parser } from "./helpers.js"

// The program table is data: every row is held to what it says, so a new row is tested as soon
// as it is written.
const FORCE_PUSH = "git push -f origin main"

const decide = (command: string, level: Autonomy.Level = "execute") =>
  Effect.gen(function*() {
    const parser = yield* ShellParser.ShellParser
    yield* parser.ready
    const compiled = yield* Policy.compile({ level, workspace: "/srv/app" })
    return Policy.decideSync(compiled, parser, { tool: "shell", command })
  })

const valueFor = (option: string, value: string): string =>
  option.startsWith("--") ? `${option}='${value}'` : `${option} '${value}'`

describe("program table", () => {
  layer(Parser)((it) => {
    it.effect("every wrapper runs what it wraps: a force-push behind it is denied", () =>
      Effect.gen(function*() {
        for (const [name, spec] of WRAPPERS) {
          const skipped = Array.from({ length: spec.skip ?? 0 }, () => "x").join(" ")
          const command = spec.scriptOnly
            ? `${name} ${valueFor(spec.script![0]!, FORCE_PUSH)}`
            : spec.joinsRest
            ? `${name} ${skipped} ${FORCE_PUSH}`
            : `${name} ${skipped} ${FORCE_PUSH}`
          const d = yield* decide(command)
          assert.strictEqual(d.decision, "deny", `${command}: ${d.citation.reason}`)
          for (const option of spec.script ?? []) {
            const scripted = yield* decide(`${name} ${skipped} ${valueFor(option, FORCE_PUSH)}`)
            assert.strictEqual(scripted.decision, "deny", `${name} ${option}`)
          }
        }
      }))

    it.effect("every runner subcommand runs its argv", () =>
      Effect.gen(function*() {
        for (const [name, spec] of RUNNERS) {
          const skipped = Array.from({ length: spec.skip ?? 0 }, () => "x").join(" ")
          // a runner that names its program (`yarn node …`) runs that program's inline code, whose
          // string literals are read as commands
          const command = spec.program !== undefined
            ? `${name} -e 'require("child_process").execSync("${FORCE_PUSH}")'`
            : spec.scriptOnly
            ? `${name} ${valueFor(spec.script![0]!, FORCE_PUSH)}`
            : `${name} ${skipped} ${FORCE_PUSH}`
          assert.strictEqual((yield* decide(command)).decision, "deny", command)
        }
        // global options before the runner subcommand do not hide it
        for (
          const command of [
            `pnpm --filter app exec ${FORCE_PUSH}`,
            `npm --prefix . exec -- ${FORCE_PUSH}`,
            `npm -w pkg exec -- ${FORCE_PUSH}`,
            `npm --loglevel=silent exec -c '${FORCE_PUSH}'`,
            `uv --directory . run ${FORCE_PUSH}`
          ]
        ) assert.strictEqual((yield* decide(command)).decision, "deny", command)
      }))

    it.effect("every shell's script option is read as a command", () =>
      Effect.gen(function*() {
        for (const [name, spec] of SHELLS) {
          for (const option of spec.script) {
            const d = yield* decide(`${name} ${option} '${FORCE_PUSH}'`)
            assert.strictEqual(d.decision, "deny", `${name} ${option}`)
          }
          for (const option of spec.unreadable ?? []) {
            assert.notStrictEqual((yield* decide(`${name} ${option} ZWNobwo=`)).decision, "allow", `${name} ${option}`)
          }
          // Reading the script from a pipe the engine cannot see asks.
          assert.strictEqual((yield* decide(`base64 -d x | ${name}`)).decision, "ask", `| ${name}`)
        }
      }))

    it.effect("every interpreter's inline-code option asks at execute, in attached and clustered spellings", () =>
      Effect.gen(function*() {
        for (const [name, spec] of INTERPRETERS) {
          for (const option of spec.code) {
            const spellings = option.startsWith("--")
              ? [`${option} 'x'`, `${option}='x'`]
              : [`${option} 'x'`, `${option}'x'`]
            for (const spelling of spellings) {
              const d = yield* decide(`${name} ${spelling}`)
              assert.strictEqual(d.decision, "ask", `${name} ${spelling}: ${d.citation.reason}`)
            }
          }
          assert.strictEqual((yield* decide(`${name} /dev/stdin < x`)).decision, "ask", `${name} /dev/stdin`)
        }
        for (
          const spelling of ["python3 -Ic 'x'", "python3.12 -c 'x'", "node -pe 'x'", "node --input-type=module -e x"]
        ) {
          assert.strictEqual((yield* decide(spelling)).decision, "ask", spelling)
        }
      }))

    it.effect("options that run a command are read as commands; options that write write", () =>
      Effect.gen(function*() {
        for (const [name, spec] of PROGRAMS) {
          for (const option of spec.runs ?? []) {
            const d = yield* decide(`${name} ${valueFor(option, FORCE_PUSH)} x`)
            assert.strictEqual(d.decision, "deny", `${name} ${option}`)
          }
          for (const option of spec.code ?? []) {
            const d = yield* decide(`${name} ${valueFor(option, "x")} y`)
            assert.notStrictEqual(d.decision, "allow", `${name} ${option}`)
          }
          for (const option of spec.writes ?? []) {
            const outside = yield* decide(`${name} ${valueFor(option, "/root/.bashrc")} src/a`)
            assert.notStrictEqual(outside.decision, "allow", `${name} ${option} outside`)
            const readOnly = yield* decide(`${name} ${valueFor(option, "src/out")} src/a`, "read_only")
            assert.strictEqual(readOnly.decision, "deny", `${name} ${option} at read_only`)
          }
          for (const option of spec.runsArgs ?? []) {
            for (
              const spelling of [`${option} '${FORCE_PUSH}'`, `${option}='${FORCE_PUSH}'`, `-${option}='${FORCE_PUSH}'`]
            ) {
              assert.strictEqual(
                (yield* decide(`${name} build ${spelling} ./x`)).decision,
                "deny",
                `${name} ${spelling}`
              )
            }
          }
          for (const option of spec.programFiles ?? []) {
            for (const stdin of ["-", "/dev/stdin"]) {
              const d = yield* decide(`printf x | ${name} ${option} ${stdin}`)
              assert.strictEqual(d.decision, "ask", `${name} ${option} ${stdin}: ${d.citation.reason}`)
            }
            const secret = yield* decide(`${name} ${option} .env`)
            assert.notStrictEqual(secret.decision, "allow", `${name} ${option} .env`)
            const plain = yield* decide(`${name} ${option} build/rules.mk`)
            assert.strictEqual(plain.decision, "allow", `${name} ${option} build/rules.mk`)
          }
          if (spec.operands === "write") {
            assert.strictEqual((yield* decide(`${name} /dev/sda`)).decision, "deny", `${name} /dev/sda`)
          }
        }
      }))

    it.effect("sed and awk program files: stdin is unreadable code, a workspace file is read", () =>
      Effect.gen(function*() {
        for (const tool of ["sed", "awk"]) {
          for (const stdin of ["-", "/dev/stdin"]) {
            const d = yield* decide(`${tool} -f ${stdin} src/a.txt <<< 'x'`)
            assert.strictEqual(d.decision, "ask", `${tool} -f ${stdin}`)
          }
          assert.notStrictEqual((yield* decide(`${tool} -f .env src/a.txt`)).decision, "allow", `${tool} -f .env`)
          assert.strictEqual((yield* decide(`${tool} -f tools/fix.${tool} src/a.txt`)).decision, "allow", tool)
        }
      }))

    it.effect("a program not in the table asks, and is cited as unknown", () =>
      Effect.gen(function*() {
        const d = yield* decide("frobnicate --all")
        assert.strictEqual(d.decision, "ask")
        assert.strictEqual(d.citation.ruleId, "engine.unknown-program")
        assert.strictEqual(d.citation.resource, "frobnicate")
      }))
  })
})
