/**
 * Replayable run history (ALGAL v1 §5.1 managed transitions). Every settle and every
 * continuation of a session is a transition: its record — which carries the previous receipt
 * digest and a digest of every stored event up to and including the transition's own — passes
 * through the transition organism (input → `echo.v1`), and the revision is stored with the
 * transition's events in the same commit. `verify` walks the chain back to revision 1, replays
 * each record, and checks it against the stored receipt, the stored events and the installed
 * program: tampering with any stored event or receipt row is found, naming the first divergent
 * revision.
 *
 * @since 0.1.0
 */
import * as AlgalRuntime from "@steward/algal-runtime/AlgalRuntime"
import * as Canonical from "@steward/algal-runtime/Canonical"
import type * as Program from "@steward/algal-runtime/Program"
import * as Effect from "effect/Effect"
import { createHash, type Hash } from "node:crypto"
import type * as Event from "./Event.js"
import type * as EventStore from "./EventStore.js"
import { HarnessError } from "./HarnessError.js"
import * as FrozenJson from "./internal/frozenJson.js"

/**
 * The transition organism: one input cell whose record is echoed (the program every revision
 * passes through; its digest is the chain's `policy`).
 *
 * @since 0.1.0
 * @category programs
 */
export const manifest = {
  contract: "algal.organism.v1",
  key: "organism:steward-session-transition",
  name: "Steward session transition",
  budgets: {
    maxSteps: 4,
    maxAgentCalls: 0,
    maxWork: 1000,
    maxContextBytes: 262144,
    maxOutputBytes: 262144,
    maxDepth: 1
  },
  interface: {
    inputs: { record: { cell: "src", port: "record" } },
    outputs: { record: { cell: "accepted", port: "value" } }
  },
  cells: [
    { id: "src", kind: "input", outputs: { record: "json" } },
    { id: "accepted", kind: "fn", fn: "echo.v1" }
  ],
  edges: [{ from: { cell: "src", port: "record" }, to: { cell: "accepted", port: "value" } }]
} as const

/**
 * The `last_receipt` of revision 1.
 *
 * @since 0.1.0
 * @category constants
 */
export const pending = "sha256:pending"

/**
 * A transition record.
 *
 * @since 0.1.0
 * @category models
 */
export interface TransitionRecord {
  readonly contract: "steward.session-transition.v1"
  readonly session: string
  readonly revision: number
  readonly kind: "settle" | "continue"
  readonly run: string
  /** The settle status, or the continuation's cause (`slice`, `reflex`, `goal`, `person`). */
  readonly status: string
  readonly code: string | null
  readonly events: { readonly through: number; readonly digest: string }
  readonly policy_digest: string
  readonly last_receipt: string
}

// `JSON.stringify([seq, at, run, type, data])`, with the data's text computed once (`FrozenJson.text`).
const line = (seq: number, at: number, run: string | null, type: string, data: unknown): string =>
  `[${JSON.stringify(seq)},${JSON.stringify(at)},${JSON.stringify(run)},${JSON.stringify(type)},${
    FrozenJson.text(data) ?? "null"
  }]\n`

/**
 * The chain head a session's writer keeps: the last revision, its receipt digest, and a running
 * digest of the stored events.
 *
 * @since 0.1.0
 * @category models
 */
export class Chain {
  private hash: Hash = createHash("sha256")
  seq = 0
  revision = 0
  receipt: string = pending

  /** Fold committed events into the running digest (in `seq` order). */
  absorb(events: ReadonlyArray<Event.SessionEvent>): void {
    for (const e of events) {
      this.hash.update(line(e.seq, e.at, e.run, e.type, e.data))
      this.seq = e.seq
    }
  }

  /** The digest the stream would have after appending `inputs` (nothing is changed). */
  peek(inputs: ReadonlyArray<Event.EventInput>, at: number): { readonly through: number; readonly digest: string } {
    const hash = this.hash.copy()
    // The stored data is the JSON round trip of the input's (redacted) data.
    inputs.forEach((e, i) =>
      hash.update(line(this.seq + i + 1, at, e.run, e.type, JSON.parse(JSON.stringify(e.data ?? null))))
    )
    return { through: this.seq + inputs.length, digest: `sha256:${hash.digest("hex")}` }
  }

