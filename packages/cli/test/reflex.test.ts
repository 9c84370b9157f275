import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-reflex-"))
const fixture = (name: string) => path.join(__dirname, "fixtures", "reflex", name)
const SHORT = "Parser updated. Next, I'll wire the CLI:"

describe("steward reflex", () => {
  it.live("decide settle --json prints the decision, features, veto, receipt, program and params version", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const run = yield* runCli([
        "reflex",
        "decide",
        "settle",
        "--text",
        SHORT,
        "--tool-calls",
        "60",
        "--subject",
        "t1#1",
        "--json",
        "--state-dir",
        state
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const doc = run.json()
      assert.deepStrictEqual(doc.decision, {
        category: "stopped_short",
        gate: "head",
        head: "stopped_short",
        score: 1119
      })
      assert.strictEqual(doc.paramsVersion, 0)
      assert.strictEqual(doc.vetoed, true)
      assert.match(doc.receipt, /^sha256:[0-9a-f]{64}$/)
      assert.match(doc.program, /^sha256:[0-9a-f]{64}$/)
      assert.strictEqual(doc.features.tools, 0.8458914711365835)
      assert.match(doc.observation, /^obs_[0-9a-f]{32}$/)
      const replay = yield* runCli(["reflex", "replay", doc.observation, "--json", "--state-dir", state])
      assert.strictEqual(replay.exitCode, 0, replay.stderr)
      assert.isTrue(replay.json().matches)
      assert.strictEqual(replay.json().replayed.receipt, doc.receipt)
    }))

  it.live("decide route with judge evidence; --no-record stores nothing; unknown tool calls skip", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const judge = JSON.stringify({
        difficulty: 3.9,
        scope: 3.8,
        ambiguity: 2.4,
        stakes: 2.9,
        frontier: 0.62,
        kind: "refactor"
      })
      const task = "migrate the session store to the new envelope format and update every caller"
      const run = yield* runCli([
        "reflex",
        "decide",
        "route",
        "--text",
        task,
        "--judge",
        judge,
        "--no-record",
        "--json",
        "--state-dir",
        state
      ])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const doc = run.json()
      assert.deepStrictEqual([doc.decision.route, doc.decision.head, doc.decision.gate], [
        "frontier",
        "judged",
        "score"
      ])
      assert.isNull(doc.observation)
      const eligible = yield* runCli([
        "reflex",
        "decide",
        "route",
        "--text",
        "refactor the auth layer",
        "--eligible",
        "standard",
        "--no-record",
        "--json",
        "--state-dir",
        state
      ])
      assert.strictEqual(eligible.json().decision.route, "standard", "routes only among eligible tiers")
      const skipped = yield* runCli(["reflex", "decide", "settle", "--text", SHORT, "--json", "--state-dir", state])
      assert.strictEqual(skipped.exitCode, 0)
      assert.isTrue(skipped.json().skipped)
      const status = yield* runCli(["reflex", "status", "--json", "--state-dir", state])
      assert.deepStrictEqual(status.json().map((s: any) => s.observed), [0, 0])
    }))

  it.live("bad input exits 2 with the reflex code and writes nothing", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const judge = yield* runCli([
        "reflex",
        "decide",
        "route",
        "--text",
        "x",
        "--judge",
        "{\"difficulty\":9}",
        "--json",
        "--state-dir",
        state
      ])
      assert.strictEqual(judge.exitCode, 2)
      assert.strictEqual(judge.errorJson().error.code, "invalid-input")
      const file = path.join(state, "bad.jsonl")
      fs.writeFileSync(file, `{"id":"a","text":"x","label":true}\n{"id":"b","text":"x","label":true,"tool_calls":1}\n`)
      const bad = yield* runCli(["reflex", "import", "route", file, "--json", "--state-dir", state])
      assert.strictEqual(bad.exitCode, 2)
      assert.strictEqual(bad.errorJson().error.reason, "invalid-import")
      assert.include(bad.errorJson().error.message, `${file}:2`)
      const status = yield* runCli(["reflex", "status", "route", "--json", "--state-dir", state])
      assert.strictEqual(status.json()[0].observed, 0)
      const label = yield* runCli(["reflex", "label", "settle", "nobody", "done", "--json", "--state-dir", state])
      assert.strictEqual(label.exitCode, 2)
      assert.strictEqual(label.errorJson().error.code, "not-found")
      fs.writeFileSync(
        path.join(state, "config.json"),
        JSON.stringify({ extensions: { reflexes: { route: "active", colour: "blue" } } })
      )
      const config = yield* runCli(["reflex", "--json", "--state-dir", state])
      assert.strictEqual(config.exitCode, 2)
      assert.strictEqual(config.errorJson().error.code, "invalid-config")
      assert.include(config.errorJson().error.message, "colour")
    }))

  it.live("import --dry-run reports certification and stores nothing; import inserts once", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const file = path.join(state, "history.jsonl")
      fs.writeFileSync(
        file,
        Array.from(
          { length: 400 },
          (_, i) => JSON.stringify({ id: `l${i}`, text: SHORT, label: i % 10 !== 0, tool_calls: 60 })
        ).join("\n")
      )
      const dry = yield* runCli(["reflex", "import", "settle", file, "--dry-run", "--json", "--state-dir", state])
      assert.strictEqual(dry.exitCode, 0, dry.stderr)
      const doc = dry.json()
      assert.deepStrictEqual(Object.keys(doc).sort(), ["certificates", "examples", "inserted"])
      assert.deepStrictEqual([doc.inserted, doc.examples], [0, 400])
      const u = doc.certificates.find((c: any) => c.head === "stopped_short")
      assert.deepStrictEqual(Object.keys(u).sort(), [
        "certified",
        "fired",
        "head",
        "lower",
        "precision",
        "reason",
        "threshold"
      ])
      assert.isTrue(u.certified)
      const status = yield* runCli(["reflex", "status", "settle", "--json", "--state-dir", state])
      assert.strictEqual(status.json()[0].labeled, 0)
      const real = yield* runCli(["reflex", "import", "settle", file, "--json", "--state-dir", state])
      assert.strictEqual(real.json().inserted, 400)
      const again = yield* runCli(["reflex", "import", "settle", file, "--json", "--state-dir", state])
      assert.strictEqual(again.json().inserted, 0)
      const route = yield* runCli(["reflex", "import", "route", fixture("route.valid.jsonl"), "--state-dir", state])
      assert.strictEqual(route.exitCode, 0, route.stderr)
      assert.match(route.stdout, /imported 2 of 2 examples/)
    }))

  it.live("reply and label write labels; train, rollback and status report generations and certificates", () =>
    Effect.gen(function*() {
      const state = tempDir()
      yield* runCli([
        "reflex",
        "decide",
        "settle",
        "--text",
        SHORT,
        "--tool-calls",
        "60",
        "--subject",
        "job#1",
        "--state-dir",
        state
      ])
      const reply = yield* runCli([
        "reflex",
        "reply",
        "ok keep going",
        "--subject",
        "job",
        "--json",
        "--state-dir",
        state
      ])
      assert.strictEqual(reply.exitCode, 0, reply.stderr)
      assert.strictEqual(reply.json().category, "continue")
      assert.deepStrictEqual(reply.json().labels.map((l: any) => [l.head, l.label, l.weight]), [
        ["stopped_short", true, 1],
        ["confirm", false, 0.5]
      ])
      const label = yield* runCli(["reflex", "label", "settle", "job", "done", "--json", "--state-dir", state])
      assert.strictEqual(label.exitCode, 0, label.stderr)
      const train = yield* runCli(["reflex", "train", "settle", "--json", "--state-dir", state])
      assert.strictEqual(train.exitCode, 0, train.stderr)
      assert.strictEqual(train.json().reflex, "settle")
      assert.strictEqual(train.json().certificates.length, 2)
      const rollback = yield* runCli(["reflex", "rollback", "settle", "0", "--state-dir", state])
      assert.strictEqual(rollback.exitCode, 0)
      assert.match(rollback.stdout, /restored the shipped prior/)
      const missing = yield* runCli(["reflex", "rollback", "settle", "7", "--json", "--state-dir", state])
      assert.strictEqual(missing.exitCode, 2)
      assert.strictEqual(missing.errorJson().error.code, "not-found")
      const bare = yield* runCli(["reflex", "--state-dir", state])
      assert.strictEqual(bare.exitCode, 0)
      assert.match(bare.stdout, /settle\.stopped_short\s+mode auto, 1 labels/)
      assert.match(bare.stdout, /certificate\s+not certified/)
      assert.match(bare.stdout, /calibration/)
    }))

  it.live("features and check; a rejected custom organism shows in status and the shipped program runs", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const features = yield* runCli([
        "reflex",
        "features",
        "route",
        "--text",
        "Fix fix, the bug and take over",
        "--json",
        "--state-dir",
        state
      ])
      assert.deepStrictEqual(
        [features.json().features.imperative, features.json().features.verbs, features.json().features.words],
        [1, 0.25, 0.0175]
      )
      const ok = yield* runCli(["reflex", "check", fixture("settle.algal.json"), "--json"])
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
      assert.match(ok.json().digest, /^sha256:/)
      const organism = JSON.parse(fs.readFileSync(fixture("settle.algal.json"), "utf8"))
      organism.budgets.maxAgentCalls = 1
      organism.cells.push({ id: "ask", kind: "agent", prompt: "x", output: { kind: "text" } })
      const bad = path.join(state, "bad.algal.json")
      fs.writeFileSync(bad, JSON.stringify(organism))
      const rejected = yield* runCli(["reflex", "check", bad, "--json"])
      assert.strictEqual(rejected.exitCode, 1)
      assert.strictEqual(rejected.errorJson().error.reason, "program-rejected")
      assert.isAtLeast(rejected.errorJson().error.details.violations.length, 2)
      fs.mkdirSync(path.join(state, "reflexes"))
      fs.copyFileSync(bad, path.join(state, "reflexes", "settle.algal.json"))
      const status = yield* runCli(["reflex", "status", "settle", "--json", "--state-dir", state])
      assert.strictEqual(status.exitCode, 0, status.stderr)
      const program = status.json()[0].program
      assert.strictEqual(program.fault, "custom reflex program rejected; using the shipped program")
      assert.isFalse(program.custom)
      assert.includeMembers(program.violations.map((v: any) => v.rule), ["cell-kinds", "max-agent-calls"])
      const decided = yield* runCli([
        "reflex",
        "decide",
        "settle",
        "--text",
        SHORT,
        "--tool-calls",
        "60",
        "--json",
        "--state-dir",
        state
      ])
      assert.strictEqual(decided.json().decision.category, "stopped_short")
      assert.isFalse(decided.json().custom)
    }))

  it.live("turn state and limits reach the program; a symlinked custom organism is refused", () =>
    Effect.gen(function*() {
      const state = tempDir()
      const q = yield* runCli([
        "reflex",
        "decide",
        "settle",
        "--text",
        "Which schema should I use?",
        "--tool-calls",
        "60",
        "--state",
        "needs_answer",
        "--json",
        "--state-dir",
        state
      ])
      assert.strictEqual(q.exitCode, 0, q.stderr)
      assert.deepStrictEqual([q.json().decision.category, q.json().decision.gate, q.json().decision.score], [
        "question",
        "state",
        -1865
      ])
      const limit = yield* runCli([
        "reflex",
        "decide",
        "settle",
        "--text",
        "working on it",
        "--tool-calls",
        "60",
        "--limit",
        "--json",
        "--state-dir",
        state
      ])
      assert.deepStrictEqual([limit.json().decision.category, limit.json().decision.gate], ["interrupted", "limit"])
      const badState = yield* runCli([
        "reflex",
        "decide",
        "settle",
        "--text",
        "x",
        "--state",
        "sleepy",
        "--json",
        "--state-dir",
        state
      ])
      assert.strictEqual(badState.exitCode, 2)
      fs.mkdirSync(path.join(state, "reflexes"))
      fs.symlinkSync(fixture("settle.algal.json"), path.join(state, "reflexes", "settle.algal.json"))
      const status = yield* runCli(["reflex", "status", "settle", "--json", "--state-dir", state])
      assert.strictEqual(status.exitCode, 0, status.stderr)
      assert.match(status.json()[0].program.fault, /symbolic link/)
      assert.isFalse(status.json()[0].program.custom)
    }))
})
