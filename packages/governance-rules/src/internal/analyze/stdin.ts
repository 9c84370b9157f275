/**
 * What a pipe may feed a command when the engine cannot tell exactly: the readings of its
 * previous stage's output (ADR 0204's speculative readings, applied to stdin).
 *
 * @internal
 */
import { printedBy } from "../printed.js"
import type { SimpleCommand } from "../shellSyntax.js"

const MAX_STDIN_READINGS = 32

/**
 * What a pipe may feed a command when the engine cannot tell exactly (`sudo echo CMD | sh`,
 * `mystery-tool 'CMD' | ex -s`, `(printf …) | sh`): what each `echo`/`printf` in the previous
 * stage prints (from wherever it starts in the argv, past any wrapper) and each literal argument of
 * it. Decided speculatively by the readers of stdin (shells, Ex mode, `xargs -I`): they can only
 * deny; the code-from-stdin guard keeps the floor at ask.
 *
 * @internal
 */
export const stdinReadings = (command: SimpleCommand): Array<string> => {
  if (command.heredoc !== null || (command.stdinText ?? null) !== null) return []
  const out = new Set<string>()
  for (const writer of command.stdinWriters ?? []) {
    for (let i = 0; i < writer.length && out.size < MAX_STDIN_READINGS; i++) {
      const w = writer[i]!
      if (!w.resolved) continue
      if (i > 0 && /\S/.test(w.text)) out.add(w.text)
      if (writer.slice(i).every((x) => x.resolved)) {
        const text = printedBy(writer.slice(i).map((x) => x.text))
        if (text !== null) out.add(text)
      }
    }
  }
  return [...out]
}