  /** The chain of a stored session. */
  static from(events: ReadonlyArray<Event.SessionEvent>, revisions: ReadonlyArray<EventStore.Revision>): Chain {
    const chain = new Chain()
    chain.absorb(events)
    const last = revisions[revisions.length - 1]
    if (last !== undefined) {
      chain.revision = last.revision
      chain.receipt = last.digest
    }
    return chain
  }
}

// The organism compiled once per runtime, not parsed and compiled again for every transition
// (issue 38: about a third of a run's fixed cost).
const compiled = new WeakMap<object, Program.Program>()
const programOf = (runtime: AlgalRuntime.AlgalRuntime["Type"]) => {
  const known = compiled.get(runtime)
  return known !== undefined
    ? Effect.succeed(known)
    : Effect.tap(runtime.compile(manifest), (program) => Effect.sync(() => compiled.set(runtime, program)))
}

const runRecord = Effect.fn("History.runRecord")(function*(record: TransitionRecord) {
  const runtime = yield* AlgalRuntime.AlgalRuntime
  const result = yield* programOf(runtime).pipe(
    Effect.flatMap((program) => runtime.run(program, { src: { record } })),
    Effect.mapError((error) => new HarnessError({ code: "VERIFY_FAILED", message: `transition: ${error.message}` }))
  )
  if (
    result.outcome !== "complete" || Canonical.encodeUnsafe(result.outputs["record"]) !== Canonical.encodeUnsafe(record)
  ) {
    return yield* new HarnessError({
      code: "VERIFY_FAILED",
      message: `the transition organism did not accept revision ${record.revision} (${result.outcome})`
    })
  }
  return result
})

/**
 * The installed program's digest.
 *
 * @since 0.1.0
 * @category programs
 */
export const policyDigest: Effect.Effect<string, HarnessError, AlgalRuntime.AlgalRuntime> = Effect.flatMap(
  AlgalRuntime.AlgalRuntime,
  (runtime) =>
    runtime.digest(manifest).pipe(
      Effect.mapError((error) => new HarnessError({ code: "VERIFY_FAILED", message: error.message }))
    )
)

/**
 * Pass the next transition through the organism: the revision to store with `events` (which it
 * covers). Advance the chain with `commit` once the store has written them.
 *
 * @since 0.1.0
 * @category transitions
 */
export const transition = Effect.fn("History.transition")(function*(
  chain: Chain,
  input: {
    readonly session: string
    readonly kind: TransitionRecord["kind"]
    readonly run: string
    readonly status: string
    readonly code?: string | null
    readonly events: ReadonlyArray<Event.EventInput>
    /** The time the events will be committed with. */
    readonly at: number
  }
) {
  const record: TransitionRecord = {
    contract: "steward.session-transition.v1",
    session: input.session,
    revision: chain.revision + 1,
    kind: input.kind,
    run: input.run,
    status: input.status,
    code: input.code ?? null,
    events: chain.peek(input.events, input.at),
    policy_digest: yield* policyDigest,
    last_receipt: chain.receipt
  }
  const result = yield* runRecord(record)
  return { revision: record.revision, digest: result.digest, record, receipt: result.receipt } as EventStore.Revision
})

/**
 * The outcome of `verify`.
 *
 * @since 0.1.0
 * @category models
 */
export type Verification =
  | { readonly session: string; readonly verified: true; readonly revisions: number; readonly receipt: string }
  | {
    readonly session: string
    readonly verified: false
    readonly revisions: number
    readonly revision: number
    readonly reason: string
    /** The stored event that is damaged (unreadable), when that is the divergence. */
    readonly seq?: number | null
  }

const same = (a: unknown, b: unknown): boolean => Canonical.encodeUnsafe(a) === Canonical.encodeUnsafe(b)

/**
 * Verify a stored session's chain from the newest revision back to revision 1.
 *
 * @since 0.1.0
 * @category verification
 */
