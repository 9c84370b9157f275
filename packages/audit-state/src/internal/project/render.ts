/**
 * Writing the generated views: each target's text is rendered from state and written (atomically,
 * back-dated, ADR 0115) only when it differs; a target already current is marked once it has
 * settled.
 *
 * @internal
 */
import type { FileView } from "../../ProjectFiles.js"
import type * as State from "../../State.js"
import * as Views from "../../Views.js"
import * as Files from "./files.js"

/** The files written and the marks of the views written or found current; a string: the refusal. */
export const writeViews = (
  view: FileView,
  doc: State.StateDoc,
  targets: ReadonlyArray<readonly [key: string, file: string, record: State.Finding | undefined]>,
  nowMs: number,
  banners: {
    readonly ledgerBanner?: ReadonlyArray<string> | undefined
    readonly frontmatterBanner?: ReadonlyArray<string> | undefined
  }
): { readonly written: number; readonly marks: ReadonlyArray<readonly [string, string]> } | string => {
  let written = 0
  const marks: Array<readonly [string, string]> = []
  try {
    for (const [key, file, r] of targets) {
      const current = Files.readText(view, file)
      if (current._tag === "refused") return current.message
      const text = current._tag === "text" ? current.text : undefined
      const content = r === undefined
        ? Views.renderLedger(doc, banners.ledgerBanner)
        : Views.applyFrontmatter(text, r, banners.frontmatterBanner)
      if (text === content) {
        const seen = view.mark(file)
        if (seen !== undefined && Files.settled(Files.markTime(seen), nowMs)) marks.push([key, seen])
        continue
      }
      const mark = Files.writeView(view, file, content, nowMs)
      if (mark !== undefined) marks.push([key, mark])
      written++
    }
  } catch (e) {
    return `cannot write the views: ${(e as Error).message}`
  }
  return { written, marks }
}
