/**
 * Steward's hooks inside the real agent CLIs (issue 33, acceptance): each pinned CLI runs
 * headless and offline against the scripted model server, with hooks written by
 * `steward hooks install`, and the test checks the disk (markers that a command would have
 * created, a remote a force-push would have rewritten) and the wire (what the model received).
 * A CLI that is not installed skips with the reason; the others still run.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import * as Sandbox from "@steward/governance-rules/Sandbox"
import * as Learning from "@steward/reflex-core/Learning"
import * as Reflexes from "@steward/reflex-core/Reflexes"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { execFileSync, spawnSync } from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ReflexEngine from "../src/commands/reflex/engine.js"
import * as Agents from "./support/agentClis.js"
import * as Models from "./support/scriptedModels.js"

const fixtures = path.join(import.meta.dirname, "fixtures", "agent-clis")
const built = fs.existsSync(Agents.builtCli)

const install = (client: Agents.Client, s: Agents.Sandbox, env: Record<string, string>) => {
  const args = [Agents.builtCli, "hooks", "install", client, "--workspace", s.ws, "--json"]
  // Codex reads hooks from $CODEX_HOME (the user scope); the state stays the project's.
  if (client === "codex") args.push("--user", "--state-dir", path.join(s.ws, ".steward"))
  const r = spawnSync(process.execPath, args, { env, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`hooks install ${client}: ${r.stderr}`)
}

/** A project with one commit, pushed to a local bare `origin`; then amended (a force-push would rewrite origin). */
const gitProject = (s: Agents.Sandbox) => {
  const git = (...args: Array<string>) =>
    execFileSync("git", args, { cwd: s.ws, env: { ...process.env, HOME: s.home }, encoding: "utf8" }).trim()
  const origin = path.join(s.root, "origin.git")
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin])
  git("init", "-q", "-b", "main")
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
  git("remote", "add", "origin", origin)
  git("push", "-q", "origin", "main")
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--amend", "--allow-empty", "-m", "rewritten")
  return () => execFileSync("git", ["--git-dir", origin, "rev-parse", "main"], { encoding: "utf8" }).trim()
}

const setup = async (client: Agents.Client, name: string, script: (t: Models.Turn) => Models.Reply) => {
  const s = Agents.scratch(`${client}-${name}`)
  const server = await Models.start(script)
  const env = Agents.environment(client, s, server.url)
  Agents.configure(client, s, server.url, fixtures)
  install(client, s, env)
  // The rewrite into the sandbox is the decision server's (it probes the boundary once, as it
  // starts): warm, every call goes the way it does after a session's first.
  await Agents.warmServer(s, env)
  return { s, server, env }
}

/** Whether this machine has Steward's boundary (bubblewrap that starts). */
const boundary = () =>
  Effect.runPromise(
    Effect.flatMap(Sandbox.Sandbox, (sandbox) => sandbox.availability).pipe(Effect.provide(Sandbox.layer()))
  )

const modelTurns = (server: Models.ModelServer) =>
  server.requests.filter((r) => r.wire !== "other" && !r.url.includes(":generateContent"))

const skipReason = (client: Agents.Client): string | undefined => {
  if (process.env["STEWARD_AGENT_CLI_TESTS"] === "skip") return "STEWARD_AGENT_CLI_TESTS=skip"
  if (!built) return `the CLI is not built (${Agents.builtCli}); the hooks run the built bundle`
  const found = Agents.binary(client)
  return "missing" in found ? found.missing : undefined
}

const clients: ReadonlyArray<Agents.Client> = ["claude-code", "codex", "gemini"]

