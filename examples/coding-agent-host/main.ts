/**
 * `tsx main.ts [--workspace DIR] [--state DIR] [--answer allow|deny|none] [--json] [PROMPT]`
 *
 * Runs one task as a governed session of the coding-agent host and prints what happened: each
 * tool call with its decision and rule, the reflex decisions, the settle, the verified history and
 * where it is stored. Without `--workspace` a fresh scratch workspace is made; without `--state`
 * a fresh state directory. Exit 0 when the run completes and its history verifies, 1 otherwise,
 * 2 on bad arguments.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Host from "./src/host.js"

const usage = "usage: tsx main.ts [--workspace DIR] [--state DIR] [--answer allow|deny|none] [--json] [PROMPT]"

const parse = (argv: ReadonlyArray<string>) => {
  const out = {
    workspace: undefined as string | undefined,
    state: undefined as string | undefined,
    answer: "none",
    json: false,
    prompt: [] as Array<string>
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--json") out.json = true
    else if (arg === "--workspace" || arg === "--state" || arg === "--answer") {
      const value = argv[++i]
      if (value === undefined) throw new Error(`${arg} needs a value`)
      if (arg === "--workspace") out.workspace = value
      else if (arg === "--state") out.state = value
      else if (["allow", "deny", "none"].includes(value)) out.answer = value
      else throw new Error(`--answer must be allow, deny or none, not ${JSON.stringify(value)}`)
    } else if (arg.startsWith("--")) throw new Error(`unknown option ${arg}`)
    else out.prompt.push(arg)
  }
  return out
}

const scratch = (prefix: string) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))

const render = (report: Host.TaskReport): string =>
  [
    `session ${report.session} (${report.model}) in ${report.workspace}`,
    ...report.calls.map((c) =>
      `  ${c.decision.padEnd(5)} ${c.tool.padEnd(10)} ${c.rule ?? "-"}${
        c.approvedBy === null ? "" : ` (approved by ${c.approvedBy})`
      }${c.ok === null ? "" : c.ok ? ` → ${c.output}` : " → failed"}`
    ),
    ...report.reflexes.map((r) =>
      `  reflex ${r.reflex}: ${r.outcome}${r.receipt === null ? "" : ` (receipt ${r.receipt.slice(0, 19)}…)`}`
    ),
    `settled ${report.status}${report.code === null ? "" : ` (${report.code})`}; files touched: ${
      report.filesTouched.join(", ") || "none"
    }`,
    `history ${
      report.verified ? "verified" : "NOT verified"
    } (${report.revisions} revisions); stored in ${report.database} (${report.sessions.length} sessions)`
  ].join("\n")

let options: ReturnType<typeof parse>
try {
  options = parse(process.argv.slice(2))
} catch (error) {
  console.error(`${(error as Error).message}\n${usage}`)
  process.exit(2)
}
const state = options.state ?? scratch("coding-agent-state-")
fs.mkdirSync(state, { recursive: true })
const workspace = options.workspace ?? scratch("coding-agent-ws-")
const prompt = options.prompt.join(" ") || "Add a greeting module to this project, run it, and publish the change."
const report = await Effect.runPromise(
  Host.runTask({ workspace, prompt }, {
    database: path.join(state, "agent.sqlite"),
    model: Host.modelChoice(process.env),
    answer: options.answer as "allow" | "deny" | "none"
  })
)
console.log(options.json ? JSON.stringify(report) : render(report))
process.exit(report.status === "completed" && report.verified ? 0 : 1)
