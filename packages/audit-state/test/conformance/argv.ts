/**
 * The corpus's argv (the Steward CLI's grammar: options, then positionals) as library requests.
 * It mirrors `packages/cli/src/commands/audit.ts` option for option.
 */
import type * as Verbs from "../../src/Verbs.js"

export interface Parsed {
  readonly command: string
  readonly options: Readonly<Record<string, string>>
  readonly flags: ReadonlySet<string>
  readonly positionals: ReadonlyArray<string>
}

const FLAGS = new Set(["json", "clear", "remove", "dry-run"])

export const parse = (argv: ReadonlyArray<string>, project: string, input: string): Parsed => {
  const sub = (s: string) => s.replaceAll("{project}", project).replaceAll("{input}", input)
  let k = 1
  let command = argv[k++]!
  if (command === "dispatch") command = `dispatch ${argv[k++]!}`
  const options: Record<string, string> = {}
  const flags = new Set<string>()
  const positionals: Array<string> = []
  while (k < argv.length) {
    const a = argv[k++]!
    if (a.startsWith("--")) {
      const name = a.slice(2)
      if (FLAGS.has(name)) flags.add(name)
      else options[name] = sub(argv[k++]!)
    } else positionals.push(sub(a))
  }
  return { command, options, flags, positionals }
}

const list = (s: string | undefined): ReadonlyArray<string> | undefined =>
  s === undefined ? undefined : s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)

/** A write verb's request (`record-refusal` gets its body text from the caller). */
export const toRequest = (p: Parsed, bodyText?: string): Verbs.VerbRequestText => {
  const o = p.options
  const [a0, a1] = p.positionals as [string, string]
  switch (p.command) {
    case "set-status":
      return { verb: "set-status", id: a0, status: a1, next: o.next, retake: o.retake }
    case "record-fix":
      return { verb: "record-fix", id: a0, session: o.session!, plan: o.plan, scope: o.scope }
    case "record-verdict":
      return { verb: "record-verdict", id: a0, verdict: o.verdict!, session: o.session!, reason: o.reason }
    case "admit-construal":
      return { verb: "admit-construal", key: a0, admitter: o.admitter! }
    case "file-finding":
      return {
        verb: "file-finding",
        id: o.id!,
        title: o.title!,
        severity: o.severity!,
        dimension: o.dimension!,
        unit: list(o.unit) ?? [],
        pass: o.pass!,
        body: o.body!,
        locator: o.locator,
        sourceHash: o["source-hash"],
        recurrenceOf: o["recurrence-of"],
        members: list(o.members),
        session: o.session
      }
    case "propose-construal":
      return {
        verb: "propose-construal",
        key: a0,
        role: o.role!,
        charter: o.charter!,
        session: o.session!,
        body: o.body!
      }
    case "record-plan":
      return { verb: "record-plan", id: a0, findings: list(o.findings) ?? [], body: o.body! }
    case "queue-pass":
      return {
        verb: "queue-pass",
        id: a0,
        dimension: o.dimension!,
        units: list(o.units) ?? [],
        charter: o.charter!,
        stop: o.stop!,
        base: o.base
      }
    case "record-refusal":
      return {
        verb: "record-refusal",
        id: a0,
        reason: o.reason,
        clear: p.flags.has("clear") ? true : undefined,
        bodyText
      }
    case "block-on-norm":
      return { verb: "block-on-norm", id: a0 }
    case "record-ruling":
      return { verb: "record-ruling", id: a0, norm: o.norm!, ruledBy: o["ruled-by"]! }
    case "record-coverage":
      return { verb: "record-coverage", id: a0, report: o.report!, findings: list(o.findings) }
    case "set-limit":
      return { verb: "set-limit", key: a0, value: a1 }
    case "amend-pass":
      return {
        verb: "amend-pass",
        id: a0,
        dimension: o.dimension,
        units: list(o.units),
        charter: o.charter,
        stop: o.stop
      }
    case "cancel-pass":
      return { verb: "cancel-pass", id: a0 }
    case "update-catalog":
      return {
        verb: "update-catalog",
        kind: a0,
        key: a1,
        source: o.source,
        scope: o.scope,
        catches: o.catches,
        norms: list(o.norms),
        material: o.material,
        size: o.size,
        responsibility: o.responsibility,
        remove: p.flags.has("remove") ? true : undefined
      }
    default:
      throw new Error(`conformance: no request for '${p.command}'`)
  }
}
