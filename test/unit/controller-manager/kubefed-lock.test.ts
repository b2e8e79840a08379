import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  judgeKubeFedLock,
  kubefedRunningMessage,
  type LeaderElectionRecord,
  parseLeaderRecord,
} from '../../../src/controller-manager/kubefed-lock.ts';
import { klogLine, usingValidKubeFedConfig } from '../../../src/controller-manager/kubefed-startup-log.ts';

const NOW = Date.parse('2026-12-01T10:00:00Z');
// What client-go v0.22's ConfigMapLock writes: metav1.Time, second precision.
const record = (renewTime: string, extra: Partial<LeaderElectionRecord> = {}): LeaderElectionRecord => ({
  holderIdentity: 'kubefed-controller-manager-5d9c_6a1f',
  leaseDurationSeconds: 15,
  acquireTime: '2026-12-01T09:00:00Z',
  renewTime,
  leaderTransitions: 0,
  ...extra,
});

describe('judgeKubeFedLock', () => {
  test('no lock object or no leader record: not live', () => {
    assert.deepEqual(judgeKubeFedLock(undefined, NOW), { live: false, why: 'no-record' });
  });

  test('renewed within leaseDurationSeconds: live', () => {
    const v = judgeKubeFedLock(record('2026-12-01T09:59:51Z'), NOW);
    assert.deepEqual(v, { live: true, why: 'unexpired', renewedAgoMs: 9000, leaseMs: 15_000 });
  });

  test('exactly leaseDurationSeconds after renewTime the lease has expired (client-go: observed+lease After now)', () => {
    assert.equal(judgeKubeFedLock(record('2026-12-01T09:59:45Z'), NOW).live, false);
    assert.equal(judgeKubeFedLock(record('2026-12-01T09:59:46Z'), NOW).live, true);
  });

  test('a lock left behind by a stopped KubeFed blocks nothing', () => {
    assert.deepEqual(judgeKubeFedLock(record('2026-12-01T09:00:00Z'), NOW), {
      live: false,
      why: 'expired',
      expiredAgoMs: 3_585_000,
    });
  });

  test('the record’s own leaseDurationSeconds decides, not ours', () => {
    const r = record('2026-12-01T09:59:00Z', { leaseDurationSeconds: 120 });
    assert.equal(judgeKubeFedLock(r, NOW).live, true);
  });

  test('a released lock (empty holderIdentity) is not live even if just renewed', () => {
    assert.deepEqual(judgeKubeFedLock(record('2026-12-01T10:00:00Z', { holderIdentity: '' }), NOW), {
      live: false,
      why: 'released',
    });
  });

  test('renewTime in our future (the holder’s clock ahead) is live', () => {
    assert.equal(judgeKubeFedLock(record('2026-12-01T10:00:30Z'), NOW).live, true);
  });

  test('a renewal seen between two looks is live even when the clocks make it look expired', () => {
    const before = record('2026-12-01T09:00:00Z');
    const after = record('2026-12-01T09:00:05Z');
    assert.equal(judgeKubeFedLock(after, NOW).live, false);
    const v = judgeKubeFedLock(after, NOW, before);
    assert.equal(v.live, true);
    assert.equal(v.live && v.why, 'renewed-since-last-look');
    // A new holder is a change as well; an unchanged expired record is still expired.
    assert.equal(
      judgeKubeFedLock(record('2026-12-01T09:00:00Z', { holderIdentity: 'b' }), NOW, before).live,
      true,
    );
    assert.equal(judgeKubeFedLock(before, NOW, before).live, false);
  });

  test('missing or malformed times and durations never count as live', () => {
    assert.equal(judgeKubeFedLock({ holderIdentity: 'x' }, NOW).live, false);
    assert.equal(judgeKubeFedLock(record('yesterday'), NOW).live, false);
    assert.equal(
      judgeKubeFedLock(record('2026-12-01T09:59:59Z', { leaseDurationSeconds: -5 }), NOW).live,
      false,
    );
  });
});

describe('parseLeaderRecord', () => {
  test('client-go’s annotation JSON', () => {
    const json =
      '{"holderIdentity":"h_1","leaseDurationSeconds":15,"acquireTime":"2026-12-01T09:00:00Z","renewTime":"2026-12-01T09:59:55Z","leaderTransitions":2}';
    assert.deepEqual(parseLeaderRecord(json), {
      holderIdentity: 'h_1',
      leaseDurationSeconds: 15,
      acquireTime: '2026-12-01T09:00:00Z',
      renewTime: '2026-12-01T09:59:55Z',
      leaderTransitions: 2,
    });
  });
  test('missing, empty or not a record: undefined', () => {
    for (const a of [undefined, '', 'not json', '[]', 'null', '7'])
      assert.equal(parseLeaderRecord(a), undefined);
  });
});

test('the refusal is one line naming the lock, the holder and how to stop KubeFed', () => {
  const r = record('2026-12-01T09:59:57Z');
  const v = judgeKubeFedLock(r, NOW);
  assert.ok(v.live);
  const msg = kubefedRunningMessage({ kind: 'ConfigMap', namespace: 'kube-federation-system', record: r }, v);
  assert.ok(!msg.includes('\n'));
  assert.match(msg, /ConfigMap kube-federation-system\/kubefed-controller-manager/);
  assert.match(msg, /holder "kubefed-controller-manager-5d9c_6a1f", renewed 3s ago, lease 15s/);
  assert.match(
    msg,
    /kubectl -n kube-federation-system scale deployment kubefed-controller-manager --replicas=0/,
  );
});

describe('KubeFed start-up lines', () => {
  test('KubeFed’s exact wording', () => {
    assert.equal(
      usingValidKubeFedConfig('kube-federation-system', 'kubefed'),
      'Using valid KubeFedConfig "kube-federation-system/kubefed"',
    );
    assert.equal(usingValidKubeFedConfig(undefined, 'kubefed'), 'Using valid KubeFedConfig "kubefed"');
  });
  test('klog’s header', () => {
    assert.equal(
      klogLine('Starting cluster controller', new Date('2026-03-04T05:06:07.089Z'), 42, 'main.ts:1'),
      'I0304 05:06:07.089000      42 main.ts:1] Starting cluster controller\n',
    );
  });
});
