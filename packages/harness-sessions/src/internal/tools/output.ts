/**
 * Bounding what a tool hands back to the model: head and tail kept, the middle replaced by a
 * marker that says how much was left out (the end of a log is usually where the error is).
 *
 * @internal
 */

/** @internal */
export const outputLimit = 30_000

/** @internal */
export const bound = (
  text: string,
  limit: number = outputLimit
): { readonly text: string; readonly truncated: boolean } => {
  if (text.length <= limit) return { text, truncated: false }
  const head = Math.floor(limit * 0.4)
  const tail = limit - head
  const omitted = text.length - head - tail
  return {
    text: `${text.slice(0, head)}\n[… ${omitted} characters omitted …]\n${text.slice(text.length - tail)}`,
    truncated: true
  }
}

/**
 * Accumulates streamed output in bounded memory: the first `head` characters and a rolling
 * window of the last `tail`, with the total count, so a chatty command cannot exhaust memory.
 *
 * @internal
 */
export class Collector {
  private first = ""
  private last = ""
  private total = 0
  constructor(private readonly head = Math.floor(outputLimit * 0.4), private readonly tail = outputLimit - head) {}
  push(chunk: string): void {
    this.total += chunk.length
    const room = this.head - this.first.length
    if (room > 0) {
      this.first += chunk.slice(0, room)
      chunk = chunk.slice(room)
    }
    if (chunk.length > 0) this.last = (this.last + chunk).slice(-this.tail)
  }
  result(): { readonly text: string; readonly truncated: boolean } {
    const omitted = this.total - this.first.length - this.last.length
    if (omitted <= 0) return { text: this.first + this.last, truncated: false }
    return { text: `${this.first}\n[… ${omitted} characters omitted …]\n${this.last}`, truncated: true }
  }
}
