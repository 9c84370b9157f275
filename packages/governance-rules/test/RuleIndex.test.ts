import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Rule } from "../src/index.js"
import * as Evaluate from "../src/internal/evaluate.js"
import * as Glob from "../src/internal/glob.js"
import type { Action } from "../src/Rule.js"

// Issue 17: the indexed evaluator must choose exactly the rule the linear one does — same rule,
// same citation — for first/last-match and deny-overrides layers alike.
const textPatterns = [
  "*",
  "git *",
  "git status *",
  "git push --force*",
  "git {push,pull} *",
  "npm sub1 *",
  "npm test",
  "*--flag1*",
  "*awk *|*",
  "rm *-r* /",
  "r? -rf *",
  "[gh]it *",
  "*publish*",
  "docker buildx {build,bake} *--push*",
  "gi\\t *",
  "ls",
  "*.sh"
]
const pathPatterns = [
  "**",
  "/**",
  "~",
  "src/**",
  "src/*.ts",
  "**/.env",
  "**/.env.*",
  "**/*.{p12,pfx}",
  "dir1/**",
  "gen1/**/*.ts",
  "/dev/{sd*,nvme*}",
  "https://host1.example.com/**",
  "*://169.254.169.254{,:*}/**",
  "?rc/**",
  "**/id_{rsa,ed25519}*",
  "a b *"
]
const textResources = [
  "git status",
  "git status --short",
  "git push --force origin main",
  "git pull origin",
  "npm sub1 x",
  "npm test",
  "awk {print|sh}",
  "rm -f -r /",
  "rm -rf build",
  "hit x",
  "gi\\t x",
  "pnpm publish",
  "docker buildx bake --push",
  "./x.sh",
  "ls",
  "make --flag1=2"
]
const pathResources = [
  ".",
  "src",
  "src/a.ts",
  "src/b/c.ts",
  ".env",
  "config/.env.local",
  "/etc/passwd",
  "~",
  "dir1/x",
  "gen1/a/b.ts",
  "/dev/sda",
  "https://host1.example.com/x",
  "http://169.254.169.254/latest",
  "xrc/y",
  "keys/id_rsa.pub",
  "a b c",
  "certs/x.p12"
]

const arbRules = (patterns: ReadonlyArray<string>, actions: ReadonlyArray<Action | "*">) =>
  fc.array(
    fc.record({
      action: fc.constantFrom(...actions),
      resource: fc.constantFrom(...patterns),
      effect: fc.constantFrom("allow" as const, "ask" as const, "deny" as const),
      except: fc.option(fc.array(fc.constantFrom(...patterns), { maxLength: 1 }), { nil: undefined })
    }),
    { maxLength: 40 }
  )

const check = (
  patterns: ReadonlyArray<string>,
  resources: ReadonlyArray<string>,
  actions: ReadonlyArray<Action>
) =>
  fc.assert(
    fc.property(arbRules(patterns, [...actions, "*"]), fc.boolean(), (inputs, strictest) => {
      const rules = inputs.map((r, i) =>
        Rule.make({
          id: `r${i}`,
          action: r.action,
          resource: r.resource,
          effect: r.effect,
          ...(r.except ? { except: r.except } : {})
        })
      )
      let layer: Evaluate.CompiledLayer
      try {
        layer = Evaluate.compileLayer("user", rules, strictest)
      } catch (e) {
        // A `*`-action rule whose pattern is refused as a path pattern (no linear bound).
        if (e instanceof Glob.GlobError) return fc.pre(false)
        throw e
      }
      for (const action of actions) {
        for (const resource of resources) {
          const indexed = Evaluate.matchLayer(layer, action, resource)
          const linear = Evaluate.matchLayerLinear(layer, action, resource)
          if (indexed?.index !== linear?.index) {
            throw new Error(`${action} ${JSON.stringify(resource)}: indexed ${indexed?.index} linear ${linear?.index}`)
          }
        }
      }
      return true
    }),
    { numRuns: 400 }
  )

describe("rule index", () => {
  it("text actions: the indexed and the linear evaluator choose the same rule", () => {
    check(textPatterns, textResources, ["shell", "mcp"])
  })

  it("path actions: the indexed and the linear evaluator choose the same rule", () => {
    check(pathPatterns, pathResources, ["read", "write", "fetch"])
  })

  it("a resource's candidates are only the rules that can match it", () => {
    const rules = Array.from(
      { length: 1000 },
      (_, i) => Rule.make({ id: `r${i}`, action: "shell", resource: `tool${i} sub *`, effect: "allow" })
    )
    const layer = Evaluate.compileLayer("user", rules, false)
    assert.deepStrictEqual(layer.candidates("shell", "tool7 sub x").map((c) => c.rule.id), ["r7"])
    assert.strictEqual(Evaluate.matchLayer(layer, "shell", "tool7 sub x")?.rule.id, "r7")
    assert.strictEqual(layer.candidates("shell", "other").length, 0)
  })
})
