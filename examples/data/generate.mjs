#!/usr/bin/env node
// Writes settle-history.jsonl from templates.json: a seeded, reproducible synthetic history of
// settle turns and the person's answers, in `steward reflex import` format. Same seed, same
// templates ⇒ identical bytes (the test in test/ checks it). Usage:
//   node examples/data/generate.mjs [--seed N] [--out FILE]
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))

/** The default seed: the histories in this folder were generated with it. */
export const DEFAULT_SEED = 20261201

/** mulberry32: a small, well-mixed 32-bit generator; enough for test data, not for secrets. */
export const random = (seed) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The JSONL text for `templates` and `seed`. */
export const generate = (templates, seed = DEFAULT_SEED) => {
  const next = random(seed)
  const pick = (list) => list[Math.floor(next() * list.length)]
  const between = ([low, high]) => low + Math.floor(next() * (high - low + 1))
  const turns = []
  for (const kind of templates.kinds) {
    for (let i = 0; i < kind.count; i++) {
      const text = kind.text.replace(/\{(\w+)\}/g, (_, slot) => {
        const values = templates.slots[slot]
        if (values === undefined) throw new Error(`templates.json: kind ${kind.name} uses unknown slot {${slot}}`)
        return pick(values)
      })
      turns.push({ kind: kind.name, head: kind.head, text, tool_calls: between(kind.tool_calls), label: next() < kind.p_label })
    }
  }
  // arrival order matters to the prequential replay: shuffle (Fisher–Yates) with the same generator
  for (let i = turns.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[turns[i], turns[j]] = [turns[j], turns[i]]
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

/** Reads templates.json beside this script. */
export const readTemplates = () => JSON.parse(readFileSync(join(here, "templates.json"), "utf8"))

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name) => {
    const i = process.argv.indexOf(name)
    return i === -1 ? undefined : process.argv[i + 1]
  }
  const seed = arg("--seed") === undefined ? DEFAULT_SEED : Number(arg("--seed"))
  if (!Number.isSafeInteger(seed)) {
    process.stderr.write(`generate: --seed must be an integer, got ${arg("--seed")}\n`)
    process.exit(2)
  }
  const out = arg("--out") ?? join(here, "settle-history.jsonl")
  const text = generate(readTemplates(), seed)
  writeFileSync(out, text)
  process.stdout.write(`generate: ${text.split("\n").length - 1} turns (seed ${seed}) → ${out}\n`)
}
