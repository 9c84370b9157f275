/**
 * Compiling an engine configuration (patterns compiled once, rule ids checked) and explaining a
 * compiled policy layer by layer.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Autonomy from "../../Autonomy.js"
import * as Files from "../../Files.js"
import * as GovernanceError from "../../GovernanceError.js"
import type { Compiled, Config, Explanation } from "../../Policy.js"
import * as Analyze from "../analyze/index.js"
import * as Evaluate from "../evaluate.js"
import * as Paths from "../paths.js"
import * as Host from "./host.js"

/** @internal */
export const compile = (config: Config): Effect.Effect<Compiled, GovernanceError.GovernanceError> =>
  Effect.flatMap(Host.homeOf(config.home), (home) => compileWith(config, home))

const compileWith = (config: Config, home: string): Effect.Effect<Compiled, GovernanceError.GovernanceError> =>
  Effect.suspend(() => {
    const rules = config.rules ?? []
    const seen = new Set<string>()
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]!
      if (seen.has(rule.id)) {
        return Effect.fail(
          GovernanceError.make("policy-invalid", `duplicate rule id "${rule.id}" at rules[${i}]`, {
            path: `rules[${i}].id`,
            key: "id",
            ...(config.ruleSources?.[i] ? { file: config.ruleSources[i]! } : {})
          })
        )
      }
      seen.add(rule.id)
      try {
        const kinds = rule.action === "*"
          ? (["path", "text"] as const)
          : [Evaluate.isTextAction(rule.action) ? "text" as const : "path" as const]
        for (const kind of kinds) {
          Evaluate.compilePattern(rule.resource, kind)
          for (const e of rule.except ?? []) Evaluate.compilePattern(e, kind)
        }
      } catch (cause) {
        return Effect.fail(
          GovernanceError.make(
            "policy-invalid",
            `rules[${i}].resource: invalid pattern ${JSON.stringify(rule.resource)}`,
            {
              path: `rules[${i}].resource`,
              key: "resource",
              cause
            }
          )
        )
      }
    }
    // the workspace is the host's to say: a library does not guess it from the current directory
    if (config.workspace === undefined) return Effect.fail(Host.missingWorkspace)
    const level = config.level ?? Autonomy.defaultLevel
    const files = config.files ?? Files.node
    return Effect.succeed<Compiled>({
      level,
      files,
      workspace: Paths.realDirectory(config.workspace, files),
      home: Paths.realDirectory(home, files),
      layers: [
        Evaluate.compileLayer("universal", Autonomy.universalRules, true),
        Evaluate.compileLayer("level", Autonomy.baselineRules(level), false),
        Evaluate.compileLayer("user", rules, false, config.ruleSources)
      ]
    })
  })

/** @internal */
export const explain = (compiled: Compiled): Explanation => ({
  level: compiled.level,
  workspace: compiled.workspace,
  layers: compiled.layers.map((layer) => ({
    layer: layer.name,
    combine: layer.strictest ? "deny-overrides" as const : "last-match" as const,
    rules: layer.rules.map((c) => ({
      index: c.index,
      source: c.source,
      id: c.rule.id,
      action: c.rule.action,
      resource: c.rule.resource,
      effect: c.rule.effect,
      ...(c.rule.note === undefined ? {} : { note: c.rule.note }),
      ...(c.rule.except === undefined ? {} : { except: c.rule.except })
    }))
  })),
  engine: (Object.keys(Analyze.guardReasons) as Array<Analyze.GuardId>).map((id) => ({
    id: `engine.${id}`,
    effect: "ask" as const,
    reason: Analyze.guardReasons[id]
  })),
  fallback: "ask"
})
