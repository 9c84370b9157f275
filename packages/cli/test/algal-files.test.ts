import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runCli } from "./harness.js"

// Issue 15 items 4 and 9 and issue 16 item 2 for the algal area: `-` reads a JSON argument from
// stdin, run args that match no input port are refused (ADR 0321), managed-controller receipts
// verify and replay, and every file the area reads goes through the bounded reader (ADR 0322).

const fixtures = path.join(import.meta.dirname, "fixtures", "algal")
const fixture = (name: string) => path.join(fixtures, name)
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "steward-algal-files-"))
const write = (dir: string, name: string, value: unknown) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value))
  return file
}
const tiny = {
  contract: "algal.organism.v1",
  key: "organism:tiny",
  name: "Tiny",
  cells: [{ id: "in", kind: "input", outputs: { v: "json" } }, { id: "out", kind: "fn", fn: "echo.v1" }],
  edges: [{ from: { cell: "in", port: "v" }, to: { cell: "out", port: "value" } }],
  interface: {
    inputs: { value: { cell: "in", port: "v" } },
    outputs: { echoed: { cell: "out", port: "value" } }
  }
}

describe("steward algal: - reads a JSON argument from stdin", () => {
  it.live("run --args - gives the same receipt as the args file", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const args = { in: { v: { n: 1 } } }
      const manifest = write(dir, "tiny.algal.json", tiny)
      const fromFile = yield* runCli([
        "algal",
        "run",
        "--json",
        "--state-dir",
        dir,
        "--args",
        write(dir, "args.json", args),
        manifest
      ])
      assert.strictEqual(fromFile.exitCode, 0, fromFile.stderr)
      const fromStdin = yield* runCli(["algal", "run", "--json", "--state-dir", dir, "--args", "-", manifest], {
        stdin: JSON.stringify(args)
      })
      assert.strictEqual(fromStdin.exitCode, 0, fromStdin.stderr)
      assert.strictEqual(fromStdin.json().digest, fromFile.json().digest)
      const named = yield* runCli([
        "algal",
        "run",
        "--json",
        "--state-dir",
        dir,
        "--interface",
        "--args",
        "-",
        manifest
      ], { stdin: `{"value": {"n": 1}}` })
      assert.strictEqual(named.exitCode, 0, named.stderr)
      assert.deepStrictEqual(named.json().outputs, fromFile.json().outputs)
      const duplicate = yield* runCli(["algal", "run", "--json", "--state-dir", dir, "--args", "-", manifest], {
        stdin: `{"in": {"v": 1, "v": 2}}`
      })
      assert.strictEqual(duplicate.exitCode, 2)
      assert.include(duplicate.errorJson().error.message, "duplicate key \"v\"")
    }))

  it.live("expr - reads the program (or --env -) from stdin; both from stdin is a usage error", () =>
    Effect.gen(function*() {
      // `-` as PROGRAM after the options (@effect/cli reads the options before the argument)
      const program = yield* runCli(["algal", "expr", "--env", "{\"x\":3}", "-"], { stdin: "[\"get\",\"x\"]" })
      assert.strictEqual(program.exitCode, 0, program.stderr)
      assert.strictEqual(program.stdout, `{"ok":true,"value":3,"fuel":4}`)
      const env = yield* runCli(["algal", "expr", "[\"get\",\"x\"]", "--env", "-"], { stdin: "{\"x\":3}" })
      assert.strictEqual(env.exitCode, 0, env.stderr)
      assert.strictEqual(env.stdout, `{"ok":true,"value":3,"fuel":4}`)
      const both = yield* runCli(["algal", "expr", "--env", "-", "--json", "-"], { stdin: "1" })
      assert.strictEqual(both.exitCode, 2)
      assert.strictEqual(both.errorJson().error.code, "usage")
      const duplicate = yield* runCli(["algal", "expr", "[\"get\",\"x\"]", "--env", "-", "--json"], {
        stdin: "{\"x\": 3,\n \"x\": 4}"
      })
      assert.strictEqual(duplicate.exitCode, 2)
      assert.strictEqual(duplicate.stdout, "")
      assert.include(duplicate.errorJson().error.message, "--env is not valid JSON: duplicate key \"x\"")
      assert.include(duplicate.errorJson().error.message, "line 2")
    }))
})

