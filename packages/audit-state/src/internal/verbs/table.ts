/**
 * The verb table: one handler per verb, each in its own module. A newcomer changes one verb in
 * one file; the table is what `Verbs.apply` dispatches on.
 *
 * @internal
 */
import { admitConstrual } from "./admit-construal.js"
import { amendPass } from "./amend-pass.js"
import { blockOnNorm } from "./block-on-norm.js"
import { cancelPass } from "./cancel-pass.js"
import { fileFinding } from "./file-finding.js"
import type { Handler, VerbName } from "./model.js"
import { proposeConstrual } from "./propose-construal.js"
import { queuePass } from "./queue-pass.js"
import { recordCoverage } from "./record-coverage.js"
import { recordFix } from "./record-fix.js"
import { recordPlan } from "./record-plan.js"
import { recordRefusal } from "./record-refusal.js"
import { recordRuling } from "./record-ruling.js"
import { recordVerdict } from "./record-verdict.js"
import { setLimit } from "./set-limit.js"
import { setStatus } from "./set-status.js"
import { updateCatalog } from "./update-catalog.js"

/** @internal */
export const handlers: { readonly [K in VerbName]: Handler<K> } = {
  "set-status": setStatus,
  "record-fix": recordFix,
  "record-verdict": recordVerdict,
  "admit-construal": admitConstrual,
  "file-finding": fileFinding,
  "propose-construal": proposeConstrual,
  "record-plan": recordPlan,
  "queue-pass": queuePass,
  "record-refusal": recordRefusal,
  "block-on-norm": blockOnNorm,
  "record-ruling": recordRuling,
  "record-coverage": recordCoverage,
  "set-limit": setLimit,
  "amend-pass": amendPass,
  "cancel-pass": cancelPass,
  "update-catalog": updateCatalog
}