for (const client of clients) {
  const skip = skipReason(client)
  describe.skipIf(skip !== undefined)(
    `${client} under Steward's hooks${skip === undefined ? "" : ` (skipped: ${skip})`}`,
    () => {
      const exe = () => (Agents.binary(client) as { path: string }).path

      it.live(
        "a force-push and a universal deny do not run and the model gets the citation; an allowed command runs; an unresolved one runs in the sandbox, or is denied without one",
        () =>
          Effect.promise(async () => {
            let ws = ""
            const { env, s, server } = await setup(client, "gate", (t) =>
              t.step === 0
                ? {
                  shell: [
                    `touch ${ws}/allowed-marker && echo allowed`,
                    "git push --force origin main",
                    `touch ${ws}/denied-marker; git push -f origin main`,
                    `eval "$(echo touch ${ws}/unresolved-marker)"`
                  ]
                }
                : { text: "All done." })
            ws = s.ws
            const originHead = gitProject(s)
            const before = originHead()
            try {
              const result = await Agents.run(exe(), Agents.argv(client, "Tidy up and publish the branch"), s, env)
              assert.strictEqual(result.exitCode, 0, result.stderr.slice(-2000))
              assert.isTrue(fs.existsSync(path.join(ws, "allowed-marker")), "the allowed command ran")
              assert.isFalse(fs.existsSync(path.join(ws, "denied-marker")), "the universal deny did not run")
              // The command the analyser cannot resolve: rewritten into `steward sandbox` where this build
              // has a boundary (visible as the command the client ran), else asked — and not run.
              const unresolved = decisions(path.join(ws, ".steward")).find((d) =>
                JSON.stringify(d.calls ?? []).includes("unresolved-marker")
              )
              assert.isDefined(unresolved)
              if (client === "codex") {
                // Codex's own workspace-write sandbox contains it (Steward's cannot start inside it): allowed
                // as it is, citing Codex's sandbox, and it ran there (the workspace is writable in it).
                assert.deepStrictEqual(
                  [unresolved.where, unresolved.citation.ruleId, unresolved.boundary, unresolved.rewritten],
                  ["sandbox", "sandbox.contained", "codex:workspace-write", false]
                )
                assert.isTrue(fs.existsSync(path.join(ws, "unresolved-marker")), "it ran in Codex's sandbox")
              } else if ((await boundary()).available) {
                // This machine has the boundary: the hook must have rewritten the command into it.
                assert.deepStrictEqual(
                  [unresolved.where, unresolved.citation.ruleId, unresolved.rewritten],
                  ["sandbox", "sandbox.contained", true]
                )
                // Claude Code and Gemini run it inside the boundary (the workspace is writable there).
                assert.isTrue(
                  fs.existsSync(path.join(ws, "unresolved-marker")),
                  "the rewritten command ran in the sandbox"
                )
              } else {
                assert.strictEqual(unresolved.answer, "ask")
                assert.isFalse(fs.existsSync(path.join(ws, "unresolved-marker")), "the unresolved command did not run")
              }
              assert.strictEqual(originHead(), before, "origin was not rewritten")
              const turns = modelTurns(server)
              assert.isAtLeast(turns.length, 2)
              const last = turns.at(-1)!.text
              assert.include(last, "universal.force-push")
              if (unresolved.answer === "ask") assert.include(last, "steward hooks approve")
              assert.notInclude(JSON.stringify(server.requests.map((r) => r.url)), "http")
            } finally {
              Agents.stopServers(s)
              await server.close()
              fs.rmSync(s.root, { recursive: true, force: true })
            }
          }),
        240_000
      )

      it.live("a hook whose store cannot be opened denies instead of failing open", () =>
        Effect.promise(async () => {
          let ws = ""
          const { env, s, server } = await setup(
            client,
            "store",
            (t) => t.step === 0 ? { shell: [`touch ${ws}/store-marker`] } : { text: "Stopped." }
          )
          ws = s.ws
          fs.mkdirSync(path.join(ws, ".steward"), { recursive: true })
          fs.writeFileSync(path.join(ws, ".steward", "steward.sqlite"), crypto.randomBytes(8192))
          try {
            const result = await Agents.run(exe(), Agents.argv(client, "Make the marker"), s, env)
            assert.strictEqual(result.exitCode, 0, result.stderr.slice(-2000))
            assert.isFalse(fs.existsSync(path.join(ws, "store-marker")))
            assert.include(modelTurns(server).at(-1)!.text, "cannot be opened")
          } finally {
            Agents.stopServers(s)
            await server.close()
            fs.rmSync(s.root, { recursive: true, force: true })
          }
        }), 240_000)

      if (client === "codex") {
        it.live(
          "codex with no sandbox of its own (danger-full-access): what the analyser cannot resolve is rewritten into Steward's sandbox and runs there",
          () =>
            Effect.promise(async () => {
              let ws = ""
              const { env, s, server } = await setup(client, "open", (t) =>
                t.step === 0
                  ? { shell: [`eval "$(echo touch ${ws}/unresolved-marker)"`] }
                  : { text: "All done." })
              ws = s.ws
              try {
                const result = await Agents.run(
                  exe(),
                  Agents.argv(client, "Run the step", { codexSandbox: "danger-full-access" }),
                  s,
                  env
                )
                assert.strictEqual(result.exitCode, 0, result.stderr.slice(-2000))
                const unresolved = decisions(path.join(ws, ".steward")).find((d) =>
                  JSON.stringify(d.calls ?? []).includes("unresolved-marker")
                )
                assert.isDefined(unresolved)
                if ((await boundary()).available) {
                  assert.strictEqual(unresolved.boundary, "steward")
                  assert.include(result.stdout, " sandbox --workspace ")
                  assert.isTrue(fs.existsSync(path.join(ws, "unresolved-marker")), "it ran in Steward's sandbox")
                } else {
                  // No boundary on this machine (no bubblewrap): asked, a deny in codex exec — and not run.
                  assert.strictEqual(unresolved.answer, "ask")
                  assert.isFalse(fs.existsSync(path.join(ws, "unresolved-marker")))
                }
              } finally {
                Agents.stopServers(s)
                await server.close()
                fs.rmSync(s.root, { recursive: true, force: true })
              }
            }),
          240_000
        )
      }

      if (client === "gemini") return

      it.live(
        "a certified head continues a stopped-short turn; uncertified or risky does not; a reply labels the turn",
        () =>
          Effect.promise(async () => {
            let stopText = SHORT
            const { env, s, server } = await setup(client, "settle", (t) =>
              t.lastUser.includes("Carry on") || t.lastUser.includes("Yes, go ahead")
                ? { text: "Callers updated." }
                : t.step === 0
                ? {
                  shell: Array.from({ length: WORK }, (_, i) =>
                    `echo step ${i}`)
                }
                : { text: stopText })
            const state = path.join(s.ws, ".steward")
            const turn = async (prompt: string, options: { session?: string; resume?: boolean } = {}) => {
              const before = server.requests.length
              const result = await Agents.run(exe(), Agents.argv(client, prompt, options), s, env)
              assert.strictEqual(result.exitCode, 0, result.stderr.slice(-2000))
              return server.requests.slice(before).filter((r) =>
                r.wire !== "other"
              )
            }
            const continued = (rs: ReadonlyArray<Models.Recorded>) =>
              rs.some((r) => r.text.includes("Carry on: do the step"))
            try {
              // Uncertified: the turn stops short and stays stopped.
              const first = sessionFor(client)
              assert.isFalse(continued(await turn("Migrate the schema and update the callers", { session: first })))
              // The person answers "continue": a label of that turn (its observation), nothing else.
              const labeledBefore = labeled(state)
              await turn("continue", { session: first, resume: true })
              assert.strictEqual(labeled(state), labeledBefore + 1)
              await Effect.runPromise(certify(state))
              // Certified: the same turn is continued, in a second model request carrying the prompt.
              let acted = false
              for (let attempt = 0; attempt < 4 && !acted; attempt++) {
                const settledBefore = settles(state).length
                const rs = await turn("Migrate the schema and update the callers", { session: sessionFor(client) })
                // The stop that ended the work decides (a continued turn stops again later, and that
                // later stop may be held back on its own).
                const settle = settles(state)[settledBefore]
                if (settle.held === true) {
                  assert.isFalse(continued(rs), "a held-back turn is not continued")
                  continue
                }
                assert.isTrue(continued(rs), JSON.stringify(settle))
                assert.match(JSON.stringify(rs.map((r) => r.text)), /receipt sha256:[0-9a-f]{64}/)
                acted = true
              }
              assert.isTrue(acted)
              // A risky go-ahead is not answered.
              stopText = "Schema migrated. Shall I force-push the branch to main now?"
              assert.isFalse(continued(await turn("Migrate the schema", { session: sessionFor(client) })))
              assert.strictEqual(lastSettle(state).action, "none")
            } finally {
              Agents.stopServers(s)
              await server.close()
              fs.rmSync(s.root, { recursive: true, force: true })
            }
          }),
        600_000
      )
    }
  )
}

