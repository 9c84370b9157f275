/**
 * Redaction of a dispatched session's log before it is stored (issue 39 item 4, ADR 0020): the
 * values of secret-looking variables in the environment the agent was given, and anything shaped
 * like a credential (API keys, bearer tokens, JWTs, private-key blocks), are replaced by a marker
 * naming what was removed. The redacted bytes are the log's only stored form; their digest goes
 * into the envelope.
 *
 * @since 0.1.0
 */

// A variable whose name says it holds a secret.
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|AUTH|COOKIE|PRIVATE)/i

// Values too short to be a secret would redact ordinary words.
const MIN_SECRET_LENGTH = 8

/**
 * Credential shapes, each with the label its marker names.
 *
 * @since 0.1.0
 * @category constants
 */
export const tokenShapes: ReadonlyArray<readonly [string, RegExp]> = [
  ["private-key", /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g],
  ["bearer", /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/g],
  ["jwt", /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g],
  ["api-key", /\b(sk|rk|pk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{16,}/g],
  ["github-token", /\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g],
  ["slack-token", /\bxox[abposr]-[A-Za-z0-9-]{10,}/g],
  ["aws-key", /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g],
  ["google-key", /\bAIza[0-9A-Za-z_-]{30,}/g]
]

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The secret values of an environment: those of variables with a secret-looking name, longest
 * first (so a value containing another is replaced whole).
 *
 * @since 0.1.0
 * @category redaction
 */
export const secretValues = (
  env: Readonly<Record<string, string | undefined>>
): ReadonlyArray<readonly [string, string]> =>
  Object.entries(env)
    .filter((entry): entry is [string, string] =>
      entry[1] !== undefined && SECRET_NAME.test(entry[0]) && entry[1].length >= MIN_SECRET_LENGTH
    )
    .sort((a, b) => b[1].length - a[1].length)

/**
 * The log with every secret value of `env` and every token shape replaced by `[REDACTED:…]`.
 *
 * @since 0.1.0
 * @category redaction
 */
export const redact = (log: Uint8Array, env: Readonly<Record<string, string | undefined>>): Uint8Array => {
  let text = Buffer.from(log).toString("utf8")
  for (const [name, value] of secretValues(env)) {
    text = text.replace(new RegExp(escape(value), "g"), `[REDACTED:${name}]`)
  }
  for (const [label, shape] of tokenShapes) text = text.replace(shape, `[REDACTED:${label}]`)
  return new Uint8Array(Buffer.from(text, "utf8"))
}
