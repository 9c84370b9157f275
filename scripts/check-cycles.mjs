#!/usr/bin/env node
// CI habit: no import cycle among the packages' source files. Project references already stop
// cycles between packages; this catches them between modules, where one would make a module's
// initialisation order depend on who imported first. Type-only imports are erased at run time
// and are not edges. Exit 1 naming every cycle found (one strongly connected component each).
import { importsOf, parse, resolveImport, root, show, sourceFiles } from "./lib/sources.mjs"

/** The import graph of `files`: file → set of files it loads at run time. */
export const graphOf = (files, base = root) => {
  const graph = new Map()
  for (const file of files) {
    const edges = new Set()
    for (const { specifier, typeOnly } of importsOf(parse(file))) {
      if (typeOnly) continue
      const target = resolveImport(file, specifier, base)
      if (target !== undefined) edges.add(target)
    }
    graph.set(file, edges)
  }
  return graph
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
export const cyclesOf = (graph) => {
  let index = 0
  const stack = []
  const onStack = new Set()
  const indices = new Map()
  const low = new Map()
  const out = []
  const visit = (v) => {
    indices.set(v, index)
    low.set(v, index)
    index++
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indices.get(w)))
    }
    if (low.get(v) === indices.get(v)) {
      const component = []
      let w
      do {
        w = stack.pop()
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || graph.get(v)?.has(v)) out.push(component.sort())
    }
  }
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) visit(v)
  return out
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = sourceFiles()
  const cycles = cyclesOf(graphOf(files))
  if (cycles.length > 0) {
    for (const cycle of cycles) process.stderr.write(`import cycle: ${cycle.map((file) => show(file)).join(" <-> ")}\n`)
    process.exit(1)
  }
  process.stdout.write(`check-cycles: ${files.length} source files, no import cycle\n`)
}