const SHORT = "Schema migrated. Next, I'll update the callers:"
/** The tool calls of a turn that did real work before it stopped short. */
const WORK = 20

/** A fresh session id (Claude Code takes it; Codex picks its own, so it is only a hint there) outside the hold-back. */
const sessionFor = (client: Agents.Client): string => {
  for (;;) {
    const id = crypto.randomUUID()
    if (!Learning.heldTurn("stopped_short", `hook:${client}:${id}`, 0)) return id
  }
}

const certify = (state: string) =>
  Effect.gen(function*() {
    const reflexes = yield* Reflexes.Reflexes
    for (let i = 1; i <= 60; i++) {
      yield* reflexes.decide("settle", { text: SHORT, toolCalls: WORK }, { subject: `history${i}` })
      yield* reflexes.label("settle", `history${i}`, i % 10 === 0 ? "done" : "stopped_short")
    }
  }).pipe(Effect.provide(ReflexEngine.engineLayer(Option.some(state))), Effect.provide(NodeContext.layer))

const query = (state: string, sql: string): Array<any> => {
  const out = execFileSync(process.execPath, [
    "-e",
    `const D=require("better-sqlite3");const db=new D(process.argv[1],{readonly:true});console.log(JSON.stringify(db.prepare(process.argv[2]).all()))`,
    path.join(state, "steward.sqlite"),
    sql
  ], { encoding: "utf8", cwd: import.meta.dirname })
  return JSON.parse(out)
}

const decisions = (state: string): Array<any> =>
  query(state, "SELECT data FROM governance_evidence WHERE kind = 'decision' ORDER BY seq").map((r) =>
    JSON.parse(r.data)
  )

const labeled = (state: string): number =>
  query(state, "SELECT count(DISTINCT observation) AS n FROM reflex_labels WHERE reflex = 'settle'")[0].n

/** Every settle decision the hooks noted, oldest first. */
const settles = (state: string): Array<any> => {
  const rows = query(state, "SELECT data FROM governance_evidence WHERE kind = 'note' ORDER BY seq")
  return rows.map((r) => JSON.parse(r.data)).filter((d) => d.settle !== undefined).map((d) => d.settle)
}

const lastSettle = (state: string): any => settles(state).at(-1)