describe("steward algal run: args that match no input port (ADR 0321)", () => {
  it.live("are refused with exit 2 naming them and the input ports; --allow-unused-args runs anyway", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const manifest = write(dir, "tiny.algal.json", tiny)
      const runWith = (args: unknown, ...flags: ReadonlyArray<string>) =>
        runCli(["algal", "run", "--json", "--state-dir", dir, ...flags, "--args", write(dir, "a.json", args), manifest])
      const port = yield* runWith({ in: { v: 1, w: 2 } })
      assert.strictEqual(port.exitCode, 2)
      assert.strictEqual(port.stdout, "")
      const error = port.errorJson().error
      assert.strictEqual(error.code, "invalid-input")
      assert.include(error.message, "in.w matches no input port (input ports: in.v)")
      assert.include(error.message, "--allow-unused-args")
      assert.deepStrictEqual(error.details.unused, ["in.w"])
      const cell = yield* runWith({ inn: { v: 1 }, out: { value: 1 } })
      assert.strictEqual(cell.exitCode, 2)
      assert.deepStrictEqual(cell.errorJson().error.details.unused, ["inn", "out"])
      const named = yield* runWith({ value: 1, valeu: 2 }, "--interface")
      assert.strictEqual(named.exitCode, 2)
      assert.include(
        named.errorJson().error.message,
        "valeu matches no input of the interface (interface inputs: value)"
      )
      const allowed = yield* runWith({ in: { v: 1, w: 2 } }, "--allow-unused-args")
      assert.strictEqual(allowed.exitCode, 0, allowed.stderr)
      assert.deepStrictEqual(allowed.json().args, { in: { v: 1, w: 2 } })
      const noReceipt = yield* runWith({ in: { w: 2 } }, "--no-receipt")
      assert.strictEqual(noReceipt.exitCode, 2)
      const used = yield* runWith({ in: { v: 1 } })
      assert.strictEqual(used.exitCode, 0, used.stderr)
    }))
})

describe("steward algal verify/replay of managed-controller receipts (spec §4.3, §5.2)", () => {
  it.live("a managed checkpoint and its resumed receipt verify and replay with --managed; a tampered one does not", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const manifest = fixture("project-controller.algal.json")
      const first = yield* runCli(["algal", "run", manifest, "--managed", "--json", "--state-dir", dir])
      assert.strictEqual(first.json().outcome, "suspended")
      const checkpoint = write(dir, "cp1.json", first.stdout)
      const verb = (name: "verify" | "replay", receipt: string, ...flags: ReadonlyArray<string>) =>
        runCli(["algal", name, receipt, "--manifest", manifest, "--json", "--state-dir", dir, ...flags])

      const verified = yield* verb("verify", checkpoint, "--managed")
      assert.strictEqual(verified.exitCode, 0, verified.stdout + verified.stderr)
      assert.isTrue(verified.json().ok)
      assert.strictEqual(verified.json().digest, first.json().digest)
      const replayed = yield* verb("replay", checkpoint, "--managed")
      assert.strictEqual(replayed.exitCode, 0, replayed.stdout + replayed.stderr)
      assert.strictEqual(replayed.json().verdict, "identical")
      // without --managed the manifest is read as written: another program, said as such
      const plain = yield* verb("verify", checkpoint)
      assert.strictEqual(plain.exitCode, 1)
      assert.include(plain.json().mismatches[0], "manifestDigest")
      // in text mode a hint says what to pass (nothing extra on stderr with --json)
      assert.strictEqual(plain.stderr, "")
      const textRun = (name: "verify" | "replay", receipt: string) =>
        runCli(["algal", name, receipt, "--manifest", manifest, "--state-dir", dir])
      for (const name of ["verify", "replay"] as const) {
        const hinted = yield* textRun(name, checkpoint)
        assert.strictEqual(hinted.exitCode, 1)
        assert.include(hinted.stderr, "the receipt is of a managed-controller run")
        assert.include(hinted.stderr, "pass --managed")
      }
      // a receipt of another program gets no such hint
      const other = yield* runCli(["algal", "run", "--json", "--state-dir", dir, fixture("counter.algal.json")])
      const unrelated = yield* textRun("verify", write(dir, "other.json", other.stdout))
      assert.strictEqual(unrelated.exitCode, 1)
      assert.notInclude(unrelated.stderr, "--managed")

      const resumed = yield* runCli([
        "algal",
        "resume",
        checkpoint,
        "--manifest",
        manifest,
        "--managed",
        "--response",
        "inspected",
        "--json",
        "--state-dir",
        dir
      ])
      const second = write(dir, "cp2.json", resumed.stdout)
      const again = yield* verb("verify", second, "--managed")
      assert.strictEqual(again.exitCode, 0, again.stdout + again.stderr)

      // the recorded answer changed after the fact: the receipt no longer hashes to its digest,
      // and the next agent's request is not the recorded one
      const tampered = resumed.json()
      const answered = tampered.effects.find((e: any) => typeof e.output === "string")
      answered.output = "forged"
      const forged = write(dir, "forged.json", tampered)
      const mismatch = yield* verb("verify", forged, "--managed")
      assert.strictEqual(mismatch.exitCode, 1)
      assert.isFalse(mismatch.json().ok)
      assert.isTrue(mismatch.json().mismatches.some((m: string) => m.startsWith("digest:")))
      const unreplayable = yield* verb("replay", forged, "--managed")
      assert.strictEqual(unreplayable.exitCode, 1)
      assert.strictEqual(unreplayable.json().verdict, "could-not-replay")
      // the work a run did, changed after the fact: the replay differs in that field
      const worked = resumed.json()
      worked.work.units += 1
      const diverged = yield* verb("replay", write(dir, "worked.json", worked), "--managed")
      assert.strictEqual(diverged.exitCode, 1)
      assert.strictEqual(diverged.json().verdict, "diverged")
      assert.isTrue(diverged.json().mismatches.some((m: string) => m.includes("work")))
      const text = yield* runCli(["algal", "verify", forged, "--manifest", manifest, "--managed", "--state-dir", dir])
      assert.strictEqual(text.exitCode, 1)
      assert.match(text.stdout, /^MISMATCH sha256:/)
    }))
})

