/**
 * Every cue and keyword list the reflexes read, verbatim from the xcb reflexes (all lowercase).
 * Matching rules live in `Features`, `Labels` and `Gates`; these are data only.
 *
 * @since 0.1.0
 */
// check-size: data table

/**
 * Imperative verbs of ALGAL literal-space tokenization (67, ALGAL order).
 *
 * @since 0.1.0
 * @category cues
 */
export const VERBS: ReadonlyArray<string> = [
  "run",
  "create",
  "fix",
  "add",
  "build",
  "make",
  "take",
  "resume",
  "continue",
  "check",
  "review",
  "audit",
  "deploy",
  "merge",
  "push",
  "migrate",
  "refactor",
  "test",
  "write",
  "update",
  "remove",
  "delete",
  "install",
  "setup",
  "set",
  "configure",
  "read",
  "search",
  "find",
  "analyze",
  "improve",
  "change",
  "edit",
  "implement",
  "design",
  "ship",
  "launch",
  "clean",
  "move",
  "rename",
  "upgrade",
  "inspect",
  "verify",
  "publish",
  "integrate",
  "combine",
  "unify",
  "port",
  "rewrite",
  "rework",
  "overhaul",
  "assess",
  "evaluate",
  "compare",
  "investigate",
  "debug",
  "diagnose",
  "trace",
  "profile",
  "optimize",
  "benchmark",
  "scrape",
  "extract",
  "sync",
  "import",
  "export",
  "generate"
]

/**
 * Plain-substring resume cues of the route features.
 *
 * @since 0.1.0
 * @category cues
 */
export const RESUME_CUES: ReadonlyArray<string> = [
  "session named",
  "session called",
  "take over",
  "pick up",
  "continue the work"
]

/**
 * `classify_task` complex keywords (contiguous word sequences).
 *
 * @since 0.1.0
 * @category cues
 */
export const COMPLEX_TASK: ReadonlyArray<string> = [
  "architecture",
  "migration",
  "security",
  "race",
  "concurrency",
  "redesign",
  "root cause",
  "adversarial",
  "refactor"
]

/**
 * `classify_task` routine keywords (contiguous word sequences).
 *
 * @since 0.1.0
 * @category cues
 */
export const ROUTINE_TASK: ReadonlyArray<string> = [
  "format",
  "rename",
  "typo",
  "status",
  "summarize",
  "explain",
  "docs",
  "documentation"
]

/**
 * Settle cue list `PROMISE_NEXT`.
 *
 * @since 0.1.0
 * @category cues
 */
export const PROMISE_NEXT: ReadonlyArray<string> = [
  "next, i'll",
  "next i'll",
  "next i will",
  "i'll now",
  "i will now",
  "now i'll",
  "let me now",
  "then i'll",
  "i'll continue",
  "continuing with",
  "moving on to",
  "next step is",
  "next steps:",
  "i'll start",
  "i'll proceed"
]

/**
 * Settle cue list `REMAINING_WORK`.
 *
 * @since 0.1.0
 * @category cues
 */
export const REMAINING_WORK: ReadonlyArray<string> = [
  "remaining:",
  "still need",
  "still needs",
  "left to do",
  "not yet",
  "todo",
  "to-do",
  "haven't yet",
  "have not yet",
  "yet to",
  "partially",
  "in progress",
  "work in progress",
  "follow-up",
  "unfinished"
]

/**
 * Settle cue list `AWAITING`.
 *
 * @since 0.1.0
 * @category cues
 */
export const AWAITING: ReadonlyArray<string> = [
  "waiting on",
  "waiting for",
  "i'm waiting",
  "still waiting",
  "waits on",
  "wait until",
  "will report",
  "watcher will",
  "when it reports",
  "when the loop reports",
  "as soon as its",
  "as soon as the",
  "on its completion",
  "once it finishes",
  "once ci",
  "on success i'll",
  "i'll pick up",
  "i'll merge on green",
  "nothing else can proceed",
  "nothing else can run",
  "nothing else is independent",
  "until that returns"
]

/**
 * Settle cue list `DONE_CLAIM`.
 *
 * @since 0.1.0
 * @category cues
 */
export const DONE_CLAIM: ReadonlyArray<string> = [
  "done",
  "complete",
  "completed",
  "finished",
  "all tests pass",
  "tests pass",
  "merged",
  "shipped",
  "deployed",
  "landed",
  "all set",
  "ready for review"
]

/**
 * Settle cue list `OFFER_MORE`.
 *
 * @since 0.1.0
 * @category cues
 */
