/**
 * The lean hook entry the agent CLIs run on every event (`node dist/hook.cjs <client> <event> …`,
 * written by `steward hooks install`): built as one CommonJS file with no chunk imports, so a call
 * that the decision server answers loads no ES module at all — Node's ES module loader alone
 * cost more than the rest of the call (ADR 0006). Same code as `steward hook …`; the decision
 * host (an ES module, next to it in `dist/`) loads only when the server is out of reach or when
 * this process is the server.
 *
 * @internal
 */
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type * as Host from "./hooks/Host.js"
import { run } from "./internal/hookClient.js"

// In the CommonJS bundle `__filename` is this file. The host's specifier is computed, so the
// bundler leaves it a native `import()` of the ES module next to it instead of inlining it.
const dir = path.dirname(__filename)
const hostModule = pathToFileURL(path.join(dir, "hookHost.js")).href

void run(process.argv.slice(2), {
  file: __filename,
  prefix: [],
  cli: path.join(dir, "bin.js"),
  host: () => import(hostModule) as Promise<typeof Host>
})
