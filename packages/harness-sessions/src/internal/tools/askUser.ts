/**
 * `ask_user`: a question for the person through the host's `AskUser` service. When nobody can
 * answer, the model is told to continue on a stated assumption where it safely can; the result
 * is marked `needsPerson` so the harness can settle the run that way if the model stops.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Tools from "../../Tools.js"

/**
 * Who answers the model's questions (`ask_user`). A host with a person at hand provides its own
 * layer; with nobody there the tool tells the model to carry on with a stated assumption and
 * marks the result `needsPerson`.
 *
 * @since 0.1.0
 * @category tags
 */
export class AskUser extends Context.Tag("@steward/harness-sessions/AskUser")<AskUser, {
  /** The person's answer, or `None` when nobody can answer now. */
  readonly ask: (
    question: { readonly question: string; readonly options: ReadonlyArray<string> },
    context: Tools.ToolContext
  ) => Effect.Effect<Option.Option<string>>
}>() {}

/** @internal */
export const fields = {
  question: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4000)).annotations({
    description: "One specific question the person must decide"
  }),
  options: Schema.optional(
    Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))).pipe(Schema.maxItems(10))
  ).annotations({ description: "Suggested answers, if the choice is between known options" })
}

/** @internal */
export const tool: Tools.Tool<typeof fields, AskUser> = {
  name: "ask_user",
  description:
    "Ask the person a question only they can answer (a preference, a credential, a decision with consequences). Do not ask for permission to continue work you were asked to do.",
  input: Schema.Struct(fields),
  governance: () => ({ tool: "mcp", name: "ask_user" }),
  execute: (input, context) =>
    Effect.gen(function*() {
      const askUser = yield* AskUser
      const answer = yield* askUser.ask({ question: input.question, options: input.options ?? [] }, context)
      if (Option.isSome(answer)) return { ok: true, output: answer.value }
      return {
        ok: false,
        output:
          "No person is available to answer now. Continue with the parts that do not depend on the answer; where a choice is reversible, make it, state the assumption, and keep going.",
        needsPerson: true
      }
    })
}
