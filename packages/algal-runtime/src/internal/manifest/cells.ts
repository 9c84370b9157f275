/**
 * The normalized cells of an `algal.organism.v1` manifest, one interface per kind family
 * (re-exported by `Manifest`).
 *
 * @internal
 */
import type { ConstPortDecl, ExprEnvelope, Json, OutputContract, PortDecl } from "../../Manifest.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ViewCell {
  readonly cell: string
  readonly ports?: ReadonlyArray<string>
}

/**
 * What an agent-family cell sees.
 *
 * @since 0.1.0
 * @category models
 */
export interface View {
  readonly inputs?: "*" | ReadonlyArray<string>
  readonly cells?: ReadonlyArray<ViewCell>
  readonly graph?: boolean
  readonly note?: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface InputCell {
  readonly id: string
  readonly kind: "input"
  readonly outputs: Readonly<Record<string, PortDecl>>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ConstCell {
  readonly id: string
  readonly kind: "const"
  readonly outputs: Readonly<Record<string, ConstPortDecl>>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FnCell {
  readonly id: string
  readonly kind: "fn"
  readonly fn: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ExprCell {
  readonly id: string
  readonly kind: "expr"
  readonly inputs?: Readonly<Record<string, PortDecl>>
  readonly expr: ExprEnvelope
  readonly output: OutputContract
}

/**
 * @since 0.1.0
 * @category models
 */
export interface StoreCell {
  readonly id: string
  readonly kind: "store" | "load" | "spawn"
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SlotCell {
  readonly id: string
  readonly kind: "slot"
  readonly name: string
  readonly mode: "read" | "write"
  readonly default?: Json
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolCell {
  readonly id: string
  readonly kind: "tool"
  readonly tool: string
  readonly budget?: { readonly maxEffectMs?: number }
}

/**
 * agent, classifier, gate and decide cells (the model-call family).
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentCell {
  readonly id: string
  readonly kind: "agent" | "classifier" | "gate" | "decide"
  readonly inputs?: Readonly<Record<string, PortDecl>>
  /** Required on every model cell but `decide` (whose questions carry the instructions). */
  readonly prompt?: string
  readonly view: View
  readonly output?: OutputContract
  readonly questions?: { readonly [name: string]: Json }
  readonly route?: { readonly provider?: string; readonly model?: string; readonly preset?: string }
  readonly tools?: ReadonlyArray<string>
  readonly compact?: { readonly [key: string]: Json }
  readonly budget?: { readonly [key: string]: number }
  readonly shadow?: { readonly take: string }
  readonly retry?: { readonly attempts: number }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface RecallCell {
  readonly id: string
  readonly kind: "recall"
  readonly inputs?: Readonly<Record<string, PortDecl>>
  readonly query: ExprEnvelope
  readonly k?: number
  readonly embedder?: string
  readonly route?: { readonly [key: string]: string }
  readonly rerank?: { readonly [key: string]: Json }
  readonly budget?: { readonly [key: string]: number }
  readonly retry?: { readonly attempts: number }
}

/**
 * organism, repeat and each cells: run an embedded manifest named by digest.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompositionCell {
  readonly id: string
  readonly kind: "organism" | "repeat" | "each"
  readonly manifest: string
  readonly via?: string
  readonly maxRounds?: number
  readonly carry?: Readonly<Record<string, string>>
  readonly until?: { readonly output: string; readonly equals: string; readonly field?: string }
  readonly maxItems?: number
  readonly over?: string
}

/**
 * A normalized cell.
 *
 * @since 0.1.0
 * @category models
 */
export type Cell =
  | InputCell
  | ConstCell
  | FnCell
  | ExprCell
  | StoreCell
  | SlotCell
  | ToolCell
  | AgentCell
  | RecallCell
  | CompositionCell
