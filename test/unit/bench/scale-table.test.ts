import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  byVerb,
  flatness,
  per1kObjects,
  renderScaleReport,
  scalePanels,
} from '../../../bench/scale-table.ts';
import type { ScaleReport, ScaleStep } from '../../../bench/scale-types.ts';

const MiB = 2 ** 20;

function step(
  members: number,
  objects: number,
  cpuMs: number,
  rssMiB: number,
  system = 'kubefed-ts',
): ScaleStep {
  return {
    system: system as ScaleStep['system'],
    label: system,
    frontEnd: 'federated',
    members,
    objects,
    added: objects,
    seconds: 1,
    objectsPerSecond: 100 * members,
    cpu: { controller: 1 },
    cpuMsPerMemberObject: cpuMs,
    hostWrites: {
      'POST types.kubefed.io/federatedconfigmaps': objects,
      'PUT types.kubefed.io/federatedconfigmaps/status': objects,
    },
    hostWritesPerObject: 2,
    memberWrites: { 'POST configmaps': objects * members },
    memberWritesPerMemberObject: 1,
    update: { p50Ms: 12, p99Ms: 40, samples: 3 },
    rssBytes: rssMiB * MiB,
    heapBytes: (rssMiB / 2) * MiB,
    liveHeapBytes: (rssMiB / 4) * MiB,
  };
}

const steps = [
  step(3, 1000, 2, 100),
  step(3, 5000, 2.2, 140),
  step(10, 1000, 2.5, 120),
  step(10, 10_000, 3, 300),
];

const report: ScaleReport = {
  options: {
    members: [3, 10],
    objects: [1000, 5000, 10_000],
    kind: 'configmaps',
    systems: ['kubefed-ts'],
    restart: true,
    failover: true,
    updateSamples: 3,
    timeoutSeconds: 60,
  },
  machine: {
    cpus: 2,
    cpuModel: 'test',
    memoryGiB: 1,
    node: 'v24',
    go: 'n/a',
    kubernetes: 'v1',
    loadBefore: [0, 0, 0],
    loadAfter: [1, 1, 1],
  },
  steps,
  recoveries: [
    {
      kind: 'restart',
      system: 'kubefed-ts',
      label: 'kubefed-ts',
      members: 10,
      objects: 10_000,
      readySeconds: 16.04,
      idleSeconds: 30.2,
      hostWrites: {},
      memberWrites: { 'PUT configmaps': 2 },
    },
    {
      kind: 'failover',
      system: 'kubefed-ts',
      label: 'kubefed-ts',
      members: 10,
      objects: 10_000,
      leaseChangedSeconds: 5.5,
      readySeconds: 6,
      hostWrites: {},
      memberWrites: {},
    },
  ],
  wallSeconds: 100,
};

describe('bench scale table', () => {
  test('memory per 1,000 objects is the RSS slope from the previous step of the same phase', () => {
    assert.equal(per1kObjects(steps, steps[0] as ScaleStep), undefined);
    assert.equal(per1kObjects(steps, steps[1] as ScaleStep), (40 * MiB) / 4);
    assert.equal(per1kObjects(steps, steps[3] as ScaleStep), (180 * MiB) / 9);
  });

  test('the live heap per 1,000 objects is its own slope, and none where a step has no live heap', () => {
    const live = (x: ScaleStep) => x.liveHeapBytes;
    assert.equal(per1kObjects(steps, steps[1] as ScaleStep, live), (10 * MiB) / 4);
    const [first, second] = [step(3, 1000, 2, 100), { ...step(3, 2000, 2, 120), liveHeapBytes: undefined }];
    assert.equal(per1kObjects([first, second], second, live), undefined);
  });

  test('flatness is the cost at the most members and objects over the cost at the fewest', () => {
    assert.equal(flatness(steps, 'kubefed-ts'), 1.5);
    assert.equal(flatness(steps, 'kubefed'), undefined);
    assert.equal(flatness([step(3, 1000, 2, 1)], 'kubefed-ts'), 1);
  });

  test('byVerb lists the largest first, or none', () => {
    assert.equal(byVerb({ 'POST events': 1, 'PUT configmaps': 3 }), 'PUT configmaps 3, POST events 1');
    assert.equal(byVerb({}), 'none');
  });

  test('one row per step, the flatness line, and one row per recovery with its writes', () => {
    const md = renderScaleReport(report, 'npm run bench -- --scale');
    const rows = md.split('\n').filter((l) => l.startsWith('| kubefed-ts |'));
    assert.equal(rows.length, 6);
    assert.equal(
      rows[0],
      '| kubefed-ts | 3 | 1000 | 300 | 2.00 | 2.00 | 1.00 | 12 / 40 | 100 | 50 | 25 | – | – |',
    );
    assert.equal(
      rows[1],
      '| kubefed-ts | 3 | 5000 | 300 | 2.20 | 2.00 | 1.00 | 12 / 40 | 140 | 70 | 35 | 10.0 | 2.5 |',
    );
    assert.match(md, /^- kubefed-ts: flatness \(.* at 10 members × 10000 ÷ at 3 × 1000\) = 1\.50$/m);
    assert.match(
      rows[4] ?? '',
      /^\| kubefed-ts \| restart .* \| 10 × 10000 \| – \| 16\.0 \| 30\.2 \| 0 \| 2 \|$/,
    );
    assert.match(rows[5] ?? '', /^\| kubefed-ts \| failover .* \| 5\.5 \| 6\.0 \| not idle \| 0 \| 0 \|$/);
    assert.match(md, /^- kubefed-ts, restart: host none; members PUT configmaps 2$/m);
  });

  test('the plot has one line per system × members, points in N order', () => {
    const [cost, rate] = scalePanels(report);
    assert.deepEqual(
      cost?.series.map((s) => [s.label, s.points.map((p) => [p.x, p.y])]),
      [
        [
          'kubefed-ts, 3 members',
          [
            [1000, 2],
            [5000, 2.2],
          ],
        ],
        [
          'kubefed-ts, 10 members',
          [
            [1000, 2.5],
            [10_000, 3],
          ],
        ],
      ],
    );
    assert.deepEqual(
      rate?.series[1]?.points.map((p) => p.y),
      [1000, 1000],
    );
  });

  test('a third panel plots the live heap in MiB, only where it was measured', () => {
    const heap = scalePanels(report)[2];
    assert.equal(heap?.title, 'Live heap after a full GC, MiB');
    assert.deepEqual(
      heap?.series[0]?.points.map((p) => [p.x, p.y]),
      [
        [1000, 25],
        [5000, 35],
      ],
    );
    const without = { ...report, steps: report.steps.map((s) => ({ ...s, liveHeapBytes: undefined })) };
    assert.equal(scalePanels(without).length, 2);
  });
});
