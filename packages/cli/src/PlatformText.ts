/**
 * Platform errors said in words. Area commands often pass an `@effect/platform` error's message
 * on (`NotFound: FileSystem.stat (x.json): ENOENT: no such file or directory, stat 'x.json'`);
 * the CLI prints the words instead (`no such file or directory (x.json is relative to /home/me)`).
 * Applied once, in `Main`, to every message.
 *
 * @since 0.1.0
 */

const words: Readonly<Record<string, string>> = {
  NotFound: "no such file or directory",
  PermissionDenied: "permission denied",
  AlreadyExists: "already exists",
  Busy: "busy",
  BadResource: "not a usable file",
  InvalidData: "invalid data",
  TimedOut: "timed out",
  UnexpectedEof: "ended early",
  WouldBlock: "would block",
  WriteZero: "could not be written"
}

const systemError =
  /\b(NotFound|PermissionDenied|AlreadyExists|Busy|BadResource|InvalidData|TimedOut|UnexpectedEof|WouldBlock|WriteZero|Unknown): FileSystem\.\w+ \(([^)]*)\)(?::\s*([A-Z]+: [^,]+)(?:, \w+ '[^']*')?)?/g

/**
 * Rewrite every platform file-system error in `message` into words; a relative path that was not
 * found names the folder it was taken against.
 *
 * @since 0.1.0
 * @category formatting
 */
export const humanize = (message: string, cwd: string = process.cwd()): string =>
  message.replace(systemError, (_match, reason: string, path: string, detail: string | undefined) => {
    const text = words[reason] ?? detail?.replace(/^[A-Z]+: /, "") ?? "failed"
    const relative = reason === "NotFound" && path !== "" && !path.startsWith("/")
      ? ` (${path} is relative to ${cwd})`
      : ""
    return `${text}${relative}`
  })

/**
 * Whether `message` carries a platform "not found" error.
 *
 * @since 0.1.0
 * @category utils
 */
export const isNotFound = (message: string): boolean =>
  /\bNotFound: FileSystem\.|\bno such file or directory\b/.test(message)
