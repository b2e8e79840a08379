import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jitteredPeriodMs, renewedLease } from '../../../src/agent/lease-heartbeat.ts';
import { type AgentFlags, agentConfig, DEFAULT_HUB_KUBECONFIG } from '../../../src/agent/options.ts';

const defaults: AgentFlags = {
  hubKubeconfig: DEFAULT_HUB_KUBECONFIG,
  statusSyncInterval: '10s',
  leaseDuration: '60s',
  evictionGracePeriod: '60m',
  healthzAddr: ':8080',
  metricsAddr: ':9090',
};
const none = () => undefined;

describe('kubefed-agent flags', () => {
  test("OCM's defaults; the agent id defaults to the cluster name", () => {
    const c = agentConfig({ ...defaults, clusterName: 'cluster1' }, none);
    assert.equal(c.hubKubeconfig, '/spoke/hub-kubeconfig/kubeconfig');
    assert.equal(c.agentId, 'cluster1');
    assert.equal(c.statusSyncIntervalMs, 10_000);
    assert.equal(c.leaseDurationMs, 60_000);
    assert.equal(c.evictionGracePeriodMs, 3_600_000);
  });

  test('cluster and agent name from the files of the hub kubeconfig Secret', () => {
    const files: Record<string, string> = { 'cluster-name': 'c9', 'agent-name': 'agent-9' };
    const c = agentConfig(defaults, (f) => files[f]);
    assert.equal(c.clusterName, 'c9');
    assert.equal(c.agentId, 'agent-9');
    assert.equal(agentConfig({ ...defaults, clusterName: 'x', agentId: 'y' }, (f) => files[f]).agentId, 'y');
  });

  test('each bad flag is one readable line', () => {
    const bad: Array<[Partial<AgentFlags>, RegExp]> = [
      [{}, /^--cluster-name is required/],
      [
        { clusterName: 'Not_A_Namespace' },
        /^--cluster-name: "Not_A_Namespace" is not a valid namespace name/,
      ],
      [{ clusterName: 'c', leaseDuration: '10' }, /^--lease-duration: .*missing unit/],
      [{ clusterName: 'c', leaseDuration: '100ms' }, /^--lease-duration: must be at least 1s/],
      [{ clusterName: 'c', statusSyncInterval: 'soon' }, /^--status-sync-interval: /],
      [{ clusterName: 'c', evictionGracePeriod: '-1s' }, /^--eviction-grace-period: must be at least 0s/],
      [{ clusterName: 'c', healthzAddr: 'localhost' }, /^--healthz-addr: /],
      [{ clusterName: 'c', metricsAddr: ':99999' }, /^--metrics-addr: /],
      [{ clusterName: 'c', hubKubeconfig: '' }, /^--hub-kubeconfig: must not be empty/],
    ];
    for (const [flags, message] of bad) {
      assert.throws(
        () => agentConfig({ ...defaults, ...flags }, none),
        (e: Error) => e.name === 'AgentFlagError' && message.test(e.message) && !e.message.includes('\n'),
        JSON.stringify(flags),
      );
    }
    assert.equal(agentConfig({ ...defaults, clusterName: 'c', metricsAddr: '' }, none).metricsAddr, '');
  });
});

describe('lease heartbeat (OCM leaseUpdater)', () => {
  test('renewal sets renewTime (MicroTime), holder and duration, and keeps the rest', () => {
    const lease = {
      metadata: { name: 'managed-cluster-lease', namespace: 'c1', resourceVersion: '7' },
      spec: { leaseDurationSeconds: 60, acquireTime: '2026-01-01T00:00:00.000000Z' },
    };
    const r = renewedLease(lease, new Date('2026-02-03T04:05:06.789Z'), 'c1', 2);
    assert.deepEqual(r.spec, {
      leaseDurationSeconds: 2,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      holderIdentity: 'c1',
      renewTime: '2026-02-03T04:05:06.789000Z',
    });
    assert.equal(r.metadata.resourceVersion, '7');
  });

  test('period jittered by up to 25%', () => {
    assert.equal(jitteredPeriodMs(60_000, 0), 60_000);
    assert.equal(jitteredPeriodMs(60_000, 0.5), 67_500);
    assert.ok(jitteredPeriodMs(60_000, 0.999) < 75_000);
  });
});
