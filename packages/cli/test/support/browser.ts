/**
 * Real headless Chromium for the HTML pages: find it, dump a page's DOM, measure where its SVG
 * text lands, take a screenshot and count the pixels of a colour in it.
 */
import { assert } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { inflateSync } from "node:zlib"

const findChromium = (): string | undefined => {
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
      if (dir !== "" && fs.existsSync(path.join(dir, name))) return path.join(dir, name)
    }
  }
  return undefined
}

export const chromium = findChromium()

/** Where CI collects screenshots (`.ci/run` sets it; locally the repository's `.artifacts/`). */
export const artifacts = process.env.STEWARD_ARTIFACTS_DIR ??
  path.join(import.meta.dirname, "..", "..", "..", "..", ".artifacts")

/** Real headless Chromium with a fresh profile and nothing that reaches the network. */
export const browse = (args: ReadonlyArray<string>, page: string): string =>
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

/** What the layout probe reports: SVG text boxes that overlap, that leave their chart, the smallest. */
export interface Layout {
  readonly texts: number
  readonly overlaps: ReadonlyArray<string>
  readonly clipped: ReadonlyArray<string>
  readonly minHeight: number
}

// Runs in the page (a test copy: the page itself carries no script) after layout, at the given width.
const probe = `<script>(() => {
  const out = { texts: 0, overlaps: [], clipped: [], minHeight: Infinity };
  for (const svg of document.querySelectorAll("svg")) {
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll("text")].map((t) => ({ s: t.textContent, r: t.getBoundingClientRect() }));
    out.texts += texts.length;
    for (const t of texts) {
      out.minHeight = Math.min(out.minHeight, t.r.height);
      if (t.r.left < box.left - 0.5 || t.r.right > box.right + 0.5 || t.r.top < box.top - 0.5 || t.r.bottom > box.bottom + 0.5) {
        out.clipped.push(svg.getAttribute("aria-label") + ": " + t.s);
      }
    }
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i].r, b = texts[j].r;
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
        out.overlaps.push(svg.getAttribute("aria-label") + ": " + JSON.stringify(texts[i].s) + " / " + JSON.stringify(texts[j].s));
      }
    }
  }
  const pre = document.createElement("pre");
  pre.id = "layout-probe";
  pre.textContent = JSON.stringify(out);
  document.body.append(pre);
})()</script>`

/** Lay the page out in Chromium at `width` px and measure its SVG text (see {@link Layout}). */
export const layout = (page: string, width: number): Layout => {
  const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "steward-layout-")), "probe.html")
  const html = fs.readFileSync(page, "utf8")
    .replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "") // the probe is an inline script
    .replace("</body>", `${probe}</body>`)
  fs.writeFileSync(copy, html)
  const dom = browse([`--window-size=${width},2000`, "--dump-dom"], copy)
  const found = /<pre id="layout-probe">([^<]*)<\/pre>/.exec(dom)
  assert.isNotNull(found, "the layout probe ran")
  return JSON.parse(
    found![1]!.replace(/&quot;/g, "\"").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
  )
}

/** Screenshot `page` into the artifacts directory as `name`; returns the PNG's path. */
export const screenshot = (page: string, name: string, size: string): string => {
  fs.mkdirSync(artifacts, { recursive: true })
  const shot = path.join(artifacts, name)
  fs.rmSync(shot, { force: true })
  browse(["--hide-scrollbars", `--window-size=${size}`, `--screenshot=${shot}`], page)
  return shot
}

/** Pixels of an 8-bit RGB(A) PNG (non-interlaced), enough to find the chart colours. */
export const decodePng = (png: Buffer) => {
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
