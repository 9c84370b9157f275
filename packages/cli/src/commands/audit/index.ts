/**
 * `steward audit [--project DIR] <verb> …`: xcheck's canonical audit state machine over
 * `<project>/audit/` (state in `audit/state.sqlite`, generated views beside it).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import { dispatch } from "./dispatch.js"
import { exportState, importState, init, renderViewsCommand } from "./lifecycle.js"
import { loop } from "./loopCommand.js"
import { cancel, doctor, recover, unlock } from "./maintenance.js"
import { migrate } from "./migrate.js"
import { audit } from "./options.js"
import { dashboard, lint, metrics, next, status } from "./read.js"
import {
  admitConstrual,
  amendPass,
  blockOnNorm,
  cancelPass,
  fileFinding,
  proposeConstrual,
  queuePass,
  recordCoverage,
  recordFix,
  recordPlan,
  recordRefusal,
  recordRuling,
  recordVerdict,
  setLimit,
  setStatus,
  updateCatalog
} from "./verbs.js"

export { toCli } from "./store.js"

/**
 * `steward audit …`
 *
 * @since 0.1.0
 * @category commands
 */
export const command = audit.pipe(
  Command.withDescription("The xcheck audit state machine: findings, passes, verbs, next, events, views, metrics"),
  Command.withSubcommands([
    init,
    status,
    next,
    loop,
    setStatus,
    recordFix,
    recordVerdict,
    fileFinding,
    recordCoverage,
    queuePass,
    amendPass,
    cancelPass,
    recordPlan,
    setLimit,
    blockOnNorm,
    recordRuling,
    updateCatalog,
    recordRefusal,
    proposeConstrual,
    admitConstrual,
    renderViewsCommand,
    dispatch,
    lint,
    metrics,
    importState,
    exportState,
    dashboard,
    unlock,
    cancel,
    migrate,
    recover,
    doctor
  ])
)
