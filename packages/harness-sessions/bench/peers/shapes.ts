/**
 * The call shapes of issue 38's peer table, and the tools every SDK declares for them. A shape is
 * `turns` model calls that each ask for `calls` calls of the `noop` tool, then one that answers
 * with text; the figure is the whole run divided by `turns × calls`. The eight-tool shape declares
 * Steward's seven built-ins and `noop`: the peers declare the same names with the same input
 * shapes in zod (what their users write), and only `noop` is ever called.
 */
import { z } from "zod"

/** One row of the table. */
export interface Shape {
  readonly key: string
  readonly label: string
  readonly turns: number
  readonly calls: number
  readonly eightTools: boolean
}

export const shapes: ReadonlyArray<Shape> = [
  { key: "one-turn", label: "one turn, 20 calls (1 tool)", turns: 1, calls: 20, eightTools: false },
  { key: "turns", label: "20 turns of 1 call (1 tool)", turns: 20, calls: 1, eightTools: false },
  { key: "default-tools", label: "20 turns, the 8 default tools", turns: 20, calls: 1, eightTools: true }
]

/** Tool calls in one run of the shape. */
export const callsOf = (shape: Shape): number => shape.turns * shape.calls

/**
 * What the scripted model answers when the conversation already holds `results` tool results:
 * `calls` more calls while the run is short of its total, then the final text (`0`).
 */
export const nextCalls = (shape: Shape, results: number): number => results >= callsOf(shape) ? 0 : shape.calls

/** The `noop` tool's input and its result. */
export const noopInput = z.object({ n: z.number() })
export const noopOutput = "ok"

/** The seven built-ins' input shapes (Steward's `Tools.defaults`), for the peers' eight-tool shape. */
export const builtInInputs = {
  shell: z.object({ command: z.string(), timeoutSeconds: z.number().optional(), reason: z.string().optional() }),
  read: z.object({ path: z.string(), offset: z.number().optional(), limit: z.number().optional() }),
  write: z.object({ path: z.string(), content: z.string() }),
  edit: z.object({
    path: z.string(),
    oldString: z.string(),
    newString: z.string(),
    replaceAll: z.boolean().optional()
  }),
  todo_write: z.object({
    todos: z.array(z.object({ content: z.string(), status: z.enum(["pending", "in_progress", "completed"]) }))
  }),
  ask_user: z.object({ question: z.string(), options: z.array(z.string()).optional() }),
  fetch: z.object({ url: z.string() })
} as const
