import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { ApprovalScope, ShellParser } from "../src/index.js"
import { Parser } from "./helpers.js"

const withParser = <A>(f: (parser: ShellParser.ShellParser["Type"]) => A) =>
  Effect.gen(function*() {
    const parser = yield* ShellParser.ShellParser
    yield* parser.ready
    return f(parser)
  }).pipe(Effect.provide(Parser))

const scopeOf = (resource: string, action = "shell") =>
  withParser((parser) => ApprovalScope.scope({ action, resource }, parser))

const right = (result: ApprovalScope.Result): ApprovalScope.Scope => {
  if (Either.isLeft(result)) assert.fail(`refused: ${result.left.code}: ${result.left.reason}`)
  return result.right
}

const refused = (result: ApprovalScope.Result, code: ApprovalScope.RefusalCode): string => {
  if (Either.isRight(result)) assert.fail(`expected a refusal (${code}), got ${JSON.stringify(result.right)}`)
  assert.strictEqual(result.left.code, code, result.left.reason)
  return result.left.reason
}

describe("ApprovalScope.scope", () => {
  it.effect("the issue's three calls get the program, subcommand and meaning options", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(right(yield* scopeOf("node --test")), { pattern: "node --test *", alternatives: [] })
      assert.deepStrictEqual(right(yield* scopeOf("git push origin main")), {
        pattern: "git push origin *",
        alternatives: ["git push *"]
      })
      assert.deepStrictEqual(right(yield* scopeOf("psql -c 'select 1'")), {
        pattern: "psql -c *",
        alternatives: ["psql *"]
      })
    }))

  it.effect("wrappers, env prefixes and subshells are read as the engine reads them", () =>
    Effect.gen(function*() {
      assert.strictEqual(right(yield* scopeOf("timeout 60 node --test x.js")).pattern, "node --test *")
      assert.strictEqual(right(yield* scopeOf("PGHOST=db psql -c 'select 1'")).pattern, "psql -c *")
      assert.strictEqual(right(yield* scopeOf("env PGHOST=db psql -c 'select 1'")).pattern, "psql -c *")
      assert.strictEqual(right(yield* scopeOf("bash -c 'git push origin main'")).pattern, "git push origin *")
      assert.strictEqual(right(yield* scopeOf("(git push origin main) | cat")).pattern, "git push origin *")
      assert.deepStrictEqual(right(yield* scopeOf("git push origin a && git push origin b")), {
        pattern: "git push origin *",
        alternatives: ["git push *"]
      })
    }))

  it.effect("refuses what no rule can make pass", () =>
    Effect.gen(function*() {
      refused(yield* scopeOf("git push --force origin main"), "universal")
      refused(yield* scopeOf("sudo git push origin main"), "unresolved")
      refused(yield* scopeOf("$CMD --test"), "unresolved")
      refused(yield* scopeOf("node -e \"$X\""), "unresolved")
      refused(yield* scopeOf("psql -c 'select 1' && mysql -e 'select 1'"), "several-programs")
      refused(yield* scopeOf("cat .env"), "universal")
      refused(yield* scopeOf("ls -la"), "empty")
      refused(yield* scopeOf("   "), "empty")
      refused(yield* scopeOf("x", "delete"), "unknown-action")
    }))

  it.effect("a known program is never scoped program-wide", () =>
    Effect.gen(function*() {
      const node = right(yield* scopeOf("node"))
      assert.isFalse([node.pattern, ...node.alternatives].includes("node *"))
      const git = right(yield* scopeOf("git commit -m wip"))
      assert.deepStrictEqual(git, { pattern: "git commit -m *", alternatives: ["git commit *"] })
    }))

  it.effect("paths scope to their directory, URLs to their origin", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(right(yield* scopeOf("src/app/a.ts", "write")), {
        pattern: "src/app/**",
        alternatives: ["src/**"]
      })
      assert.deepStrictEqual(right(yield* scopeOf("README.md", "write")), { pattern: "README.md", alternatives: [] })
      refused(yield* scopeOf("/etc/hosts", "write"), "universal")
      refused(yield* scopeOf("~/.ssh/id_rsa", "read"), "universal")
      refused(yield* scopeOf(".env", "read"), "universal")
      refused(yield* scopeOf(".git/hooks/pre-commit", "write"), "universal")
      assert.deepStrictEqual(right(yield* scopeOf("https://example.com/a/b?c=1", "fetch")), {
        pattern: "https://example.com/**",
        alternatives: []
      })
      refused(yield* scopeOf("http://169.254.169.254/latest", "fetch"), "universal")
      assert.strictEqual(right(yield* scopeOf("db_query", "mcp")).pattern, "db_query")
    }))
})

describe("ApprovalScope.check", () => {
  const checkOf = (resource: string, pattern: string, action = "shell") =>
    withParser((parser) => ApprovalScope.check({ action, resource }, pattern, parser))

  it.effect("accepts a narrower or equal scope that covers the call", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        right(yield* checkOf("git push origin main", "git push origin main")).pattern,
        "git push origin main"
      )
      assert.strictEqual(right(yield* checkOf("git push origin main", "git push *")).pattern, "git push *")
      assert.strictEqual(right(yield* checkOf("psql -c 'select 1'", "psql *")).pattern, "psql *")
      assert.strictEqual(right(yield* checkOf("src/a/b.ts", "src/**", "write")).pattern, "src/**")
    }))

  it.effect("refuses bare, program-wide, wildcard-program and non-covering scopes", () =>
    Effect.gen(function*() {
      refused(yield* checkOf("git push origin main", "*"), "wildcard-program")
      refused(yield* checkOf("git push origin main", "g* push *"), "wildcard-program")
      assert.include(refused(yield* checkOf("git push origin main", "git *"), "too-wide"), "git push origin *")
      refused(yield* checkOf("node --test", "node *"), "too-wide")
      refused(yield* checkOf("node --test", "node -e *"), "not-covering")
      refused(yield* checkOf("git push --force origin main", "git push *"), "universal")
      refused(yield* checkOf("src/a.ts", "**", "write"), "too-wide")
      refused(yield* checkOf("src/a.ts", "lib/**", "write"), "not-covering")
      refused(yield* checkOf("https://example.com/a", "https://*/**", "fetch"), "too-wide")
      refused(yield* checkOf("git push origin main", "git push {"), "not-covering")
    }))
})
