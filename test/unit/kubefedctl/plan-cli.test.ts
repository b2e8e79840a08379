// Runs the real kubefedctl binary for `plan`: flags, stdin, output streams and exit codes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../src/cli/kubefedctl.ts', import.meta.url));

const RSP = `apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata:
  name: web
  namespace: demo
spec:
  targetKind: FederatedDeployment
  totalReplicas: 15
  clusters:
    "*": {weight: 2, maxReplicas: 12}
    ap-northeast: {minReplicas: 1, maxReplicas: 3, weight: 1}
`;

function kubefedctl(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', input, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('kubefedctl plan (CLI)', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubefedctl-plan-'));
    file = join(dir, 'rsp.yaml');
    writeFileSync(file, RSP);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('-o json prints exactly one JSON object with every candidate cluster', () => {
    const r = kubefedctl(['plan', '-f', file, '--clusters', 'ap-northeast,us-east,us-west', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.deepEqual(JSON.parse(r.stdout), {
      plan: { 'ap-northeast': 3, 'us-east': 6, 'us-west': 6 },
      overflow: {},
    });
  });

  test('overflow is reported with capacity (rebalance on)', () => {
    writeFileSync(
      join(dir, 'even.yaml'),
      'kind: ReplicaSchedulingPreference\nmetadata: {name: x, namespace: y}\n' +
        'spec: {targetKind: FederatedReplicaSet, totalReplicas: 50, rebalance: true}\n',
    );
    const r = kubefedctl([
      'plan',
      '-f',
      join(dir, 'even.yaml'),
      '--clusters',
      'A,B,C',
      '--capacity',
      'C=10',
      '--key',
      '',
      '-o',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { plan: { A: 20, B: 20, C: 10 }, overflow: { C: 7 } });
  });

  test('the table is the default; -f - reads stdin', () => {
    const r = kubefedctl(
      ['plan', '-f', '-', '--clusters', 'ap-northeast', '--clusters', 'us-east,us-west'],
      RSP,
    );
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(
      lines[0]!,
      /^CLUSTER\s+WEIGHT\s+MIN\s+MAX\s+CURRENT\s+CAPACITY\s+PLANNED\s+OVERFLOW\s+REASON$/,
    );
    assert.equal(lines.length, 5);
    assert.match(lines[4]!, /^TOTAL\s+15\s+0\s+15 of 15 replicas planned$/);
  });

  test('--current keeps running replicas (rebalance off)', () => {
    const r = kubefedctl([
      'plan',
      '-f',
      file,
      '--clusters',
      'ap-northeast,us-east,us-west',
      '--current',
      'us-east=9',
      '-o',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      plan: { 'ap-northeast': 3, 'us-east': 9, 'us-west': 3 },
      overflow: {},
    });
  });

  const failures: Array<[string, string[], RegExp, string?]> = [
    [
      'an invalid RSP',
      ['plan', '-f', '-', '--clusters', 'A'],
      /^Error: ReplicaSchedulingPreference "web" is invalid: \[spec\.targetKind: Unsupported value: "Foo".*spec\.clusters\[ap-northeast\]: Invalid value: minReplicas 5 > maxReplicas 3\]\n$/,
      RSP.replace('FederatedDeployment', 'Foo').replace('minReplicas: 1', 'minReplicas: 5'),
    ],
    [
      'bad --current syntax',
      ['plan', '-f', '-', '--clusters', 'A', '--current', 'A:3'],
      /^Error: --current: invalid entry "A:3": want CLUSTER=N\n$/,
      RSP,
    ],
    [
      'bad --capacity count',
      ['plan', '-f', '-', '--clusters', 'A', '--capacity', 'A=-2'],
      /^Error: --capacity: invalid count "-2"/,
      RSP,
    ],
    ['missing --clusters', ['plan', '-f', '-'], /^Error: --clusters is required\n$/, RSP],
    ['missing -f', ['plan', '--clusters', 'A'], /^Error: -f\/--filename is required\n$/],
    [
      'bad -o',
      ['plan', '-f', '-', '--clusters', 'A', '-o', 'yaml'],
      /^Error: invalid output format "yaml"/,
      RSP,
    ],
    [
      'a missing file',
      ['plan', '-f', '/nonexistent.yaml', '--clusters', 'A'],
      /^Error: Failed to read file "\/nonexistent.yaml": .*\n$/,
    ],
  ];
  for (const [name, args, stderr, input] of failures) {
    test(`${name}: one error line, exit 1, nothing on stdout`, () => {
      const r = kubefedctl(args, input);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, stderr);
      assert.equal(r.stderr.split('\n').length, 2, r.stderr);
    });
  }
});
