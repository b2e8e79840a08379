// A scaled-down run of the benchmark's scale mode (bench/scale.ts, docs/benchmarks.md) so that it cannot rot:
// both front ends of kubefed-ts, phases of 1 and 2 bare members, steps of 3 and 6 objects, then a kill -9 restart
// and a leader failover with a short lease, and the plot. It checks correctness — every row present, every
// object arrived, the writes counted, the PNG valid — never speed.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { crc32 } from 'node:zlib';
import { runScaleCommand } from '../../bench/scale-cli.ts';
import type { ScaleReport } from '../../bench/scale-types.ts';

/** Every chunk of a PNG with whether its CRC (over type and data) holds. */
function pngChunks(png: Buffer): Array<{ type: string; data: Buffer; crcOk: boolean }> {
  const out = [];
  for (let o = 8; o < png.length; ) {
    const len = png.readUInt32BE(o);
    const typeAndData = png.subarray(o + 4, o + 8 + len);
    out.push({
      type: typeAndData.subarray(0, 4).toString('latin1'),
      data: typeAndData.subarray(4),
      crcOk: crc32(typeAndData) >>> 0 === png.readUInt32BE(o + 8 + len),
    });
    o += 12 + len;
  }
  return out;
}

describe('benchmark scale mode smoke run (1 and 2 members, 3 and 6 objects, restart, failover, plot)', () => {
  test('every step and recovery is reported, the writes counted, the plot a valid PNG', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-scale-smoke-'));
    const plot = join(dir, 'scale.png');
    const json = join(dir, 'scale.json');
    const lines: string[] = [];
    const log = (m: string) => lines.push(`${new Date().toISOString().slice(11, 23)} ${m}`);
    let stdout = '';
    const write = process.stdout.write.bind(process.stdout);
    try {
      process.stdout.write = ((chunk: string | Uint8Array) => {
        stdout += String(chunk);
        return true;
      }) as typeof process.stdout.write;
      try {
        await runScaleCommand(
          {
            members: [1, 2],
            objects: [3, 6],
            kind: 'configmaps',
            systems: ['kubefed-ts', 'kubefed-ts-native'],
            restart: true,
            failover: true,
            updateSamples: 2,
            // As ha.test.ts: a dead leader's lease expires in seconds.
            leaderElect: { leaseDuration: '4s', renewDeadline: '3s', retryPeriod: '1s' },
            settleIntervalMs: 1000,
            quietWindowMs: 1000,
            timeoutSeconds: 180,
            log,
          },
          { json, plot, command: 'npm run bench -- --scale --scale-members 1,2 --scale-objects 3,6' },
        );
      } finally {
        process.stdout.write = write;
      }
    } catch (e) {
      process.stderr.write(`${lines.join('\n')}\n`);
      throw e;
    }
    try {
      const report = JSON.parse(readFileSync(json, 'utf8')) as ScaleReport;
      assert.deepEqual(
        report.steps.map((s) => [s.system, s.members, s.objects, s.added]),
        [
          ['kubefed-ts', 1, 3, 3],
          ['kubefed-ts', 1, 6, 3],
          ['kubefed-ts', 2, 3, 3],
          ['kubefed-ts', 2, 6, 3],
          ['kubefed-ts-native', 1, 3, 3],
          ['kubefed-ts-native', 1, 6, 3],
          ['kubefed-ts-native', 2, 3, 3],
          ['kubefed-ts-native', 2, 6, 3],
        ],
      );
      for (const s of report.steps) {
        const at = `${s.system} ${s.members}×${s.objects}`;
        assert.ok(s.objectsPerSecond > 0, `${at}: rate`);
        // The user's create of each object at least, by the host apiserver; each member copy's create.
        assert.ok(s.hostWritesPerObject >= 1, `${at}: host writes per object ${s.hostWritesPerObject}`);
        assert.ok(
          s.memberWritesPerMemberObject >= 1,
          `${at}: member writes ${JSON.stringify(s.memberWrites)}`,
        );
        assert.ok((s.memberWrites['POST configmaps'] ?? 0) >= s.added * s.members, `${at}: member creates`);
        assert.ok(s.cpuMsPerMemberObject > 0, `${at}: CPU`);
        assert.equal(s.update.samples, 2, `${at}: update samples`);
        assert.ok(s.rssBytes > 0 && (s.heapBytes ?? 0) > 0, `${at}: memory`);
        // Read through the controller's inspector after a full collection: a measured figure, below the RSS.
        assert.ok(
          (s.liveHeapBytes ?? 0) > 0 && (s.liveHeapBytes ?? 0) < s.rssBytes,
          `${at}: live heap ${s.liveHeapBytes}`,
        );
      }
      assert.deepEqual(
        report.recoveries.map((r) => [r.system, r.kind, r.members, r.objects]),
        [
          ['kubefed-ts', 'restart', 2, 7],
          ['kubefed-ts', 'failover', 2, 7],
          ['kubefed-ts-native', 'restart', 2, 7],
          ['kubefed-ts-native', 'failover', 2, 7],
        ],
      );
      for (const r of report.recoveries) {
        const at = `${r.system} ${r.kind}`;
        assert.ok(r.readySeconds > 0, `${at}: ready`);
        assert.ok(
          r.idleSeconds !== undefined && r.idleSeconds >= r.readySeconds - 1,
          `${at}: idle ${r.idleSeconds}`,
        );
        if (r.kind === 'failover') assert.ok((r.leaseChangedSeconds ?? 0) > 0, `${at}: lease moved`);
        assert.equal(typeof r.hostWrites, 'object', `${at}: host writes counted`);
        assert.equal(typeof r.memberWrites, 'object', `${at}: member writes counted`);
        // Either front end: a restarted or new leader finds every copy current and writes nothing, not even a
        // refused write such as a POST of a member namespace that is there (409); leader election, cluster
        // health and the bench's own webhook registration are left out.
        assert.deepEqual(r.hostWrites, {}, `${at}: host writes`);
        assert.deepEqual(r.memberWrites, {}, `${at}: member writes`);
      }

      for (const row of [
        '| kubefed-ts | 1 | 3 |',
        '| kubefed-ts | 2 | 6 |',
        '| kubefed-ts native | 1 | 6 |',
        '| kubefed-ts native | 2 | 3 |',
        '| kubefed-ts | restart',
        '| kubefed-ts | failover',
        '| kubefed-ts native | restart',
        '| kubefed-ts native | failover',
      ])
        assert.ok(
          stdout.split('\n').some((l) => l.startsWith(row)),
          `row ${row}:\n${stdout}`,
        );
      assert.match(stdout, /^- kubefed-ts: flatness \(.*\) = \d+\.\d\d$/m);
      assert.match(stdout, /^- kubefed-ts native, failover: host .*; members .*$/m);

      for (const l of stdout.split('\n').filter((x) => /^- .*, (restart|failover): /.test(x)))
        t.diagnostic(l);
      const png = readFileSync(plot);
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const chunks = pngChunks(png);
      assert.deepEqual(
        chunks.map((c) => c.type),
        ['IHDR', 'IDAT', 'IEND'],
      );
      assert.ok(
        chunks.every((c) => c.crcOk),
        'every CRC holds',
      );
      const ihdr = chunks[0]?.data as Buffer;
      // Three panels of 640 pixels: CPU per member object, rate, and the live heap.
      assert.deepEqual([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4)], [1920, 560]);
    } catch (e) {
      process.stderr.write(`${lines.join('\n')}\n${stdout}\n`);
      throw e;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
