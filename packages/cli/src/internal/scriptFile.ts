/**
 * Reading a scripted model's file (`session run --script`, `audit loop --script`, and the script
 * a later `session continue`/`approve` serves again): through `BoundedFile`, so a FIFO or device
 * is refused unopened and the size is checked before a byte is read (issue 16).
 *
 * @since 0.1.0
 * @internal
 */
import * as Effect from "effect/Effect"
import * as BoundedFile from "../BoundedFile.js"

/**
 * The largest script accepted: a script is JSONL of model turns, written by a person or a test.
 *
 * @internal
 */
export const SCRIPT_LIMITS: BoundedFile.Limits = { maxBytes: 16 * 1024 * 1024 }

/**
 * A script's text, or the CLI failure naming the file and the limit (exit 2).
 *
 * @internal
 */
export const read = (file: string) =>
  BoundedFile.readText(file, SCRIPT_LIMITS).pipe(Effect.mapError((e) => BoundedFile.toFailure(e)))
