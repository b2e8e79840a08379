import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crc32, inflateSync } from 'node:zlib';
import {
  BLACK,
  encodePng,
  niceTicks,
  PALETTE,
  PNG_SIGNATURE,
  Raster,
  renderChart,
  textWidth,
  tickLabel,
  WHITE,
} from '../../../bench/plot.ts';

interface Chunk {
  type: string;
  data: Buffer;
  crcOk: boolean;
}

/** Splits a PNG into its chunks, checking each CRC (over type and data, as the PNG spec defines it). */
function chunks(png: Buffer): Chunk[] {
  const out: Chunk[] = [];
  let o = PNG_SIGNATURE.length;
  while (o < png.length) {
    const len = png.readUInt32BE(o);
    const typeAndData = png.subarray(o + 4, o + 8 + len);
    const crc = png.readUInt32BE(o + 8 + len);
    out.push({
      type: typeAndData.subarray(0, 4).toString('latin1'),
      data: typeAndData.subarray(4),
      crcOk: crc32(typeAndData) >>> 0 === crc,
    });
    o += 12 + len;
  }
  return out;
}

/** The RGBA of one pixel of a filter-0 RGBA PNG as encodePng writes it. */
function pixelOf(png: Buffer, x: number, y: number): number[] {
  const cs = chunks(png);
  const ihdr = cs.find((c) => c.type === 'IHDR')?.data as Buffer;
  const width = ihdr.readUInt32BE(0);
  const raw = inflateSync(Buffer.concat(cs.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  const stride = width * 4 + 1;
  assert.equal(raw[y * stride], 0, 'filter type None');
  const o = y * stride + 1 + x * 4;
  return [...raw.subarray(o, o + 4)];
}

describe('bench plot: PNG encoder', () => {
  const r = new Raster(7, 5);
  r.set(3, 2, [10, 20, 30]);
  const png = encodePng(r);

  test('starts with the PNG signature and has IHDR, IDAT, IEND in order with valid CRCs', () => {
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const cs = chunks(png);
    assert.deepEqual(
      cs.map((c) => c.type),
      ['IHDR', 'IDAT', 'IEND'],
    );
    for (const c of cs) assert.ok(c.crcOk, `${c.type} CRC`);
  });

  test('IHDR carries the size, 8-bit RGBA, no interlace', () => {
    const ihdr = chunks(png)[0]?.data as Buffer;
    assert.equal(ihdr.length, 13);
    assert.equal(ihdr.readUInt32BE(0), 7);
    assert.equal(ihdr.readUInt32BE(4), 5);
    assert.deepEqual([...ihdr.subarray(8)], [8, 6, 0, 0, 0]);
  });

  test('a pixel set in the raster is that pixel in the decoded image; the rest is the background', () => {
    assert.deepEqual(pixelOf(png, 3, 2), [10, 20, 30, 255]);
    assert.deepEqual(pixelOf(png, 0, 0), [...WHITE, 255]);
    assert.deepEqual(pixelOf(png, 6, 4), [...WHITE, 255]);
  });
});

describe('bench plot: drawing', () => {
  test('a line covers both ends and the pixels between; off-image points are dropped', () => {
    const r = new Raster(10, 10);
    r.line(1, 1, 8, 1, BLACK);
    for (let x = 1; x <= 8; x++) assert.deepEqual(r.get(x, 1), [0, 0, 0, 255], `x=${x}`);
    assert.deepEqual(r.get(9, 1), [255, 255, 255, 255]);
    r.line(-5, -5, 20, 20, BLACK);
    assert.deepEqual(r.get(5, 5), [0, 0, 0, 255]);
  });

  test('text draws the glyph: "1" has its stem in column 2 and its base across columns 1..3', () => {
    const r = new Raster(6, 7);
    assert.equal(r.text(0, 0, '1', BLACK), 6);
    assert.deepEqual(r.get(2, 3), [0, 0, 0, 255]);
    assert.deepEqual(r.get(0, 3), [255, 255, 255, 255]);
    for (const x of [1, 2, 3]) assert.deepEqual(r.get(x, 6), [0, 0, 0, 255]);
    assert.equal(textWidth('abc', 2), 36);
  });

  test('"@" has a glyph of its own (the baseline label kubefed-ts@<commit>), not the "?" of an unknown one', () => {
    const at = new Raster(6, 7);
    at.text(0, 0, '@', BLACK);
    const unknown = new Raster(6, 7);
    unknown.text(0, 0, '?', BLACK);
    assert.deepEqual(at.get(0, 2), [0, 0, 0, 255]);
    assert.deepEqual(unknown.get(0, 2), [255, 255, 255, 255]);
  });

  test('niceTicks covers the range in steps of 1, 2 or 5 × 10^k; labels use the decimals of the step', () => {
    assert.deepEqual(niceTicks(0, 10_000), [0, 2000, 4000, 6000, 8000, 10_000]);
    assert.deepEqual(niceTicks(0, 0.37), [0, 0.1, 0.2, 0.3, 0.4]);
    assert.deepEqual(niceTicks(0, 7), [0, 2, 4, 6, 8]);
    assert.deepEqual(niceTicks(5, 5), [5]);
    assert.equal(tickLabel(0.2, 0.1), '0.2');
    assert.equal(tickLabel(4000, 2000), '4000');
  });

  test('a chart draws each series in its palette colour, at the data point', () => {
    const r = renderChart(
      [
        {
          title: 'cost',
          xLabel: 'objects',
          series: [
            {
              label: 'a',
              points: [
                { x: 0, y: 0 },
                { x: 10, y: 10 },
              ],
            },
            { label: 'b', points: [{ x: 10, y: 5 }] },
          ],
        },
      ],
      { panelWidth: 400, height: 300 },
    );
    const colours = new Set<string>();
    for (let y = 0; y < r.height; y++)
      for (let x = 0; x < r.width; x++) colours.add(r.get(x, y).slice(0, 3).join(','));
    assert.ok(colours.has((PALETTE[0] ?? []).join(',')), 'series a drawn');
    assert.ok(colours.has((PALETTE[1] ?? []).join(',')), 'series b drawn');
    const png = encodePng(r);
    assert.ok(chunks(png).every((c) => c.crcOk));
  });
});
