/**
 * The scope approve-and-remember saves for a call (issue 35 item 3): the one place computing it,
 * shown on the pause (`run.pause`) and saved by `approve --remember`.
 */

/**
 * For shell, the command's first word and any arguments (`psql *`); otherwise the exact resource.
 */
export const rememberScope = (action: string, resource: string): string =>
  action === "shell" ? `${resource.trim().split(/\s+/)[0] ?? resource} *` : resource
