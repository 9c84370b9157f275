import { describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { Autonomy, Policy, Rule, ShellParser } from "../src/index.js"
import { Parser } from "./helpers.js"

const UNIVERSAL_DENIES = [
  "rm -rf /",
  "rm -fr ~",
  "git push --force origin main",
  "git push origin +main",
  "mkfs.ext4 /dev/sda1",
  "dd if=/dev/zero of=/dev/sda",
  "curl http://169.254.169.254/",
  "sudo bash -c 'rm -rf /'"
]

const patternPool = [
  "*",
  "**",
  "rm *",
  "rm -f -r /",
  "git *",
  "git push *",
  "git push --force*",
  "mkfs*",
  "dd *",
  "curl *",
  "/dev/**",
  "*://169.254.169.254*",
  "sudo *",
  "bash *",
  "/**",
  "~"
]
const actionPool = ["*", "shell", "read", "write", "fetch", "mcp", "agent"] as const
const effectPool = ["allow", "ask", "deny"] as const

const ruleArb = fc.record({
  action: fc.constantFrom(...actionPool),
  resource: fc.constantFrom(...patternPool),
  effect: fc.constantFrom(...effectPool),
  except: fc.option(fc.array(fc.constantFrom(...patternPool), { maxLength: 2 }), { nil: undefined })
})

describe("properties", () => {
  layer(Parser)((it) => {
    it.effect("no configuration of user rules changes a universal deny", () =>
      Effect.gen(function*() {
        const parser = yield* ShellParser.ShellParser
        yield* parser.ready
        fc.assert(
          fc.property(
            fc.array(ruleArb, { maxLength: 12 }),
            fc.constantFrom(...Autonomy.levels),
            fc.constantFrom(...UNIVERSAL_DENIES),
            (rules, level, command) => {
              const compiled = Effect.runSync(Policy.compile({
                level,
                workspace: "/srv/app",
                rules: rules.map((r, i) =>
                  Rule.make({
                    id: `r${i}`,
                    action: r.action,
                    resource: r.resource,
                    effect: r.effect,
                    ...(r.except ? { except: r.except } : {})
                  })
                )
              }))
              const decision = Policy.decideSync(compiled, parser, { tool: "shell", command })
              return decision.decision === "deny" && decision.citation.layer === "universal"
            }
          ),
          { numRuns: 300 }
        )
      }))

    const tokens: ReadonlyArray<ReadonlyArray<string>> = [
      ["git", "status", "--short"],
      ["rm", "-rf", "/"],
      ["rm", "-rf", "./dist"],
      ["git", "push", "-f", "origin", "main"],
      ["git", "push", "origin", "main"],
      ["cat", ".env"],
      ["cat", ".env.example"],
      ["grep", "-n", "mkfs", "notes.md"],
      ["npm", "test"],
      ["curl", "http://169.254.169.254/latest"],
      ["python3", "-c", "print(1)"],
      ["ls", "-la", "/tmp"],
      ["echo", "hello world"],
      ["find", ".", "-name", "*.o", "-delete"]
    ]
    const quote = (token: string, style: number): string => {
      const safe = /^[A-Za-z0-9_./=:+,@%-]+$/.test(token)
      switch (style) {
        case 0:
          return safe ? token : `'${token}'`
        case 1:
          return `'${token.replace(/'/g, "'\\''")}'`
        case 2:
          return `"${token.replace(/(["\\$`])/g, "\\$1")}"`
        default:
          return safe
            ? token.split("").map((c, i) => i === 0 && /[A-Za-z]/.test(c) ? `\\${c}` : c).join("")
            : `'${token}'`
      }
    }
    it.effect("decisions are invariant under insignificant whitespace and quoting", () =>
      Effect.gen(function*() {
        const parser = yield* ShellParser.ShellParser
        yield* parser.ready
        const compiled = yield* Policy.compile({ level: "execute", workspace: "/srv/app" })
        fc.assert(
          fc.property(
            fc.constantFrom(...tokens),
            fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 8, maxLength: 8 }),
            fc.array(fc.constantFrom(" ", "  ", "\t", " \t ", " \\\n  "), { minLength: 8, maxLength: 8 }),
            fc.constantFrom("", " ", "\t", "  "),
            (argv, styles, gaps, edge) => {
              const plain = argv.map((t) => quote(t, 0)).join(" ")
              const varied = edge + argv.map((t, i) => quote(t, styles[i]!)).join(gaps[0]!) + edge
              const a = Policy.decideSync(compiled, parser, { tool: "shell", command: plain })
              const b = Policy.decideSync(compiled, parser, { tool: "shell", command: varied })
              return a.decision === b.decision && a.citation.ruleId === b.citation.ruleId
            }
          ),
          { numRuns: 400 }
        )
      }))
  })
})