export const OFFER_MORE: ReadonlyArray<string> = [
  "let me know if",
  "if you want",
  "if you'd like",
  "happy to",
  "i can also",
  "want me to"
]

/**
 * Settle cue list `BLOCKED`.
 *
 * @since 0.1.0
 * @category cues
 */
export const BLOCKED: ReadonlyArray<string> = [
  "i can't",
  "i cannot",
  "unable to",
  "i'm blocked",
  "i am blocked",
  "blocked on",
  "blocked by",
  "permission denied",
  "not authorized"
]

/**
 * Settle cue list `ASK`.
 *
 * @since 0.1.0
 * @category cues
 */
export const ASK: ReadonlyArray<string> = [
  "may i",
  "should i",
  "shall i",
  "do you want",
  "would you like",
  "want me to",
  "ok to proceed",
  "okay to proceed",
  "can i proceed",
  "reply with",
  "say the word",
  "approve",
  "approval",
  "authorize",
  "authorization",
  "confirm",
  "permission",
  "go-ahead",
  "sign-off",
  "your call",
  "your decision",
  "which option",
  "option a",
  "option b",
  "prefer"
]

/**
 * Settle cue list `USER_ACT`.
 *
 * @since 0.1.0
 * @category cues
 */
export const USER_ACT: ReadonlyArray<string> = [
  "please run",
  "please sign",
  "please log",
  "please enter",
  "please click",
  "please add",
  "please set",
  "please paste",
  "please install",
  "you'll need to",
  "you need to",
  "you will need to",
  "on your side",
  "on your end",
  "your side",
  "then reply",
  "then tell me",
  "once you've",
  "once you have",
  "when you've",
  "when you have",
  "sign in",
  "log in",
  "device code",
  "passkey",
  "2fa",
  "one-time",
  "verification code",
  "in your browser",
  "run this",
  "run the following",
  "paste the"
]

/**
 * Settle cue list `RISK`.
 *
 * @since 0.1.0
 * @category cues
 */
export const RISK: ReadonlyArray<string> = [
  "delete",
  "drop",
  "destroy",
  "force-push",
  "force push",
  "wipe",
  "truncate",
  "production data",
  "irreversible",
  "purchase",
  "payment",
  "pay",
  "charge",
  "billing",
  "credit card",
  "secret",
  "credential",
  "token",
  "password",
  "publish",
  "rotate",
  "revoke",
  "transfer",
  "wire"
]

/**
 * Settle cue list `FUTURE_SELF`.
 *
 * @since 0.1.0
 * @category cues
 */
export const FUTURE_SELF: ReadonlyArray<string> = ["i'll", "i will", "next i", "then i"]

/**
 * Settle cue list `PROGRESSIVE_SUBJECTS`.
 *
 * @since 0.1.0
 * @category cues
 */
export const PROGRESSIVE_SUBJECTS: ReadonlyArray<string> = ["i'm", "we're", "now"]

/**
 * Settle cue list `RECOMMEND`.
 *
 * @since 0.1.0
 * @category cues
 */
export const RECOMMEND: ReadonlyArray<string> = [
  "i recommend",
  "i'd recommend",
  "i would recommend",
  "my recommendation",
  "recommended",
  "i'd go with",
  "i would go with",
  "i suggest",
  "i'd suggest",
  "my suggestion",
  "i'd pick",
  "i would pick",
  "best option"
]

/**
 * Settle cue list `SELF_SERVICE`.
 *
 * @since 0.1.0
 * @category cues
 */
export const SELF_SERVICE: ReadonlyArray<string> = [
  "gh pr merge",
  "gh run rerun",
  "gh pr",
  "gh run",
  "rerun",
  "re-run",
  "merge",
  "git push",
  "push the branch",
  "cargo",
  "npm",
  "bun",
  "kill",
  "rm -rf",
  "clean up",
  "cleanup",
  "worktree",
  "retry",
  "restart"
]

/**
 * Settle cue list `HANDOFF_TO_USER`.
 *
 * @since 0.1.0
 * @category cues
 */
export const HANDOFF_TO_USER: ReadonlyArray<string> = [
  "waiting on you",
  "waiting for you",
  "over to you",
  "your turn",
  "needs you to",
  "need you to",
  "up to you",
  "when you're ready",
  "when you are ready"
]

/**
 * Settle cue list `OWNER_ONLY`.
 *
 * @since 0.1.0
 * @category cues
 */
