/**
 * Issue 38 item 4: the bubblewrap probe's result is reused per state directory while the binary
 * and the host are unchanged, and probed again otherwise (fail closed). A fake `bwrap` counts its
 * runs, so the test needs no real bubblewrap.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Sandbox } from "../src/index.js"

const fakeBwrap = (dir: string, exit: number): string => {
  const file = path.join(dir, "bwrap")
  const temporary = `${file}.new`
  // writes one line per run; `--version` prints a version, the trial exits with `exit`
  fs.writeFileSync(
    temporary,
    `#!/bin/sh\necho run >> "${dir}/runs"\nif [ "$1" = "--version" ]; then echo "bubblewrap 0.0-fake"; exit 0; fi\nexit ${exit}\n`,
    { mode: 0o755 }
  )
  fs.renameSync(temporary, file) // a new inode, as an upgrade would make
  return file
}

const runs = (dir: string): number =>
  fs.existsSync(path.join(dir, "runs")) ? fs.readFileSync(path.join(dir, "runs"), "utf8").split("\n").length - 1 : 0

const availability = (options: Sandbox.LinuxOptions) =>
  Effect.flatMap(Sandbox.Sandbox, (s) => s.availability).pipe(Effect.provide(Sandbox.layerLinux(options)))

describe.skipIf(process.platform !== "linux")("the bubblewrap probe, kept per state directory", () => {
  it.effect("a second process start reuses the result; a changed binary, a damaged record or no cache probes again", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "steward-probe-"))
      const state = path.join(dir, "state")
      try {
        const bwrap = fakeBwrap(dir, 0)
        const first = yield* availability({ bwrap, probeCache: state })
        assert.isTrue(first.available)
        assert.strictEqual(runs(dir), 2, "trial and --version")
        const second = yield* availability({ bwrap, probeCache: state })
        assert.deepStrictEqual(second, first)
        assert.strictEqual(runs(dir), 2, "reused: no bubblewrap run")

        // without a cache directory every process probes
        yield* availability({ bwrap })
        assert.strictEqual(runs(dir), 4)

        // a damaged or foreign record is ignored, then replaced
        fs.writeFileSync(path.join(state, "bwrap-probe.json"), "{\"key\":1")
        assert.isTrue((yield* availability({ bwrap, probeCache: state })).available)
        assert.strictEqual(runs(dir), 6)
        assert.isTrue((yield* availability({ bwrap, probeCache: state })).available)
        assert.strictEqual(runs(dir), 6)

        // a replaced binary (new inode) that cannot make namespaces: probed, unavailable, and not kept
        fakeBwrap(dir, 1)
        const broken = yield* availability({ bwrap, probeCache: state })
        assert.isFalse(broken.available)
        assert.strictEqual(runs(dir), 7, "the trial ran")
        yield* availability({ bwrap, probeCache: state })
        assert.strictEqual(runs(dir), 8, "a failure is probed again")
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }))
})
