/**
 * Issue 35 item 3: a remembered scope is honoured. The scope `ApprovalScope` computes for an
 * approved call, saved as a user rule, allows the next matching call (loosening the engine's or
 * universal ask it names), while universal denies, wildcard rules and other calls stay as they were.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { ApprovalScope, type Autonomy, Files, Policy, Rule, ShellParser } from "../src/index.js"
import { Parser, shell } from "./helpers.js"

const remembered = (pattern: string, id = "remembered.shell.1"): Rule.RuleInput => ({
  id,
  action: "shell",
  resource: pattern,
  effect: "allow",
  note: "approved and remembered by person"
})

const scopeOf = (command: string) =>
  Effect.gen(function*() {
    const parser = yield* ShellParser.ShellParser
    yield* parser.ready
    const result = ApprovalScope.scope({ action: "shell", resource: command }, parser)
    if (Either.isLeft(result)) return assert.fail(`${command}: ${result.left.reason}`)
    return result.right
  })

const LEVELS: ReadonlyArray<Autonomy.Level> = ["assist", "execute"]

describe("remembered scopes are honoured", () => {
  it.effect("node --test: the next node --test runs; node -e still asks", () =>
    Effect.gen(function*() {
      const { pattern } = yield* scopeOf("node --test")
      for (const level of LEVELS) {
        const rules = [remembered(pattern)]
        assert.strictEqual((yield* shell("node --test", { level, rules })).decision, "allow", level)
        assert.strictEqual((yield* shell("node --test x.js", { level, rules })).decision, "allow", level)
        assert.strictEqual((yield* shell("node -e 'x'", { level, rules })).decision, "ask", level)
      }
    }).pipe(Effect.provide(Parser)))

  it.effect("git push origin main: the next push runs citing the rule and the ask it overrode; force stays denied", () =>
    Effect.gen(function*() {
      const scope = yield* scopeOf("git push origin main")
      for (const level of LEVELS) {
        for (const pattern of [scope.pattern, ...scope.alternatives]) {
          const rules = [remembered(pattern)]
          for (const command of ["git push origin main", "git push origin feature"]) {
            const decision = yield* shell(command, { level, rules })
            assert.strictEqual(decision.decision, "allow", `${level} ${pattern} ${command}`)
            assert.strictEqual(decision.citation.ruleId, "remembered.shell.1")
            assert.deepStrictEqual(decision.citation.overrides, {
              layer: "universal",
              ruleId: "universal.publish.git-push",
              note: "publishing leaves the machine"
            })
            assert.include(decision.citation.reason, "loosens the universal ask universal.publish.git-push")
          }
          const force = yield* shell("git push --force origin main", { level, rules })
          assert.strictEqual(force.decision, "deny")
          assert.strictEqual(force.citation.ruleId, "universal.force-push")
        }
        const narrow = [remembered(scope.pattern)]
        assert.strictEqual((yield* shell("git push upstream main", { level, rules: narrow })).decision, "ask")
      }
    }).pipe(Effect.provide(Parser)))

  it.effect("psql -c: the next psql -c runs, loosening engine.unknown-program; other psql uses still ask", () =>
    Effect.gen(function*() {
      const { pattern } = yield* scopeOf("psql -c 'select 1'")
      for (const level of LEVELS) {
        const rules = [remembered(pattern)]
        const decision = yield* shell("psql -c 'select 2'", { level, rules })
        assert.strictEqual(decision.decision, "allow", level)
        assert.strictEqual(decision.citation.ruleId, "remembered.shell.1")
        const guard = decision.segments[0]!.checks.find((c) =>
          c.citation.overrides?.ruleId === "engine.unknown-program"
        )
        assert.isDefined(guard, "the guard's check cites the rule that overrode it")
        assert.strictEqual((yield* shell("psql -f drop.sql", { level, rules })).decision, "ask")
        assert.strictEqual((yield* shell("mysql -e 'select 1'", { level, rules })).decision, "ask")
      }
    }).pipe(Effect.provide(Parser)))

  it.effect("a wildcard program, a bare * or a known program's every use loosens no ask; a later ask or deny wins; level denies stay", () =>
    Effect.gen(function*() {
      for (const wide of ["*", "g* push *", "?sql *", "{git,psql} *", "git *", "git p* *"]) {
        const rules = [remembered(wide)]
        assert.strictEqual((yield* shell("git push origin main", { rules })).decision, "ask", wide)
        assert.strictEqual((yield* shell("psql -c 'select 1'", { rules })).decision, "ask", wide)
      }
      const later = [remembered("git push *"), {
        id: "no-push",
        action: "shell" as const,
        resource: "git push *",
        effect: "ask" as const
      }]
      assert.strictEqual((yield* shell("git push origin main", { rules: later })).decision, "ask")
      const readOnly = yield* shell("git push origin main", { level: "read_only", rules: [remembered("git push *")] })
      assert.strictEqual(readOnly.decision, "deny")
    }).pipe(Effect.provide(Parser)))

  it.effect("a subagent's narrowing still asks over a remembered grant", () =>
    Effect.gen(function*() {
      const engine = yield* Policy.make({
        level: "execute",
        workspace: "/srv/app",
        home: "/home/dev",
        files: Files.memory({ "/srv/app": "directory", "/home/dev": "directory" }),
        rules: [Rule.make(remembered("git push *"))]
      })
      assert.strictEqual((yield* engine.decide({ tool: "shell", command: "git push origin main" })).decision, "allow")
      const child = yield* engine.forSubagent([
        Rule.make({ id: "sub", action: "shell", resource: "git push *", effect: "ask" })
      ])
      assert.strictEqual((yield* child.decide({ tool: "shell", command: "git push origin main" })).decision, "ask")
    }).pipe(Effect.provide(Parser)))
})

// Routine commands from real CI files, and the shapes inside wrappers, pipes and subshells.
const routine: ReadonlyArray<string> = fs.readFileSync(
  path.join(import.meta.dirname, "fixtures", "routine-commands.jsonl"),
  "utf8"
).split("\n").filter((line) => line.trim() !== "").map((line) => (JSON.parse(line) as { input: string }).input)

const shapes = [
  "node --test",
  "git push origin main",
  "psql -c 'select 1'",
  "docker push app:1",
  "gh pr create",
  "mytool run --fast x"
]
const wrappers = ["", "timeout 60 ", "env A=1 ", "nice -n 5 ", "A=1 "]
const around = [(c: string) => c, (c: string) => `(${c})`, (c: string) => `${c} | cat`, (c: string) => `bash -c '${c}'`]

describe("property: every scope covers its call and is honoured by the engine", () => {
  it.effect("allowed shell checks under the scope and each alternative (assist)", () =>
    Effect.gen(function*() {
      const parser = yield* ShellParser.ShellParser
      yield* parser.ready
      const compiled = new Map<string, Policy.Compiled>()
      const engineFor = (pattern: string) =>
        Effect.gen(function*() {
          const hit = compiled.get(pattern)
          if (hit !== undefined) return hit
          const c = yield* Policy.compile({
            level: "assist",
            workspace: "/srv/app",
            home: "/home/dev",
            files: Files.memory({ "/srv/app": "directory", "/home/dev": "directory" }),
            rules: [Rule.make(remembered(pattern))]
          })
          compiled.set(pattern, c)
          return c
        })
      const commands = fc.oneof(
        fc.constantFrom(...routine),
        fc.tuple(fc.constantFrom(...shapes), fc.constantFrom(...wrappers), fc.constantFrom(...around)).map((
          [c, w, a]
        ) => a(`${w}${c}`))
      )
      let scoped = 0
      for (const command of fc.sample(commands, { numRuns: 300, seed: 35 })) {
        const result = ApprovalScope.scope({ action: "shell", resource: command }, parser)
        if (Either.isLeft(result)) continue
        scoped++
        for (const pattern of [result.right.pattern, ...result.right.alternatives]) {
          assert.isTrue(
            Either.isRight(ApprovalScope.check({ action: "shell", resource: command }, pattern, parser)),
            `${command} / ${pattern}`
          )
          const decision = Policy.decideSync(yield* engineFor(pattern), parser, { tool: "shell", command })
          for (const segment of decision.segments) {
            for (const check of segment.checks) {
              if (check.action !== "shell") continue
              assert.strictEqual(check.decision, "allow", `${command} under ${pattern}: ${check.citation.reason}`)
            }
          }
        }
      }
      assert.isAbove(scoped, 100, "most samples get a scope")
    }).pipe(Effect.provide(Parser)))
})
