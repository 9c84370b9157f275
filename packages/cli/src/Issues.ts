/**
 * Schema failures as people read them: one line per issue, with its path, and for a literal every
 * valid value (`extensions.reflexes.route: expected one of "off", "observe", "auto", "active", got
 * "activ"`) instead of one "Expected …" line per alternative.
 *
 * @since 0.1.0
 */
import * as ParseResult from "effect/ParseResult"

/**
 * One issue: a dotted path (empty for the document itself) and what is wrong there.
 *
 * @since 0.1.0
 * @category models
 */
export interface Issue {
  readonly path: string
  readonly message: string
}

const literal = /^Expected (".*"|-?\d[\d.e+-]*|true|false|null), actual (.*)$/s

/**
 * The issues of a parse error, alternatives of one literal merged into one line.
 *
 * @since 0.1.0
 * @category formatting
 */
export const fromParseError = (
  error: ParseResult.ParseError,
  prefix: ReadonlyArray<string> = []
): ReadonlyArray<Issue> =>
  merge(
    ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
      path: [...prefix, ...issue.path.map(String)].join("."),
      message: issue.message,
      literal: issue._tag === "Type"
    }))
  )

/**
 * Issues already flattened (an area's `{ path, message }` list), alternatives of one literal at
 * one path merged into one line, and an optional field's `undefined` alternative dropped when
 * there is another issue at its path.
 *
 * @since 0.2.0
 * @category formatting
 */
export const merge = (
  issues: ReadonlyArray<{ readonly path: string; readonly message: string; readonly literal?: boolean }>
): ReadonlyArray<Issue> => {
  const out: Array<{ path: string; message: string; choices?: Array<string>; actual?: string }> = []
  for (const issue of issues) {
    const match = issue.literal === false ? null : literal.exec(issue.message)
    const last = out.find((o) => o.path === issue.path && o.choices !== undefined)
    if (match !== null && last !== undefined) {
      last.choices!.push(match[1]!)
      continue
    }
    out.push(
      match === null
        ? { path: issue.path, message: issue.message }
        : { path: issue.path, message: issue.message, choices: [match[1]!], actual: match[2]! }
    )
  }
  // An optional field's `undefined` alternative is noise beside the real issue at its path or
  // inside it ("Expected undefined, actual \"bogus\"" under "expected one of …"): dropped then.
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`)
  const kept = out.filter((issue) =>
    !(/^Expected undefined, actual /.test(issue.message) && out.some((o) => o !== issue && within(o.path, issue.path)))
  )
  return kept.map((issue) => ({
    path: issue.path,
    message: issue.choices !== undefined && issue.choices.length > 1
      ? `expected one of ${issue.choices.join(", ")}, got ${issue.actual}`
      : issue.message
  }))
}

/**
 * Render issues one per line, `path: message`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const lines = (issues: ReadonlyArray<Issue>): string =>
  issues.map((issue) => issue.path.length === 0 ? issue.message : `${issue.path}: ${issue.message}`).join("\n")