export const OWNER_ONLY: ReadonlyArray<string> = [
  "sign in",
  "sign-in",
  "log in",
  "login",
  "device code",
  "verification code",
  "one-time",
  "passkey",
  "2fa",
  "password",
  "keychain",
  "touch id",
  "1password",
  "paste the",
  "paste your",
  "copy the key",
  "api key",
  "secret",
  "credential",
  "pay",
  "payment",
  "billing",
  "spend",
  "which machine",
  "which email",
  "which account",
  "in your browser",
  "unlock"
]

/**
 * Confirm-veto list `VETO_ANYWHERE`.
 *
 * @since 0.1.0
 * @category cues
 */
export const VETO_ANYWHERE: ReadonlyArray<string> = [
  "delet",
  "drop",
  "destroy",
  "wipe",
  "wiping",
  "truncat",
  "purg",
  "force-push",
  "force push",
  "push --force",
  "push -f",
  "reset --hard",
  "rm -",
  "credential",
  "password",
  "secret",
  "private key",
  "api key",
  "ssh key",
  "production",
  "prod",
  "spend",
  "spent",
  "purchas",
  "billing"
]

/**
 * Confirm-veto list `VETO_IN_ASK`.
 *
 * @since 0.1.0
 * @category cues
 */
export const VETO_IN_ASK: ReadonlyArray<string> = [
  "deploy",
  "releas",
  "publish",
  "migrat",
  "push to main",
  "push to master",
  "tag",
  "live",
  "remov",
  "overwrit",
  "revert",
  "rollback",
  "roll back",
  "pay",
  "charg",
  "invoice",
  "subscri",
  "upgrad",
  "token",
  "access",
  "permission",
  "sudo",
  "send",
  "email",
  "post",
  "tweet",
  "invite",
  "share",
  "public"
]

/**
 * Confirm-veto list `VETO_ENDINGS`.
 *
 * @since 0.1.0
 * @category cues
 */
export const VETO_ENDINGS: ReadonlyArray<string> = [
  "",
  "s",
  "es",
  "e",
  "ed",
  "d",
  "ing",
  "ion",
  "ions",
  "al",
  "ped",
  "ping",
  "ged",
  "ging",
  "ment",
  "ments",
  "be",
  "bed",
  "bing",
  "ption",
  "ptions",
  "y",
  "ies",
  "ly",
  "ten"
]

/**
 * Reply list `REPLY_PREFIXES`.
 *
 * @since 0.1.0
 * @category cues
 */
export const REPLY_PREFIXES: ReadonlyArray<string> = ["ok ", "okay ", "ok, ", "okay, ", "please ", "pls "]

/**
 * Reply list `SELF_SERVE_REPLIES`.
 *
 * @since 0.1.0
 * @category cues
 */
export const SELF_SERVE_REPLIES: ReadonlyArray<string> = [
  "do it yourself",
  "do this yourself",
  "do that yourself",
  "you can do this yourself",
  "you can do it yourself",
  "you can do that yourself",
  "can't you",
  "cant you",
  "you don't need my",
  "you dont need my",
  "stop asking",
  "no need to ask",
  "without asking"
]

/**
 * Reply list `CONTINUE_REPLIES`.
 *
 * @since 0.1.0
 * @category cues
 */
export const CONTINUE_REPLIES: ReadonlyArray<string> = [
  "continue",
  "keep going",
  "keep working",
  "keep pushing",
  "keep at it",
  "go on",
  "carry on",
  "proceed",
  "resume",
  "finish it",
  "finish what you started",
  "finish up",
  "finish the rest",
  "finish the remaining",
  "next",
  "onward",
  "let's keep going",
  "lets keep going",
  "let's continue",
  "lets continue",
  "do the next step",
  "do the remaining",
  "let's do the next",
  "lets do the next",
  "work on the next",
  "work on the remaining",
  "you stopped",
  "don't stop",
  "dont stop"
]

/**
 * Reply list `APPROVE_REPLIES`.
 *
 * @since 0.1.0
 * @category cues
 */
export const APPROVE_REPLIES: ReadonlyArray<string> = [
  "yes",
  "yep",
  "yeah",
  "y",
  "sure",
  "approve",
  "approved",
  "go ahead",
  "do it",
  "sounds good",
  "lgtm",
  "ship it",
  "confirm",
  "confirmed",
  "i approve",
  "i authorize",
  "i confirm",
  "i acknowledge",
  "authorized",
  "granted",
  "please do",
  "go for it",
  "agreed"
]

/**
 * Reply list `HANDOFF_REPLIES`.
 *
 * @since 0.1.0
 * @category cues
 */