describe("steward algal: every file read goes through the bounded reader (ADR 0322)", () => {
  const rejected = (args: ReadonlyArray<string>, code: string) =>
    Effect.gen(function*() {
      const run = yield* runCli([...args, "--json"])
      assert.strictEqual(run.exitCode, 2, run.stdout + run.stderr)
      assert.strictEqual(run.stdout, "")
      const error = run.errorJson().error
      assert.strictEqual(error.reason ?? error.code, code)
      return error
    })

  it.live("a FIFO or a symlink to /dev/zero as manifest, args, receipt or responses is refused, never opened", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const fifo = path.join(dir, "fifo.json")
      execFileSync("mkfifo", [fifo])
      const zero = path.join(dir, "zero.json")
      fs.symlinkSync("/dev/zero", zero)
      const manifest = write(dir, "tiny.algal.json", tiny)
      for (const hostile of [fifo, zero]) {
        const kind = hostile === fifo ? "is a FIFO (named pipe), not a regular file" : "is a device"
        for (
          const args of [
            ["algal", "check", hostile],
            ["algal", "digest", hostile],
            ["algal", "canonical", hostile],
            ["algal", "run", "--state-dir", dir, "--args", hostile, manifest],
            ["algal", "run", "--state-dir", dir, "--responses", hostile, manifest],
            ["algal", "verify", "--state-dir", dir, hostile, "--manifest", manifest],
            ["algal", "replay", "--state-dir", dir, hostile, "--manifest", manifest],
            ["algal", "resume", "--state-dir", dir, hostile, "--manifest", manifest],
            ["algal", "suite", hostile]
          ]
        ) {
          const error = yield* rejected(args, "IO_FAILED")
          assert.include(error.message, `${hostile}: ${kind}`, args.join(" "))
        }
        const expr = yield* rejected(["algal", "expr", `@${hostile}`], "io")
        assert.include(expr.message, kind)
      }
    }))

  it.live("a manifest over its file limit is refused before it is read, naming the limit", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const big = write(dir, "big.algal.json", { ...tiny, note: "x".repeat(5 * 1024 * 1024) })
      const error = yield* rejected(["algal", "check", big], "BUDGET_EXHAUSTED")
      assert.include(error.message, "is larger than the limit of 4 MiB")
      assert.strictEqual(error.details.limit, 4 * 1024 * 1024)
      const args = write(dir, "args.json", { in: { v: "x".repeat(17 * 1024 * 1024) } })
      const manifest = write(dir, "tiny.algal.json", tiny)
      const tooBig = yield* rejected(["algal", "run", "--state-dir", dir, "--args", args, manifest], "BUDGET_EXHAUSTED")
      assert.include(tooBig.message, "is larger than the limit of 16 MiB")
    }))

  it.live("duplicate keys are refused wherever a document is read, naming the key, file and line", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      // shows `"fn": "echo.v1"` first, and JSON.parse would keep the second
      const text = JSON.stringify(tiny, null, 2).replace(
        `"fn": "echo.v1"`,
        `"fn": "echo.v1",\n      "fn": "no-such-fn.v1"`
      )
      const manifest = write(dir, "dup.algal.json", text)
      const line = text.split("\n").findIndex((l) => l.includes("no-such-fn")) + 1
      for (const verb of [["check"], ["digest"], ["explain"], ["canonical"], ["check", "--profile", "managed"]]) {
        const error = yield* rejected(["algal", ...verb, manifest], "PARSE_FAILED")
        assert.include(error.message, `${manifest}:${line}:`)
        assert.include(error.message, "duplicate key \"fn\"")
        assert.strictEqual(error.details.line, line)
      }
      const good = write(dir, "tiny.algal.json", tiny)
      const args = write(dir, "args.json", `{"in": {"v": 1}, "in": {"v": 2}}`)
      const dupArgs = yield* rejected(["algal", "run", "--state-dir", dir, "--args", args, good], "PARSE_FAILED")
      assert.include(dupArgs.message, `${args}:1:`)
      const run = yield* runCli(["algal", "run", "--json", "--state-dir", dir, good])
      const receipt = write(dir, "r.json", run.stdout.replace(`"outcome":`, `"outcome":"failed","outcome":`))
      yield* rejected(["algal", "verify", "--state-dir", dir, receipt, "--manifest", good], "PARSE_FAILED")
      yield* rejected(["algal", "replay", "--state-dir", dir, receipt, "--manifest", good], "PARSE_FAILED")
      const responses = write(dir, "responses.json", `{"a": "x", "a": "y"}`)
      yield* rejected(["algal", "run", "--state-dir", dir, "--responses", responses, good], "PARSE_FAILED")
      const program = write(dir, "program.json", `{"a": 1, "a": 2}`)
      const expr = yield* rejected(["algal", "expr", `@${program}`], "EXPR_PARSE")
      assert.include(expr.message, "duplicate key \"a\"")
    }))

  it.live("a sibling manifest with a duplicate key is not used as an embedded manifest", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const inner = JSON.parse(fs.readFileSync(fixture("triage.algal.json"), "utf8"))
      const innerText = JSON.stringify(inner)
      fs.writeFileSync(path.join(dir, "triage.algal.json"), innerText.replace(`{"contract":`, `{"key":"x","contract":`))
      fs.copyFileSync(fixture("inbox.algal.json"), path.join(dir, "inbox.algal.json"))
      const error = yield* rejected(["algal", "check", path.join(dir, "inbox.algal.json")], "STORE_MISS")
      assert.include(error.message, "inbox.algal.json")
      fs.writeFileSync(path.join(dir, "triage.algal.json"), innerText)
      const ok = yield* runCli(["algal", "check", "--json", path.join(dir, "inbox.algal.json")])
      assert.strictEqual(ok.exitCode, 0, ok.stderr)
    }))

  it.live("deep nesting is refused with its line and the depth limit; a suite line with a duplicate key names its line", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const deep = write(dir, "deep.json", `{\n"a":\n${"[".repeat(200)}${"]".repeat(200)}}`)
      const error = yield* rejected(["algal", "canonical", deep], "PARSE_FAILED")
      assert.include(error.message, `${deep}:3:`)
      assert.include(error.message, "nested deeper than 64 levels")
      assert.strictEqual(error.details.limit, 64)
      const corpus = write(dir, "expr.jsonl", `{"id":"a","program":1}\n{"id":"b","id":"c","program":1}\n`)
      const suite = yield* rejected(["algal", "suite", corpus], "PARSE_FAILED")
      assert.include(suite.message, `${corpus}:2:`)
      assert.include(suite.message, "duplicate key \"id\"")
    }))
})
