/**
 * The xcheck conformance corpus (`test/fixtures/conformance/*.jsonl`, copied whole from the
 * shared fixtures): one sequence of `steward audit …` calls per line, with what the original
 * xcheck 0.9.5 did at every step. Format and masking: that folder's README.
 */
import * as fs from "node:fs"
import * as path from "node:path"

export interface Expect {
  readonly accepted: boolean
  readonly refusal: string | null
  readonly keyPhrase: string | null
  readonly message?: string | null
  readonly next: unknown
  readonly lint: { readonly clean: boolean; readonly subjects: ReadonlyArray<string> } | null
  readonly state: { readonly sha256: string; readonly doc?: unknown } | null
}

export type FileOp =
  | { readonly op: "write" | "append"; readonly path: string; readonly text: string }
  | {
    readonly op: "replace"
    readonly path: string
    readonly old: string
    readonly new: string
    readonly count: number
  }

export interface Step {
  readonly kind: "verb" | "dispatch" | "next" | "lint" | "import" | "file"
  readonly argv?: ReadonlyArray<string>
  readonly file?: FileOp
  readonly input?: Readonly<Record<string, string>>
  readonly expect?: Expect
  readonly originalBug?: string | boolean
  readonly originalEventBug?: string | boolean
}

export interface Sequence {
  readonly id: string
  readonly start: "shared" | "fresh" | "import"
  readonly source: string
  readonly title?: string
  readonly setup: {
    readonly git: { readonly files: Readonly<Record<string, string>> }
    readonly head: string
    readonly init:
      | {
        readonly argv?: ReadonlyArray<string>
        readonly mkdirs?: ReadonlyArray<string>
        readonly input?: Readonly<Record<string, string>>
      }
      | null
    readonly initialState: { readonly sha256: string; readonly doc: unknown } | null
  }
  readonly steps: ReadonlyArray<Step>
}

export const CORPUS_DIR = path.join(import.meta.dirname, "..", "fixtures", "conformance")

/** Every sequence of one corpus file, read line by line (the shared file is ~6 MB). */
export const load = (file: string): ReadonlyArray<Sequence> => {
  const text = fs.readFileSync(path.join(CORPUS_DIR, file), "utf8")
  const out: Array<Sequence> = []
  let start = 0
  while (start < text.length) {
    let end = text.indexOf("\n", start)
    if (end < 0) end = text.length
    const line = text.slice(start, end).trim()
    if (line.length > 0) out.push(JSON.parse(line) as Sequence)
    start = end + 1
  }
  return out
}
