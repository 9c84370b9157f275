/**
 * The demo's bundled data: the synthetic settle history of `examples/data` (the same templates and
 * seeded generator, so the same bytes — `examples/data`'s test holds the two together) and the
 * scripted model turns of the demo session.
 * @internal
 */

// the templates of examples/data/templates.json (see its README for what each kind means)
const slots: Readonly<Record<string, ReadonlyArray<string>>> = {
  "done": [
    "Parser updated",
    "The migration script is written",
    "Types now line up across the API layer",
    "The failing snapshot is regenerated",
    "Config loading moved into its own module",
    "The retry helper is extracted",
    "The fixtures are copied into the package",
    "Logging goes through the shared logger now",
    "The flaky timeout is replaced by a fake clock",
    "The cache key includes the locale"
  ],
  "next": [
    "wire the CLI",
    "add tests for the edge cases",
    "update the README",
    "run the full suite",
    "port the remaining handlers",
    "clean up the old entry point",
    "add the changeset",
    "cover the error paths",
    "split the long function",
    "rename the call sites"
  ],
  "finished": [
    "All tests pass and the change is ready for review.",
    "Done: the fix is merged and CI is green.",
    "Finished. The benchmark shows no regression and the docs are updated.",
    "Completed the refactor; all tests pass.",
    "The feature is shipped behind its flag and the changelog is written."
  ],
  "offer": [
    "push the branch",
    "open the pull request",
    "run the linter again",
    "rebase onto main",
    "add the missing test",
    "regenerate the lockfile",
    "format the changed files",
    "re-run the failing job"
  ]
}

const kinds: ReadonlyArray<{
  readonly name: string
  readonly head: string
  readonly text: string
  readonly tool_calls: readonly [number, number]
  readonly count: number
  readonly p_label: number
}> = [
  {
    "name": "stopped-short",
    "head": "stopped_short",
    "text": "{done}. Next, I'll {next}:",
    "tool_calls": [
      40,
      120
    ],
    "count": 360,
    "p_label": 0.97
  },
  {
    "name": "finished",
    "head": "stopped_short",
    "text": "{done}. {finished}",
    "tool_calls": [
      3,
      30
    ],
    "count": 240,
    "p_label": 0.04
  },
  {
    "name": "harmless-offer",
    "head": "confirm",
    "text": "{done}. Want me to {offer}?",
    "tool_calls": [
      10,
      60
    ],
    "count": 300,
    "p_label": 0.62
  }
] as any

/** The seed the bundled history was generated with. */
export const SEED = 20261201

// mulberry32, exactly as examples/data/generate.mjs
const random = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The history as `steward reflex import` reads it (JSONL). */
export const history = (seed: number = SEED): string => {
  const next = random(seed)
  const pick = (list: ReadonlyArray<string>) => list[Math.floor(next() * list.length)]!
  const between = ([low, high]: readonly [number, number]) => low + Math.floor(next() * (high - low + 1))
  const turns: Array<{ kind: string; head: string; text: string; tool_calls: number; label: boolean }> = []
  for (const kind of kinds) {
    for (let i = 0; i < kind.count; i++) {
      const text = kind.text.replace(/\{(\w+)\}/g, (_, slot: string) => pick(slots[slot]!))
      turns.push({
        kind: kind.name,
        head: kind.head,
        text,
        tool_calls: between(kind.tool_calls),
        label: next() < kind.p_label
      })
    }
  }
  for (let i = turns.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[turns[i], turns[j]] = [turns[j]!, turns[i]!]
  }
  return turns.map((turn, i) =>
    JSON.stringify({
      id: `syn-${String(i + 1).padStart(4, "0")}-${turn.kind}`,
      text: turn.text,
      label: turn.label,
      head: turn.head,
      tool_calls: turn.tool_calls
    })
  ).join("\n") + "\n"
}

/**
 * The scripted model of the demo session. The first run makes three tool calls (a read that is
 * allowed, a delete that is denied, a push that asks) and pauses at the push, nobody being there
 * to answer (ADR 0016); the second run (a new request, which settles the paused one) stops short
 * of its work, which the settle reflex decides, and the last line is the continuation a certified
 * stopped_short head starts.
 */
export const script = [
  {
    toolCalls: [
      { name: "read", input: { path: "README.md" } },
      { name: "shell", input: { command: "rm -rf ~" } },
      { name: "shell", input: { command: "git push origin main" } }
    ]
  },
  { text: "Parser updated. Next, I'll wire the CLI:" },
  { text: "The CLI is wired. All tests pass." }
]
