/**
 * Text renderings of the reflex command results.
 *
 * @since 0.1.0
 */
import type * as Reflexes from "@steward/reflex-core/Reflexes"
import * as Output from "../../Output.js"

const pct = (x: number | undefined | null) => (x === undefined || x === null ? "-" : x.toFixed(3))

/**
 * @since 0.1.0
 * @category rendering
 */
export const status = (rows: ReadonlyArray<Reflexes.Status>): string =>
  rows.map((s) => {
    const lines: Array<readonly [string, string]> = [
      [s.reflex, s.description],
      [
        "generation",
        `${s.generation.version}${
          s.generation.parent === null ? "" : ` (parent ${s.generation.parent})`
        }, trained on ${s.generation.trainedOn}; ${s.generations} stored`
      ],
      ["program", `${s.program.digest.slice(0, 19)}${s.program.custom ? " (custom)" : ""}`],
      ...(s.program.fault === null
        ? []
        : [["program fault", `${s.program.fault}: ${s.program.violations.map((v) => v.message).join("; ")}`] as const]),
      [
        "observed",
        `${s.observed} decisions, ${s.labeled} labeled; learn ${s.learn ? "on" : "off"}, promotion ${s.promotion}`
      ]
    ]
    for (const h of s.heads) {
      lines.push([
        `${s.reflex}.${h.head}`,
        `mode ${h.mode}, ${h.labels} labels (${h.positives} positive), threshold ${h.threshold}`
      ])
      // what the mode means now: `auto` is "watching until certified" until a certificate lands
      lines.push(["  standing", h.standing.replace(/^[a-z]+: /, "")])
      if (h.metrics !== null) {
        lines.push([
          "  live",
          `log loss ${pct(h.metrics.log_loss)}, accuracy ${pct(h.metrics.accuracy)}, AUC ${pct(h.metrics.auc)}`
        ])
      }
      if (h.holdout !== null) {
        lines.push([
          "  holdout",
          `n ${h.holdout.n}, log loss ${pct(h.holdout.log_loss)}, accuracy ${pct(h.holdout.accuracy)}, AUC ${
            pct(h.holdout.auc)
          }`
        ])
      }
      if (h.trial !== null) lines.push(["  challenger", h.trial.reason])
      if (h.certificate !== null) {
        const c = h.certificate
        lines.push([
          "  certificate",
          `${c.certified ? "certified" : "not certified"} at ${c.threshold}: fired ${c.fired}, precision ${
            pct(c.precision)
          }, lower ${pct(c.lower)} (floor ${c.floor}, window ${c.window}) — ${c.reason}`
        ])
      }
      const filled = h.calibration.filter((b) => b.n > 0)
      if (filled.length > 0) {
        lines.push([
          "  calibration",
          filled.map((b) =>
            `[${b.from.toFixed(1)},${b.to.toFixed(1)}) n=${b.n} p=${pct(b.meanP)} obs=${pct(b.observed)}`
          ).join("; ")
        ])
      }
    }
    return Output.table(lines)
  }).join("\n\n")

/**
 * @since 0.1.0
 * @category rendering
 */
export const decision = (doc: any): string => {
  if (doc.skipped === true) return `skipped: ${doc.reason}`
  const d = doc.decision
  const value = d.route ?? d.category
  return Output.table([
    ["decision", `${value} (gate ${d.gate}, head ${d.head}, score ${d.score})`],
    [
      "acts",
      `${doc.acts ? "yes" : "no"} (mode ${doc.mode}${doc.certified ? ", certified" : ""}${
        doc.held ? ", held back" : ""
      }${doc.vetoed ? ", vetoed" : ""})`
    ],
    ["why", doc.why],
    ["params", `generation ${doc.paramsVersion}`],
    ["program", `${doc.program}${doc.custom ? " (custom)" : ""}`],
    ["receipt", doc.receipt],
    ["observation", doc.observation ?? "(not recorded)"]
  ])
}

/**
 * @since 0.1.0
 * @category rendering
 */
export const features = (doc: { readonly features: Record<string, number> | null }): string =>
  doc.features === null
    ? "skipped: tool-call count unknown"
    : Output.table(Object.entries(doc.features).map(([k, v]) => [k, String(Math.round(v * 1e6) / 1e6)] as const))

/**
 * @since 0.1.0
 * @category rendering
 */
export const reply = (r: Reflexes.ReplyResult): string => {
  const lines = [`category ${r.category}${r.escalation === null ? "" : ` (tier request: ${r.escalation})`}`]
  for (const l of r.labels) {
    lines.push(
      `labeled ${l.reflex}.${l.head} ${l.label ? "yes" : "no"} at ${l.weight} (${l.source}) on ${l.observation}`
    )
  }
  for (const t of r.trained) lines.push(train(t))
  return lines.join("\n")
}

/**
 * @since 0.1.0
 * @category rendering
 */
export const train = (r: Reflexes.TrainReport): string => {
  const lines = r.heads.map((h) => `${r.reflex}.${h.head}: ${h.reason} (${h.labels} labels)`)
  lines.push(
    r.promoted
      ? `promoted generation ${r.version} (from ${r.previousVersion}); \`steward reflex rollback ${r.reflex} ${r.previousVersion}\` restores it`
      : `kept generation ${r.version}`
  )
  for (const c of r.certificates) {
    lines.push(`certificate ${r.reflex}.${c.head}: ${c.certified ? "certified" : "not certified"} — ${c.reason}`)
  }
  return lines.join("\n")
}

/**
 * @since 0.1.0
 * @category rendering
 */
export const replay = (r: Reflexes.ReplayResult): string =>
  Output.table([
    ["observation", `${r.observation} (${r.reflex})`],
    [
      "recorded",
      `${r.recorded.value} gate ${r.recorded.gate} head ${r.recorded.head} score ${r.recorded.score} ${r.recorded.receipt}`
    ],
    [
      "replayed",
      `${r.replayed.value} gate ${r.replayed.gate} head ${r.replayed.head} score ${r.replayed.score} ${r.replayed.receipt}`
    ],
    ["result", r.matches ? "match" : "MISMATCH"]
  ])

/**
 * @since 0.1.0
 * @category rendering
 */
export const importReport = (r: Reflexes.ImportReport): string => {
  const lines = [
    r.dryRun
      ? `dry run: ${r.examples} examples, nothing stored`
      : `imported ${r.inserted} of ${r.examples} examples${
        r.adoptedVersion === null ? "" : `; adopted generation ${r.adoptedVersion}`
      }`
  ]
  for (const c of r.certificates) {
    lines.push(
      `${r.reflex}.${c.head}: ${
        r.dryRun
          ? (c.certified ? "would certify" : "would not certify")
          : (c.certified ? "certified" : "not certified")
      } at ${c.threshold} (fired ${c.fired}, precision ${pct(c.precision)}, lower ${pct(c.lower)}) — ${c.reason}`
    )
  }
  return lines.join("\n")
}
