/**
 * A tool process that dies with the harness (issue 34 item 2, ADR 0560). The platform spawns
 * each command in a process group of its own (`detached`), so a timeout stops the whole group;
 * but when the harness itself is killed (`kill -9`), nothing stops that group and the command
 * runs on, orphaned. Node cannot set `PR_SET_PDEATHSIG` on a child, so the command runs under a
 * one-line supervisor started through util-linux `setpriv --pdeathsig TERM`: the supervisor (the
 * group's leader) gets SIGTERM the moment the harness dies, and its trap kills the whole group.
 * Where `setpriv` is missing (macOS, a minimal image) the command runs as before, unsupervised.
 *
 * @internal
 */
import * as Command from "@effect/platform/Command"
import * as fs from "node:fs"

// `$1` is the command line; the supervisor waits for it and exits with its status. A trapped
// signal interrupts `wait` at once (POSIX), so the group dies within the signal's delivery.
const SUPERVISOR = `trap 'kill -KILL 0' TERM HUP; sh -c "$1" & wait $!; exit $?`

const CANDIDATES = ["/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv", "/sbin/setpriv"]

/** The `setpriv` the supervisor starts through, if the system has one. @internal */
export const setpriv: string | undefined = process.platform === "linux"
  ? CANDIDATES.find((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })
  : undefined

/** `sh -c LINE`, supervised to die with this process where the system allows it. @internal */
export const command = (line: string): Command.Command =>
  setpriv === undefined
    ? Command.make("sh", "-c", line)
    : Command.make(setpriv, "--pdeathsig", "TERM", "--", "sh", "-c", SUPERVISOR, "steward-tool", line)
