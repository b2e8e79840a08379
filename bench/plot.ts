// A line chart rendered to PNG without dependencies: an RGBA raster (lines, rectangles, a built-in 5×7 glyph
// table) and the smallest PNG encoder (one IDAT, filter 0, node:zlib's deflateSync and crc32). Pure: bytes in,
// bytes out; the caller writes the file.
import { crc32, deflateSync } from 'node:zlib';

export type Rgb = readonly [number, number, number];

export const WHITE: Rgb = [255, 255, 255];
export const BLACK: Rgb = [0, 0, 0];
const GRID: Rgb = [225, 225, 225];

/** Distinguishable line colours (Tableau 10), one per series in order. */
export const PALETTE: readonly Rgb[] = [
  [31, 119, 180],
  [255, 127, 14],
  [44, 160, 44],
  [214, 39, 40],
  [148, 103, 189],
  [140, 86, 75],
  [227, 119, 194],
  [127, 127, 127],
];

/**
 * 5×7 glyphs, one number per row (bit 4 = leftmost column). Lower case is drawn as upper case; a character
 * without a glyph as `?`.
 */
const GLYPHS: Record<string, readonly number[]> = {
  ' ': [0, 0, 0, 0, 0, 0, 0],
  '0': [0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e],
  '1': [0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e],
  '2': [0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f],
  '3': [0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e],
  '4': [0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02],
  '5': [0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e],
  '6': [0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e],
  '7': [0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
  '8': [0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e],
  '9': [0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c],
  A: [0x0e, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11],
  B: [0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e],
  C: [0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e],
  D: [0x1c, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1c],
  E: [0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f],
  F: [0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x10],
  G: [0x0e, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0f],
  H: [0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11],
  I: [0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e],
  J: [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c],
  K: [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11],
  L: [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f],
  M: [0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11],
  N: [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
  O: [0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e],
  P: [0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10],
  Q: [0x0e, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0d],
  R: [0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11],
  S: [0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e],
  T: [0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
  U: [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e],
  V: [0x11, 0x11, 0x11, 0x11, 0x11, 0x0a, 0x04],
  W: [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a],
  X: [0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11],
  Y: [0x11, 0x11, 0x11, 0x0a, 0x04, 0x04, 0x04],
  Z: [0x1f, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f],
  '.': [0, 0, 0, 0, 0, 0x0c, 0x0c],
  ',': [0, 0, 0, 0, 0x0c, 0x04, 0x08],
  '-': [0, 0, 0, 0x1f, 0, 0, 0],
  _: [0, 0, 0, 0, 0, 0, 0x1f],
  '/': [0, 0x01, 0x02, 0x04, 0x08, 0x10, 0],
  '(': [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
  ')': [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08],
  ':': [0, 0x0c, 0x0c, 0, 0x0c, 0x0c, 0],
  '=': [0, 0, 0x1f, 0, 0x1f, 0, 0],
  '+': [0, 0x04, 0x04, 0x1f, 0x04, 0x04, 0],
  '%': [0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03],
  '×': [0, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0],
  '÷': [0, 0x04, 0, 0x1f, 0, 0x04, 0],
  '@': [0x0e, 0x11, 0x17, 0x15, 0x17, 0x10, 0x0f],
  '?': [0x0e, 0x11, 0x01, 0x02, 0x04, 0, 0x04],
};

const GLYPH_W = 5;
const GLYPH_H = 7;

/** An RGBA image, opaque, drawn on with integer coordinates (0,0 top left); off-image pixels are dropped. */
export class Raster {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;

  constructor(width: number, height: number, background: Rgb = WHITE) {
    this.width = width;
    this.height = height;
    this.pixels = new Uint8Array(width * height * 4);
    this.fillRect(0, 0, width, height, background);
  }

  set(x: number, y: number, c: Rgb): void {
    const [xi, yi] = [Math.round(x), Math.round(y)];
    if (xi < 0 || yi < 0 || xi >= this.width || yi >= this.height) return;
    const o = (yi * this.width + xi) * 4;
    this.pixels[o] = c[0];
    this.pixels[o + 1] = c[1];
    this.pixels[o + 2] = c[2];
    this.pixels[o + 3] = 255;
  }

  get(x: number, y: number): [number, number, number, number] {
    const o = (y * this.width + x) * 4;
    const p = this.pixels;
    return [p[o] ?? 0, p[o + 1] ?? 0, p[o + 2] ?? 0, p[o + 3] ?? 0];
  }

  fillRect(x: number, y: number, w: number, h: number, c: Rgb): void {
    for (let j = Math.round(y); j < Math.round(y + h); j++)
      for (let i = Math.round(x); i < Math.round(x + w); i++) this.set(i, j, c);
  }

  /** A straight line `thickness` pixels wide (a square brush along Bresenham's path). */
  line(x0: number, y0: number, x1: number, y1: number, c: Rgb, thickness = 1): void {
    let [x, y] = [Math.round(x0), Math.round(y0)];
    const [xe, ye] = [Math.round(x1), Math.round(y1)];
    const dx = Math.abs(xe - x);
    const dy = -Math.abs(ye - y);
    const sx = x < xe ? 1 : -1;
    const sy = y < ye ? 1 : -1;
    const half = Math.floor((thickness - 1) / 2);
    let err = dx + dy;
    for (;;) {
      this.fillRect(x - half, y - half, thickness, thickness, c);
      if (x === xe && y === ye) return;
      const e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y += sy;
      }
    }
  }

  /** Text with its top left at (x, y), each glyph pixel a scale × scale square. Returns the width drawn. */
  text(x: number, y: number, s: string, c: Rgb, scale = 1): number {
    let cx = x;
    for (const ch of s) {
      const rows = GLYPHS[ch] ?? GLYPHS[ch.toUpperCase()] ?? (GLYPHS['?'] as readonly number[]);
      rows.forEach((bits, row) => {
        for (let col = 0; col < GLYPH_W; col++)
          if (bits & (1 << (GLYPH_W - 1 - col)))
            this.fillRect(cx + col * scale, y + row * scale, scale, scale, c);
      });
      cx += (GLYPH_W + 1) * scale;
    }
    return cx - x;
  }
}

/** The width a text takes at a scale (6 columns per character: 5 and a space). */
export const textWidth = (s: string, scale = 1): number => [...s].length * (GLYPH_W + 1) * scale;

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The raster as a PNG: 8-bit RGBA, no interlace, every scanline with filter type 0 (None). */
export function encodePng(r: Raster): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(r.width, 0);
  ihdr.writeUInt32BE(r.height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  ihdr[10] = 0; // deflate
  ihdr[11] = 0; // adaptive filtering
  ihdr[12] = 0; // no interlace
  const stride = r.width * 4;
  const raw = Buffer.alloc((stride + 1) * r.height);
  for (let y = 0; y < r.height; y++) {
    raw[y * (stride + 1)] = 0;
    raw.set(r.pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/** Round tick values covering [min, max], about `count` of them, at steps of 1, 2 or 5 × 10^k. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const out: number[] = [];
  for (let v = Math.floor(min / step) * step; v <= max + step * 1e-9; v += step)
    out.push(Number(v.toPrecision(12)));
  if ((out.at(-1) ?? min) < max) out.push(Number(((out.at(-1) ?? min) + step).toPrecision(12)));
  return out;
}

/** A tick label: integers as they are, small steps with the decimals they need. */
export function tickLabel(v: number, step: number): string {
  const decimals = step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step)));
  return v.toFixed(decimals);
}

export interface Series {
  label: string;
  points: ReadonlyArray<{ x: number; y: number }>;
}

export interface Panel {
  title: string;
  xLabel: string;
  series: readonly Series[];
}

const SCALE = 2;
const CHAR_H = GLYPH_H * SCALE;
const MARGIN = { left: 90, right: 40, top: 44, bottom: 60 };

/** One panel into the raster's rectangle (ox, oy, w, h): axes from 0, grid, ticks, lines with markers. */
function drawPanel(r: Raster, p: Panel, ox: number, oy: number, w: number, h: number): void {
  const points = p.series
    .flatMap((s) => s.points)
    .filter((q) => Number.isFinite(q.x) && Number.isFinite(q.y));
  const xs = niceTicks(0, Math.max(1, ...points.map((q) => q.x)));
  const ys = niceTicks(0, Math.max(1e-9, ...points.map((q) => q.y)));
  const [x0, x1] = [ox + MARGIN.left, ox + w - MARGIN.right];
  const [y0, y1] = [oy + h - MARGIN.bottom, oy + MARGIN.top];
  const xMax = xs.at(-1) ?? 1;
  const yMax = ys.at(-1) ?? 1;
  const px = (x: number) => x0 + ((x1 - x0) * x) / xMax;
  const py = (y: number) => y0 - ((y0 - y1) * y) / yMax;
  r.text(ox + MARGIN.left, oy + 12, p.title, BLACK, SCALE);
  const xStep = (xs[1] ?? xMax) - (xs[0] ?? 0);
  const yStep = (ys[1] ?? yMax) - (ys[0] ?? 0);
  for (const v of ys) {
    r.line(x0, py(v), x1, py(v), GRID);
    const label = tickLabel(v, yStep);
    r.text(x0 - 8 - textWidth(label, SCALE), py(v) - CHAR_H / 2, label, BLACK, SCALE);
  }
  for (const v of xs) {
    r.line(px(v), y0, px(v), y1, GRID);
    const label = tickLabel(v, xStep);
    r.text(px(v) - textWidth(label, SCALE) / 2, y0 + 8, label, BLACK, SCALE);
  }
  r.line(x0, y0, x1, y0, BLACK);
  r.line(x0, y0, x0, y1, BLACK);
  r.text((x0 + x1) / 2 - textWidth(p.xLabel, SCALE) / 2, y0 + 12 + CHAR_H, p.xLabel, BLACK, SCALE);
  p.series.forEach((s, i) => {
    const c = PALETTE[i % PALETTE.length] as Rgb;
    const pts = s.points.filter((q) => Number.isFinite(q.x) && Number.isFinite(q.y));
    for (let k = 1; k < pts.length; k++) {
      const [a, b] = [pts[k - 1] as { x: number; y: number }, pts[k] as { x: number; y: number }];
      r.line(px(a.x), py(a.y), px(b.x), py(b.y), c, 3);
    }
    for (const q of pts) r.fillRect(px(q.x) - 3, py(q.y) - 3, 7, 7, c);
  });
}

/** The legend: one coloured swatch and label per series, in rows across the bottom strip. */
function drawLegend(r: Raster, labels: readonly string[], y: number): void {
  let x = MARGIN.left;
  labels.forEach((label, i) => {
    const w = 28 + textWidth(label, SCALE) + 24;
    if (x + w > r.width) {
      x = MARGIN.left;
      y += CHAR_H + 10;
    }
    const c = PALETTE[i % PALETTE.length] as Rgb;
    r.fillRect(x, y + CHAR_H / 2 - 2, 20, 5, c);
    r.text(x + 28, y, label, BLACK, SCALE);
    x += w;
  });
}

/** Panels side by side with one legend below (the series labels of the first panel, same order in all). */
export function renderChart(
  panels: readonly Panel[],
  opts: { panelWidth?: number; height?: number } = {},
): Raster {
  const pw = opts.panelWidth ?? 640;
  const plotH = (opts.height ?? 560) - 80;
  const r = new Raster(pw * panels.length, plotH + 80);
  panels.forEach((p, i) => {
    drawPanel(r, p, i * pw, 0, pw, plotH);
  });
  drawLegend(r, panels[0]?.series.map((s) => s.label) ?? [], plotH + 10);
  return r;
}
