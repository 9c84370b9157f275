/**
 * Compile step 1 (ALGAL v1 §1.3): the ports of each cell — from its kind, its fn or host tool,
 * its output contract, or (organism, repeat, each) the interface of its embedded manifest,
 * compiled through `compileChild`.
 *
 * @internal
 */
import * as Expr from "../../Expr.js"
import type * as FnRegistry from "../../FnRegistry.js"
import * as Manifest from "../../Manifest.js"
import type { CompileOptions, Program, ToolSignature } from "../../Program.js"
import { fail } from "../issue.js"

/** A cell's resolved ports and what it runs. @internal */
export interface Resolved {
  readonly inputs: Readonly<Record<string, Manifest.PortDecl>>
  readonly outputs: Readonly<Record<string, Manifest.PortDecl>>
  readonly fn: FnRegistry.FnDefinition | undefined
  readonly child: Program | undefined
  readonly tool: ToolSignature | undefined
  readonly expr: Expr.Compiled | undefined
}

/** What resolving needs: the registries, the options, and how to compile an embedded manifest. @internal */
export interface ResolveContext {
  readonly fns: FnRegistry.Registry
  readonly tools: Readonly<Record<string, ToolSignature>>
  readonly options: CompileOptions
  /** Compiled embedded manifests by digest (one compile per digest per compile call). */
  readonly memo: Map<string, Program>
  readonly compileChild: (manifest: Manifest.Manifest) => Program
}

const json: Manifest.PortDecl = { type: "json" }

/** Own-property lookup: ids such as `constructor` must never resolve through the prototype chain. @internal */
export const own = <A>(record: Readonly<Record<string, A>>, key: string): A | undefined =>
  Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined

/** @internal */
export const hasOwn = (record: object, key: string): boolean => Object.prototype.hasOwnProperty.call(record, key)

const portsOfContract = (output: Manifest.OutputContract | undefined): Manifest.PortDecl => {
  if (output === undefined || output.kind === "text") return { type: "text" }
  if (output.kind === "json") {
    return output.schemaVersion === undefined
      ? { type: "json", schema: output.schema }
      : { type: "json", schema: output.schema, schemaVersion: output.schemaVersion }
  }
  return { type: "choice", labels: output.labels }
}

/** The ports of an organism, repeat or each cell: its embedded manifest's interface, adjusted. */
const compositionPorts = (
  ctx: ResolveContext,
  c: Extract<Manifest.Cell, { readonly kind: "organism" | "repeat" | "each" }>,
  at: string
): Pick<Resolved, "inputs" | "outputs" | "child"> => {
  const digest = c.manifest
  let sub = ctx.memo.get(digest)
  if (sub === undefined) {
    const m = ctx.options.manifests?.(digest)
    if (m === undefined) fail("STORE_MISS", `embedded manifest ${digest} is not in the store`, `${at}.manifest`)
    if (Manifest.digest(m!) !== digest) {
      fail("DIGEST_MISMATCH", `embedded manifest does not hash to ${digest}`, `${at}.manifest`)
    }
    sub = ctx.compileChild(m!)
    ctx.memo.set(digest, sub)
  }
  const ins: Record<string, Manifest.PortDecl> = {}
  const outs: Record<string, Manifest.PortDecl> = {}
  const carried = new Set(Object.values(c.carry ?? {}))
  for (const [name, decl] of Object.entries(sub.interfaceInputs)) {
    if (c.kind === "each" && name === c.over) ins[name] = json
    else if (c.kind === "repeat" && carried.has(name)) ins[name] = { ...decl, optional: true }
    else ins[name] = decl
  }
  for (const [name, decl] of Object.entries(sub.interfaceOutputs)) {
    outs[name] = c.kind === "each" ? { ...decl, many: true } : decl
  }
  if (c.kind === "each" && !hasOwn(ins, c.over!)) {
    fail("INTERFACE_MISMATCH", `each over ${c.over} is not an interface input`, `${at}.over`)
  }
  if (c.kind === "repeat") {
    for (const [out, inp] of Object.entries(c.carry ?? {})) {
      if (!hasOwn(outs, out) || !hasOwn(ins, inp)) {
        fail("INTERFACE_MISMATCH", `carry ${out} -> ${inp} names no interface port`, `${at}.carry`)
      }
    }
    if (c.until !== undefined && !hasOwn(outs, c.until.output)) {
      fail("INTERFACE_MISMATCH", `until output ${c.until.output} is not an interface output`, `${at}.until`)
    }
  }
  return { inputs: ins, outputs: outs, child: sub }
}

const none = { fn: undefined, child: undefined, tool: undefined, expr: undefined } as const

/** Resolve the ports of cell `i`. @internal */
export const resolveCell = (ctx: ResolveContext, c: Manifest.Cell, i: number): Resolved => {
  const at = `$.cells[${i}]`
  switch (c.kind) {
    case "input":
    case "const":
      return { ...none, inputs: {}, outputs: c.outputs }
    case "fn": {
      const fn = ctx.fns.fns.get(c.fn)
      if (fn === undefined) fail("FN_UNKNOWN", `unknown fn ${c.fn}`, `${at}.fn`)
      return { ...none, inputs: fn!.inputs, outputs: fn!.outputs, fn }
    }
    case "expr": {
      const inputs = c.inputs ?? {}
      const outputs = { out: portsOfContract(c.output) }
      return { ...none, inputs, outputs, expr: Expr.compile(c.expr.program, Object.keys(inputs)) }
    }
    case "tool": {
      const sig = own(ctx.tools, c.tool)
      if (sig === undefined) fail("TOOL_UNKNOWN", `unknown tool ${c.tool}`, `${at}.tool`)
      return { ...none, inputs: sig!.inputs, outputs: sig!.outputs, tool: sig }
    }
    case "agent":
    case "classifier":
    case "gate":
    case "decide": {
      const inputs = c.inputs ?? {}
      const outputs = { out: c.kind === "decide" ? json : portsOfContract(c.output) }
      for (const [j, name] of (c.tools ?? []).entries()) {
        if (!ctx.fns.fns.has(name) && own(ctx.tools, name) === undefined) {
          fail("TOOL_UNKNOWN", `unknown tool ${name}`, `${at}.tools[${j}]`)
        }
      }
      return { ...none, inputs, outputs }
    }
    case "recall":
      return { ...none, inputs: c.inputs ?? {}, outputs: { out: json, ref: { type: "ref" } } }
    case "organism":
    case "repeat":
    case "each":
      return { ...none, ...compositionPorts(ctx, c, at) }
    case "store":
      return { ...none, inputs: { data: json }, outputs: { ref: { type: "ref" } } }
    case "load":
      return { ...none, inputs: { ref: { type: "ref" } }, outputs: { data: json } }
    case "slot":
      return { ...none, inputs: c.mode === "write" ? { data: json } : {}, outputs: { data: json } }
    case "spawn":
      return {
        ...none,
        inputs: { manifest: json, args: { type: "json", optional: true } },
        outputs: { data: json, digest: { type: "text" } }
      }
  }
}
