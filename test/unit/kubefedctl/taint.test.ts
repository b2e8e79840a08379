import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Taint } from '../../../src/api/core/v1beta1/kubefedcluster.ts';
import { cordonTaints, UNSCHEDULABLE_TAINT } from '../../../src/kubefedctl/cordon.ts';
import { CommandError } from '../../../src/kubefedctl/errors.ts';
import { parseTaintArgs, parseTaintSpecs, reorganizeTaints } from '../../../src/kubefedctl/taint.ts';

const NOW = '2026-12-01T10:00:00Z';
const CLI = fileURLToPath(new URL('../../../src/cli/kubefedctl.ts', import.meta.url));
const fails = (fn: () => unknown, message: string) =>
  assert.throws(fn, (e: unknown) => e instanceof CommandError && e.message === message);

describe('kubefedctl taint: arguments (kubectl parseTaints)', () => {
  test('adds and removes, NoExecute stamped with timeAdded as kubectl does', () => {
    assert.deepEqual(
      parseTaintSpecs(
        ['dedicated=special-user:NoSchedule', 'gpu:NoExecute', 'old-', 'team:PreferNoSchedule-'],
        NOW,
      ),
      {
        add: [
          { key: 'dedicated', value: 'special-user', effect: 'NoSchedule' },
          { key: 'gpu', effect: 'NoExecute', timeAdded: NOW },
        ],
        remove: [{ key: 'old' }, { key: 'team', effect: 'PreferNoSchedule' }],
      },
    );
  });
  test('malformed specs in kubectl wording', () => {
    fails(() => parseTaintSpecs(['dedicated=x'], NOW), 'unknown taint spec: dedicated=x');
    fails(() => parseTaintSpecs(['a:b:c'], NOW), 'unknown taint spec: a:b:c');
    fails(
      () => parseTaintSpecs(['a:Sometimes'], NOW),
      'invalid taint effect: Sometimes, unsupported taint effect',
    );
    assert.throws(
      () => parseTaintSpecs(['bad key:NoSchedule'], NOW),
      /^CommandError: invalid taint spec: bad key:NoSchedule, /,
    );
    fails(
      () => parseTaintSpecs(['a=1:NoSchedule', 'a=2:NoSchedule'], NOW),
      'duplicated taints with the same key and effect: a=2:NoSchedule',
    );
    fails(
      () => parseTaintSpecs(['a=1:NoSchedule', 'a-'], NOW),
      'can not both modify and remove the following taint(s) in the same command: a=1:NoSchedule',
    );
  });
  test('RESOURCE NAME SPEC...', () => {
    assert.deepEqual(parseTaintArgs(['clusters', 'm1', 'a:NoSchedule']), {
      name: 'm1',
      specs: ['a:NoSchedule'],
    });
    assert.deepEqual(parseTaintArgs(['kfc', 'm1', 'a-']).name, 'm1');
    fails(
      () => parseTaintArgs(['nodes', 'n1', 'a:NoSchedule']),
      'the type "nodes" cannot be tainted: only clusters (KubeFedClusters) can',
    );
    fails(() => parseTaintArgs(['clusters', 'm1']), 'at least one taint update is required');
    fails(
      () => parseTaintArgs(['clusters']),
      'at least one resource name must be specified since --all is not supported',
    );
  });
});

describe('kubefedctl taint: reorganizeTaints', () => {
  const a: Taint = { key: 'a', value: '1', effect: 'NoSchedule' };
  const b: Taint = { key: 'b', effect: 'NoExecute', timeAdded: NOW };
  test('new taints first, then the old ones; tainted', () => {
    assert.deepEqual(reorganizeTaints('m1', [a], { add: [b], remove: [] }, false), {
      operation: 'tainted',
      taints: [b, a],
    });
  });
  test('the same key and effect again needs --overwrite, which replaces the value', () => {
    const a2 = { ...a, value: '2' };
    fails(
      () => reorganizeTaints('m1', [a], { add: [a2], remove: [] }, false),
      'cluster m1 already has a taint(s) with same effect(s) and --overwrite is false',
    );
    assert.deepEqual(reorganizeTaints('m1', [a, b], { add: [a2], remove: [] }, true), {
      operation: 'modified',
      taints: [a2, b],
    });
  });
  test('removal by key (every effect) or key and effect; a missing one is an error', () => {
    const aExec: Taint = { key: 'a', effect: 'NoExecute' };
    assert.deepEqual(reorganizeTaints('m1', [a, aExec, b], { add: [], remove: [{ key: 'a' }] }, false), {
      operation: 'untainted',
      taints: [b],
    });
    assert.deepEqual(
      reorganizeTaints('m1', [a, aExec], { add: [], remove: [{ key: 'a', effect: 'NoExecute' }] }, false)
        .taints,
      [a],
    );
    fails(
      () => reorganizeTaints('m1', [a], { add: [], remove: [{ key: 'zz' }] }, false),
      'taint "zz" not found',
    );
  });
  test('adding and removing at once is modified', () => {
    assert.equal(
      reorganizeTaints('m1', [a], { add: [b], remove: [{ key: 'a' }] }, false).operation,
      'modified',
    );
  });
});

describe('kubefedctl cordon', () => {
  const user: Taint = { key: 'team', effect: 'NoSchedule' };
  test('adds the unschedulable taint once, removes only it', () => {
    assert.deepEqual(cordonTaints([user], true), [user, UNSCHEDULABLE_TAINT]);
    assert.equal(cordonTaints([user, UNSCHEDULABLE_TAINT], true), undefined);
    assert.deepEqual(cordonTaints([UNSCHEDULABLE_TAINT, user], false), [user]);
    assert.equal(cordonTaints([user], false), undefined);
    assert.equal(cordonTaints(undefined, false), undefined);
    assert.equal(UNSCHEDULABLE_TAINT.key, 'cluster.karmada.io/unschedulable');
  });
});

describe('kubefedctl taint (CLI)', () => {
  test('a wrong argument exits 1 with one readable line, before any kubeconfig is read', () => {
    const r = spawnSync(process.execPath, [CLI, 'taint', 'clusters', 'm1', 'gpu:Sometimes'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, KUBECONFIG: '/nonexistent/kubeconfig' },
    });
    assert.equal(r.status, 1);
    assert.equal(r.stderr, 'Error: invalid taint effect: Sometimes, unsupported taint effect\n');
    assert.equal(r.stdout, '');
  });
});