export const HANDOFF_REPLIES: ReadonlyArray<string> = [
  "done",
  "ready",
  "finished",
  "completed",
  "it's done",
  "it's set",
  "signed in",
  "logged in",
  "i signed",
  "i logged",
  "i just signed",
  "i just logged",
  "i added",
  "i set",
  "i created",
  "i installed",
  "i ran",
  "i enabled",
  "i updated",
  "i clicked",
  "i granted",
  "i restarted",
  "i connected",
  "i configured"
]

/**
 * Reply list `DELIVER_REPLIES`.
 *
 * @since 0.1.0
 * @category cues
 */
export const DELIVER_REPLIES: ReadonlyArray<string> = [
  "push it",
  "push them",
  "push this",
  "open a pr",
  "open prs",
  "open the pr",
  "merge it",
  "merge them",
  "merge this",
  "merge the pr",
  "get it merged",
  "get it deployed",
  "get it shipped",
  "get it live",
  "deploy it",
  "deploy this",
  "commit and push",
  "land it",
  "land this"
]

/**
 * Reply list `STATUS_REPLIES`.
 *
 * @since 0.1.0
 * @category cues
 */
export const STATUS_REPLIES: ReadonlyArray<string> = [
  "are you done",
  "are you finished",
  "are you still",
  "did you finish",
  "did you ship",
  "did you merge",
  "did you push",
  "did you deploy",
  "is it done",
  "is this done",
  "is it merged",
  "is it live",
  "what's the status",
  "whats the status",
  "status",
  "where are we",
  "any update",
  "any progress",
  "how's it going"
]

/**
 * Reply list `CORRECTION_REPLIES`.
 *
 * @since 0.1.0
 * @category cues
 */
export const CORRECTION_REPLIES: ReadonlyArray<string> = [
  "no",
  "nope",
  "nah",
  "wait",
  "stop",
  "don't",
  "dont",
  "actually",
  "hmm",
  "that's wrong",
  "that's not",
  "not this",
  "not that",
  "not what",
  "wrong",
  "why did",
  "why are",
  "why is",
  "why not",
  "you didn't",
  "you forgot",
  "you missed"
]

/**
 * Reply list `QUOTA_REPLIES`.
 *
 * @since 0.1.0
 * @category cues
 */
export const QUOTA_REPLIES: ReadonlyArray<string> = [
  "limits are back",
  "limits are gone",
  "limits reset",
  "limit reset",
  "usage is back",
  "usage reset",
  "quota reset",
  "credits are back",
  "credits restored"
]

/**
 * Tier requests that label the previous route `frontier`.
 *
 * @since 0.1.0
 * @category cues
 */
export const ESCALATION_STRONGER: ReadonlyArray<string> = [
  "better model",
  "smarter model",
  "stronger model",
  "frontier model",
  "use opus",
  "use fable",
  "use astra",
  "on opus",
  "on fable",
  "with opus",
  "with fable"
]

/**
 * Tier requests that label the previous route `standard`.
 *
 * @since 0.1.0
 * @category cues
 */
export const ESCALATION_LIGHTER: ReadonlyArray<string> = [
  "cheaper model",
  "faster model",
  "smaller model",
  "lighter model",
  "use sonnet",
  "use haiku",
  "with sonnet"
]

/**
 * Whole-message continue replies (`continue_like`).
 *
 * @since 0.1.0
 * @category cues
 */
export const CONTINUE_LIKE: ReadonlyArray<string> = [
  "continue",
  "keep going",
  "go on",
  "go ahead",
  "proceed",
  "carry on",
  "finish it",
  "finish",
  "keep at it",
  "don't stop",
  "dont stop",
  "you stopped",
  "you stopped early",
  "continue where you left off",
  "continue the work",
  "resume",
  "next"
]

/**
 * Idle-text classifier: the operator must act.
 *
 * @since 0.1.0
 * @category cues
 */
export const NEEDS_ACTION: ReadonlyArray<string> = [
  "please sign in",
  "please log in",
  "verification code",
  "scan the qr",
  "paste your",
  "attach the",
  "run this manually"
]

/**
 * Idle-text classifier: the operator must approve.
 *
 * @since 0.1.0
 * @category cues
 */
export const NEEDS_APPROVAL: ReadonlyArray<string> = [
  "please approve",
  "please confirm",
  "do you approve",
  "your approval",
  "your consent"
]

/**
 * Idle-text classifier: the operator must answer.
 *
 * @since 0.1.0
 * @category cues
 */
export const NEEDS_ANSWER: ReadonlyArray<string> = [
  "question for you",
  "need your input",
  "which do you prefer",
  "what would you like",
  "should i keep",
  "should i proceed",
  "would you like me"
]
