#!/usr/bin/env node
/**
 * The `steward` executable: runs `Main.main` with the Node platform and sets the exit code.
 * SIGINT/SIGTERM handlers are installed before anything else loads, so a stop exits 130/143
 * whenever it arrives: the running command is interrupted (scopes close, the database is
 * released), a command that has not started never starts, and one that finished still reports
 * the stop. A second signal exits at once. `steward hook …` (an agent CLI's hook, on every tool
 * call) loads only its lean entry instead (ADR 0006).
 *
 * @since 0.1.0
 */
import type { Program } from "./internal/codeCache.js"

// No static import: a hook call (on every tool call of an agent CLI) loads its lean entry and
// nothing of the command tree's (ADR 0006).
const cli = async () => {
  // Node ≥ 22.1 keeps the compiled bundle on disk between runs (`module.enableCompileCache`), so a
  // command compiles its chunks once, not on every start (ADR 0009). Node 20 has no such API: the
  // feature is detected and its absence, or any failure, changes nothing. NODE_DISABLE_COMPILE_CACHE
  // turns it off (Node's own switch).
  const { default: nodeModule } = await import("node:module")
  try {
    ;(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.()
  } catch {
    // a cache that cannot be written only costs the compile it would have saved
  }
  const StopSignals = await import("./internal/stopSignals.js")
  const v8 = await import("node:v8")
  // `--json` before any `--`: decides how an interruption is reported (Main.wantsJson, read here
  // before Main loads).
  const json = (() => {
    const args = process.argv.slice(2)
    const end = args.indexOf("--")
    return (end === -1 ? args : args.slice(0, end)).includes("--json")
  })()

  const stopper = StopSignals.install({
    on: (signal, handler) => void process.on(signal, handler),
    exit: (code) => process.exit(code),
    setExitCode: (code) => void (process.exitCode = code),
    report: (signal) => {
      const message = `interrupted by ${signal}`
      process.stderr.write(
        json
          ? `${JSON.stringify({ error: { code: "interrupted", reason: signal, message } })}\n`
          : `steward: ${message}\n`
      )
    }
  })

  // `steward … | head`: the reader went away. Like `git log | head`, end quietly with the code the
  // command chose (0 when it had not chosen one yet) instead of an unhandled EPIPE stack trace.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error
    process.exit(typeof process.exitCode === "number" ? process.exitCode : 0)
  })

  // `pnpm steward …` runs in the repository root; relative paths are the caller's
  // (`scripts/pnpm.mjs` passes it as STEWARD_CWD, pnpm itself as INIT_CWD).
  const callerCwd = process.env["STEWARD_CWD"] ??
    (process.env["npm_lifecycle_event"] === "steward" ? process.env["INIT_CWD"] : undefined)
  delete process.env["STEWARD_CWD"]
  if (callerCwd !== undefined && callerCwd !== "" && callerCwd !== process.cwd()) process.chdir(callerCwd)

  // One-shot process: WebAssembly (the shell grammar) stays at V8's baseline tier. Optimizing it
  // after the first parse cost more than the whole rest of `policy check` (ADR 0004). Set before the
  // grammar compiles (on its first parse). From source, once the program's modules are loaded: a
  // flag changed earlier made Node reject its built-in modules' code cache (about 8 ms per
  // command). From the bundle, before it compiles: its own code cache, written when the command
  // ends, must be made under the flags it is read with (ADR 0010). Hosts embedding the libraries
  // keep V8's defaults.
  const { start } = await program(() => v8.setFlagsFromString("--liftoff-only"))
  stopper.run(() => start(process.argv))
}

/**
 * The program: the built CLI's one CommonJS file through the verb's V8 code cache
 * (`dist/program.cjs`, ADR 0010), or its ES modules when there is no such file (run from source)
 * or no cache can be used.
 */
async function program(liftoffOnly: () => void): Promise<Program> {
  const { fileURLToPath } = await import("node:url")
  const { existsSync } = await import("node:fs")
  const bundle = fileURLToPath(new URL("./program.cjs", import.meta.url))
  if (existsSync(bundle)) {
    const CodeCache = await import("./internal/codeCache.js")
    const location = CodeCache.locate(bundle, process.argv.slice(2))
    if (location !== undefined) {
      liftoffOnly()
      return CodeCache.load(bundle, location)
    }
  }
  const modules = await import("./internal/startup.js")
  liftoffOnly()
  return modules
}

if (process.argv[2] === "hook") {
  const file = process.argv[1] ?? ""
  await (await import("./internal/hookClient.js")).run(process.argv.slice(3), {
    file,
    prefix: ["hook"],
    cli: file,
    host: () => import("./hooks/Host.js")
  })
} else await cli()
