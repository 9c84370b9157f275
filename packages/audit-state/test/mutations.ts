/** Apply one row of `schema-negative-cases.json` (a tiny mutation language) to a document. */
const lit = (text: string): unknown => JSON.parse(text.replace(/'/g, "\""))

const resolve = (root: any, path: string): { parent: any; key: string | number } => {
  const parts: Array<string | number> = []
  for (const m of path.matchAll(/([A-Za-z_]+)|\[(\d+)\]/g)) parts.push(m[1] !== undefined ? m[1] : Number(m[2]))
  let parent = root
  for (const p of parts.slice(0, -1)) parent = parent[p]
  return { parent, key: parts[parts.length - 1]! }
}

export const applyMutation = (doc: any, mutation: string): any => {
  const d = structuredClone(doc)
  let m = mutation.replace(/ \((?:status fixed|== session)\)$/, "")
  const extra = /^(.*) \((.*)\)$/.exec(m)
  if (extra) {
    m = extra[1]!
    applyInPlace(d, extra[2]!)
  }
  applyInPlace(d, m)
  return d
}

export const applyInPlace = (d: any, m: string): void => {
  let r: RegExpExecArray | null
  if ((r = /^set top-level (\w+)=(.*)$/.exec(m))) {
    d[r[1]!] = lit(r[2]!)
  } else if ((r = /^delete (.*)$/.exec(m))) {
    const { key, parent } = resolve(d, r[1]!)
    delete parent[key]
  } else if ((r = /^append copy of (.*) with id (.*)$/.exec(m))) {
    const { key, parent } = resolve(d, r[1]!)
    parent.push({ ...structuredClone(parent[key]), id: r[2] })
  } else if ((r = /^append copy of (.*)$/.exec(m))) {
    const { key, parent } = resolve(d, r[1]!)
    parent.push(structuredClone(parent[key]))
  } else if ((r = /^([\w.[\]]+)=(.*)$/.exec(m))) {
    const { key, parent } = resolve(d, r[1]!)
    parent[key] = lit(r[2]!)
  } else {
    throw new Error(`unparsed mutation ${m}`)
  }
}
