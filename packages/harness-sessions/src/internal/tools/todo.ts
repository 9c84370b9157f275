/**
 * `todo_write`: the model's progress list. Each call replaces the whole list; the result carries
 * it so the harness can record it and show open items in a checkpoint. It is progress for the
 * person, never a reason to end or to continue a run.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Tools from "../../Tools.js"

/** @internal */
export const Item = Schema.Struct({
  content: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)),
  status: Schema.Literal("pending", "in_progress", "completed")
})

/** @internal */
export const fields = {
  todos: Schema.Array(Item).pipe(Schema.maxItems(100)).annotations({
    description: "The complete list, in order; at most one item in_progress"
  })
}

const mark = { pending: "[ ]", in_progress: "[~]", completed: "[x]" } as const

/** @internal */
export const render = (todos: ReadonlyArray<Tools.TodoItem>): string => {
  if (todos.length === 0) return "todo list cleared"
  const done = todos.filter((t) => t.status === "completed").length
  const lines = todos.map((t) => `${mark[t.status]} ${t.content}`)
  return [`${done}/${todos.length} done`, ...lines].join("\n")
}

/** @internal */
export const tool: Tools.Tool<typeof fields> = {
  name: "todo_write",
  description:
    "Record your plan as a todo list and keep it current: send the whole list each time, marking items in_progress and completed as you go.",
  input: Schema.Struct(fields),
  governance: () => ({ tool: "mcp", name: "todo_write" }),
  execute: (input) =>
    Effect.sync(() => {
      const active = input.todos.filter((t) => t.status === "in_progress").length
      if (active > 1) {
        return {
          ok: false,
          output: `${active} items are in_progress; keep exactly one in progress and send the list again`
        }
      }
      return { ok: true, output: render(input.todos), todos: input.todos }
    })
}
