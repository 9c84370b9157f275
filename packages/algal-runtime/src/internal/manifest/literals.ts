/**
 * Integer fields written as integer literals (ADR 0394): the error for one written otherwise, and
 * a bundle's entries read each as its own manifest text would be.
 */
import * as AlgalError from "../../AlgalError.js"
import type * as Canonical from "../../Canonical.js"
import { bundleNonIntegerLexemes, type Found } from "../numberLexemes.js"

/** `PARSE_FAILED` at the path of an integer field written as `6.0`, `6e0` or `-0`. */
export const nonIntegerLiteral = (found: Found): AlgalError.AlgalError => {
  const shown = found.lexeme.length > 32 ? `${found.lexeme.slice(0, 32)}…` : found.lexeme
  return AlgalError.invalid(
    `expected non-negative integer: the value must be written as an integer literal, got ${shown}`,
    found.path
  )
}

/**
 * A bundle's `manifests` entries: those that parse, and each that does not (or that writes an
 * integer field otherwise than as an integer literal) by its key with the error.
 */
export const readEntries = <M>(
  text: string,
  entries: { readonly [key: string]: Canonical.Json },
  parseOne: (json: unknown) => { readonly ok: true; readonly manifest: M } | {
    readonly ok: false
    readonly error: AlgalError.AlgalError
  }
): {
  readonly manifests: ReadonlyArray<M>
  readonly rejected: ReadonlyArray<{ readonly key: string; readonly error: AlgalError.AlgalError }>
} => {
  const lexemes = bundleNonIntegerLexemes(text)
  const manifests: Array<M> = []
  const rejected: Array<{ readonly key: string; readonly error: AlgalError.AlgalError }> = []
  for (const [key, value] of Object.entries(entries)) {
    const found = lexemes.get(key)
    const parsed = parseOne(value)
    if (!parsed.ok) rejected.push({ key, error: parsed.error })
    else if (found !== undefined) rejected.push({ key, error: nonIntegerLiteral(found) })
    else manifests.push(parsed.manifest)
  }
  return { manifests, rejected }
}