export const verify = Effect.fn("History.verify")(function*(
  session: string,
  events: ReadonlyArray<Event.SessionEvent>,
  revisions: ReadonlyArray<EventStore.Revision>
) {
  const runtime = yield* AlgalRuntime.AlgalRuntime
  const policy = yield* policyDigest
  // Running event digests at every seq a revision claims to cover.
  const digests = new Map<number, string>()
  const hash = createHash("sha256")
  const wanted = new Set(revisions.map((r) => (r.record as TransitionRecord | null)?.events?.through ?? -1))
  if (wanted.has(0)) digests.set(0, `sha256:${hash.copy().digest("hex")}`)
  events.forEach((e, i) => {
    hash.update(line(e.seq, e.at, e.run, e.type, e.data))
    if (e.seq !== i + 1) digests.set(-2, `seq gap at ${i + 1}`)
    if (wanted.has(e.seq)) digests.set(e.seq, `sha256:${hash.copy().digest("hex")}`)
  })
  const fail = (revision: number, reason: string): Verification => ({
    session,
    verified: false,
    revisions: revisions.length,
    revision,
    reason
  })
  for (let i = revisions.length - 1; i >= 0; i--) {
    const stored = revisions[i]!
    const record = stored.record as TransitionRecord
    const n = i + 1
    if (stored.revision !== n || record?.revision !== n) return fail(n, "revision numbers are not consecutive")
    if (record.session !== session) return fail(n, "the record names another session")
    const previous = i === 0 ? pending : revisions[i - 1]!.digest
    if (record.last_receipt !== previous) return fail(n, "the record does not carry the previous receipt digest")
    if (record.policy_digest !== policy) return fail(n, "the record was made by another transition program")
    const expected = digests.get(record.events?.through ?? -1)
    if (expected === undefined || expected !== record.events.digest) {
      return fail(n, `the stored events through seq ${record.events?.through} differ from the recorded digest`)
    }
    const replayed = yield* runRecord(record).pipe(Effect.either)
    if (replayed._tag === "Left") return fail(n, replayed.left.message)
    if (replayed.right.digest !== stored.digest) return fail(n, "the replayed receipt differs from the stored digest")
    if (!same(replayed.right.receipt, stored.receipt)) return fail(n, "the stored receipt differs from its replay")
    const check = yield* runtime.verify(stored.receipt, manifest).pipe(Effect.either)
    if (check._tag === "Left" || !check.right.ok) return fail(n, "the stored receipt does not verify")
  }
  if (digests.has(-2)) return fail(0, digests.get(-2)!)
  const last = revisions[revisions.length - 1]
  return {
    session,
    verified: true,
    revisions: revisions.length,
    receipt: last?.digest ?? pending
  } satisfies Verification as Verification
})

/**
 * The verification of a session whose stored event `seq` cannot be read back: not verified at the
 * first revision that covers it (or the next one, for an event after the last revision).
 *
 * @since 0.1.0
 * @category verification
 */
export const damaged = (
  session: string,
  revisions: ReadonlyArray<EventStore.Revision>,
  seq: number | null,
  detail: string
): Verification => {
  const covering = revisions.findIndex((r) =>
    seq === null || ((r.record as TransitionRecord | null)?.events?.through ?? 0) >= seq
  )
  return {
    session,
    verified: false,
    revisions: revisions.length,
    revision: covering === -1 ? revisions.length + 1 : covering + 1,
    seq,
    reason: detail.replace(/^session store: reading events failed: /, "")
  }
}

/**
 * Verify a stored session from the store alone (what `Sessions.verify` and a read-only host run):
 * its events and revisions read, a damaged row reported as the divergence it is (`damaged`).
 *
 * @since 0.1.0
 * @category verification
 */
export const verifyStored = (
  store: EventStore.EventStore["Type"],
  id: string
): Effect.Effect<Verification, HarnessError, AlgalRuntime.AlgalRuntime> =>
  Effect.gen(function*() {
    const revisions = yield* store.revisions(id)
    const read = yield* Effect.either(store.read(id))
    // A row that cannot be read back is a divergence like any other: named, not an error.
    if (read._tag === "Left") {
      const bad = read.left.damaged
      if (bad === undefined) return yield* read.left
      return damaged(id, revisions, bad.seq, read.left.message)
    }
    return yield* verify(id, read.right, revisions)
  })
