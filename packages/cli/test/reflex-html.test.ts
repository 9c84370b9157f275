import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { inflateSync } from "node:zlib"
import { colours } from "../src/commands/reflex/html.js"
import { runCli } from "./harness.js"

// The synthetic history of examples/data (copied so this package stands alone): continue
// certifies at 0.65, confirm does not.
const history = path.join(import.meta.dirname, "fixtures", "reflex", "settle-history.jsonl")
const artifacts = process.env.STEWARD_ARTIFACTS_DIR ?? path.join(import.meta.dirname, "..", "..", "..", ".artifacts")

const findChromium = (): string | undefined => {
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
      if (dir !== "" && fs.existsSync(path.join(dir, name))) return path.join(dir, name)
    }
  }
  return undefined
}
const chromium = findChromium()

/** Real headless Chromium with a fresh profile and nothing that reaches the network. */
const browse = (args: ReadonlyArray<string>, page: string): string =>
  execFileSync(chromium!, [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${fs.mkdtempSync(path.join(os.tmpdir(), "steward-chromium-"))}`,
    ...args,
    `file://${page}`
  ], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 120_000 })

/** Pixels of an 8-bit RGB(A) PNG (non-interlaced), enough to find the chart colours. */
const decodePng = (png: Buffer) => {
  let offset = 8
  let width = 0
  let height = 0
  let channels = 0
  const data: Array<Buffer> = []
  while (offset < png.length) {
    const length = png.readUInt32BE(offset)
    const type = png.toString("latin1", offset + 4, offset + 8)
    const body = png.subarray(offset + 8, offset + 8 + length)
    if (type === "IHDR") {
      width = body.readUInt32BE(0)
      height = body.readUInt32BE(4)
      assert.strictEqual(body[8], 8, "8-bit PNG")
      channels = body[9] === 6 ? 4 : body[9] === 2 ? 3 : 0
      assert.notStrictEqual(channels, 0, "RGB or RGBA PNG")
    }
    if (type === "IDAT") data.push(body)
    offset += 12 + length
  }
  const raw = inflateSync(Buffer.concat(data))
  const stride = width * channels
  const pixels = Buffer.alloc(height * stride)
  for (let row = 0; row < height; row++) {
    const filter = raw[row * (stride + 1)]!
    const line = raw.subarray(row * (stride + 1) + 1, (row + 1) * (stride + 1))
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? pixels[row * stride + i - channels]! : 0
      const up = row > 0 ? pixels[(row - 1) * stride + i]! : 0
      const upLeft = row > 0 && i >= channels ? pixels[(row - 1) * stride + i - channels]! : 0
      const p = left + up - upLeft
      const paeth = Math.abs(p - left) <= Math.abs(p - up) && Math.abs(p - left) <= Math.abs(p - upLeft)
        ? left
        : Math.abs(p - up) <= Math.abs(p - upLeft)
        ? up
        : upLeft
      const predictor = [0, left, up, (left + up) >> 1, paeth][filter]!
      pixels[row * stride + i] = (line[i]! + predictor) & 0xff
    }
  }
  const count = (hex: string): number => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))
    let n = 0
    for (let i = 0; i < pixels.length; i += channels) {
      if (pixels[i] === r && pixels[i + 1] === g && pixels[i + 2] === b) n++
    }
    return n
  }
  return { width, height, count }
}

describe("steward reflex status --html", () => {
  it.live("writes a self-contained page per head: charts, ladder, certificate, history", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "steward-html-"))
      const imported = yield* runCli(["reflex", "import", "settle", history, "--json", "--state-dir", dir])
      assert.strictEqual(imported.exitCode, 0, imported.stderr)
      const file = path.join(dir, "status.html")
      const status = yield* runCli(["reflex", "status", "--html", file, "--state-dir", dir])
      assert.strictEqual(status.exitCode, 0, status.stderr)
      assert.include(status.stdout, `wrote the status page ${file}`)
      const html = fs.readFileSync(file, "utf8")
      assert.notInclude(html, "<script")
      assert.notMatch(html, /\b(?:src|href)=/) // nothing to fetch: styles and charts are inline
      for (const head of ["route-judged", "route-plain", "settle-unfinished", "settle-confirm"]) {
        assert.include(html, `id="${head}"`)
      }
      assert.include(html, "certified at threshold <strong class=\"threshold\">0.65</strong>")
      assert.include(html, "not certified — precision not yet confidently at 0.85")
      // the ladder row at the certified threshold is the certificate's own evidence
      const certificate = imported.json().certificates.find((c: any) => c.head === "unfinished")
      assert.include(html, `<td>0.65</td><td>${certificate.fired}</td>`)
      assert.include(html, `<td>${certificate.precision}</td><td>${certificate.lower}</td>`)
      assert.include(html, "certified here")
      assert.include(html, "Generation history")

      // --json keeps the status document unchanged
      const json = yield* runCli(["reflex", "status", "settle", "--json", "--html", file, "--state-dir", dir])
      assert.strictEqual(json.json()[0].reflex, "settle")
      const unwritable = yield* runCli([
        "reflex",
        "status",
        "--html",
        path.join(dir, "no", "such", "dir.html"),
        "--state-dir",
        dir
      ])
      assert.strictEqual(unwritable.exitCode, 2)
      assert.include(unwritable.stderr, "cannot write the status page")
    }), { timeout: 240_000 })

  it.live.skipIf(chromium === undefined && process.env.CI === undefined)(
    "renders in real headless Chromium: the charts and the certified threshold, with a screenshot",
    () =>
      Effect.gen(function*() {
        assert.isDefined(chromium, "chromium is not installed (.ci/run installs Debian's chromium)")
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "steward-html-"))
        yield* runCli(["reflex", "import", "settle", history, "--state-dir", dir])
        const file = path.join(dir, "status.html")
        const status = yield* runCli(["reflex", "status", "settle", "--html", file, "--state-dir", dir])
        assert.strictEqual(status.exitCode, 0, status.stderr)

        const dom = browse(["--dump-dom"], file)
        assert.strictEqual((dom.match(/<svg class="chart reliability"/g) ?? []).length, 2)
        assert.strictEqual((dom.match(/<svg class="chart precision"/g) ?? []).length, 2)
        assert.strictEqual((dom.match(/class="certified-threshold"/g) ?? []).length, 1)
        assert.include(dom, "certified at threshold <strong class=\"threshold\">0.65</strong>")

        fs.mkdirSync(artifacts, { recursive: true })
        const shot = path.join(artifacts, "reflex-status.png")
        fs.rmSync(shot, { force: true })
        browse(["--hide-scrollbars", "--window-size=1200,2400", `--screenshot=${shot}`], file)
        const png = decodePng(fs.readFileSync(shot))
        assert.strictEqual(png.width, 1200)
        // painted marks in their own colours: bars, Wilson bounds, the floor and the certified threshold
        assert.isAbove(png.count(colours.bar), 2000)
        assert.isAbove(png.count(colours.lower), 50)
        assert.isAbove(png.count(colours.floor), 100)
        assert.isAbove(png.count(colours.certified), 300)
      }),
    { timeout: 300_000 }
  )
})
