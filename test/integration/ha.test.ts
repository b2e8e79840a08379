import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { installControlPlane } from '../../src/install/control-plane.ts';
import { CoreTypes, type KubeClient, type KubeObject, resourcePath } from '../../src/kube/client/index.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';
import { scrape, value } from '../../src/testing/prometheus.ts';
import {
  createFederatedNamespace,
  eventually,
  type FedObject,
  federatedConfigMap,
  getOrUndefined,
  propagation,
  T,
} from './federation-helpers.ts';
import { FAST_CONFIG, kubefedctl, NS, prepareHost, waitForCluster } from './helpers.ts';
import { WriteLog } from './write-log.ts';

const NAMESPACE = 'ha-test';
const NAMES = ['ha-0', 'ha-1', 'ha-2', 'ha-3', 'ha-4'];
const LEASE = 'kubefed-controller-manager';
const LEASE_MS = 4000;
const RETRY_MS = 1000;
/** Long enough to cover the full resync a new leader does `availableDelay` (2 s here) after it starts. */
const SETTLE_MS = 10_000;

interface Lease extends KubeObject {
  spec?: { holderIdentity?: string; acquireTime?: string; renewTime?: string; leaseDurationSeconds?: number };
}

/** Lease times are MicroTime (six fractional digits); milliseconds are enough here. */
const leaseMs = (t: string | undefined): number => Date.parse((t ?? '').replace(/(\.\d{3})\d*Z$/, '$1Z'));

const fcm = (name: string, data: Record<string, string>): KubeObject =>
  federatedConfigMap(name, NAMESPACE, data);

describe('high availability: two controller managers, one leader', () => {
  let fed: Federation;
  let host: KubeClient;
  const members: Record<string, KubeClient> = {};
  const started: ControllerManagerProcess[] = [];
  const start = async (name: string) => {
    const p = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      name,
      logFile: join(fed.dir, `${name}.log`),
    });
    started.push(p);
    return p;
  };
  const isLeader = async (p: ControllerManagerProcess) =>
    value(await scrape(p.metricsUrl), 'leader_election_master_status', { name: LEASE }) === 1;
  const lease = () => host.get<Lease>(CoreTypes.leases, LEASE, NS);

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2'] });
    host = fed.host.client();
    for (const m of fed.members) members[m.name] = m.client();
    await prepareHost(host, {
      ...FAST_CONFIG,
      // A new leader resyncs everything availableDelay after it sees the clusters: keep that inside the
      // settle period, so that a rewrite by that resync would be seen.
      controllerDuration: { availableDelay: '2s', unavailableDelay: '4s' },
    });
    await installControlPlane(host, NS, { defaultTypes: true });
    await start('cm-a');
    await start('cm-b');
    for (const m of fed.members) {
      const r = await kubefedctl([
        'join',
        m.name,
        '--kubeconfig',
        fed.kubeconfigPath,
        '--host-cluster-context',
        'host',
      ]);
      assert.equal(r.code, 0, r.stderr);
    }
    for (const m of fed.members) {
      await waitForCluster(host, m.name, 'Ready', (c) =>
        Boolean(c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')),
      );
    }
    await createFederatedNamespace(host, NAMESPACE);
    for (const name of NAMES) await host.create(T.fcm, fcm(name, { v: '1' }));
    for (const name of NAMES) {
      await eventually(
        `${name} propagated to both members`,
        () => host.get<FedObject>(T.fcm, name, NAMESPACE),
        (o) =>
          propagation(o)?.status === 'True' &&
          (o.status?.clusters ?? []).filter((c) => (c.status ?? '') === '').length === 2,
        60_000,
      );
    }
    for (const [cluster, client] of Object.entries(members)) {
      for (const name of NAMES) {
        const o = await getOrUndefined<KubeObject & { data?: Record<string, string> }>(
          client,
          T.configmaps,
          name,
          NAMESPACE,
        );
        assert.equal(o?.data?.v, '1', `${cluster}/${name}`);
      }
    }
  });
  after(async () => {
    await Promise.all(started.map((p) => p.process.stop(30_000)));
    await fed?.stop();
  });

  /**
   * Updates one template and checks that each member got exactly that one write and nothing else: in the
   * member's watch (what changed there) and in the new leader's request counts (every write request, also
   * a PUT of unchanged content, which the API server would not show as an event).
   */
  async function updateOneAndCountWrites(
    logs: Record<string, WriteLog>,
    leader: ControllerManagerProcess,
    changed: string,
    v: string,
  ) {
    const obj = await host.get<KubeObject & { spec: Record<string, unknown> }>(T.fcm, changed, NAMESPACE);
    await host.update(T.fcm, { ...obj, spec: { ...obj.spec, template: { data: { v } } } });
    for (const [cluster, client] of Object.entries(members)) {
      await eventually(
        `${cluster}/${changed} updated`,
        () =>
          getOrUndefined<KubeObject & { data?: Record<string, string> }>(
            client,
            T.configmaps,
            changed,
            NAMESPACE,
          ),
        (o) => o?.data?.v === v,
      );
    }
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    for (const [cluster, log] of Object.entries(logs)) {
      await log.stop();
      const ours = log.events.filter((e) => NAMES.includes(e.name));
      const summary = JSON.stringify(ours);
      assert.equal(log.count(changed, 'MODIFIED'), 1, `${cluster}: one write of ${changed}: ${summary}`);
      assert.equal(ours.length, 1, `${cluster}: no other write to a managed ConfigMap: ${summary}`);
    }
    const s = await scrape(leader.metricsUrl);
    for (const cluster of Object.keys(members)) {
      const writes = Object.fromEntries(
        ['POST', 'PUT', 'PATCH', 'DELETE'].map((method) => [
          method,
          value(s, 'rest_client_requests_total', { cluster, method }) ?? 0,
        ]),
      );
      assert.deepEqual(
        writes,
        { POST: 0, PUT: 1, PATCH: 0, DELETE: 0 },
        `${cluster}: write requests of the new leader`,
      );
    }
  }

  async function openLogs(): Promise<Record<string, WriteLog>> {
    const logs: Record<string, WriteLog> = {};
    for (const [cluster, client] of Object.entries(members)) {
      logs[cluster] = new WriteLog();
      await logs[cluster].start(client, T.configmaps, NAMESPACE);
    }
    return logs;
  }

  test('SIGKILL of the leader: the standby takes over within the lease and rewrites nothing', async () => {
    const [a, b] = started as [ControllerManagerProcess, ControllerManagerProcess];
    const leaders = await Promise.all([isLeader(a), isLeader(b)]);
    assert.equal(leaders.filter(Boolean).length, 1, 'exactly one leader');
    const leader = leaders[0] ? a : b;
    const standby = leader === a ? b : a;
    // Let the leader's own follow-up reconciles (status, versions, member events) finish first.
    await new Promise((r) => setTimeout(r, 3000));
    const logs = await openLogs();
    const before = (await lease()).spec?.holderIdentity;

    leader.process.killNow();
    const killedAt = Date.now();
    await waitFor(
      'the standby to hold the lease',
      async () => {
        const h = (await lease()).spec?.holderIdentity;
        return h !== undefined && h !== '' && h !== before;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const tookMs = Date.now() - killedAt;
    // Not a speed test: a correctness bound (lease duration + one retry period + slack for a loaded machine).
    assert.ok(tookMs < LEASE_MS + RETRY_MS + 6000, `took over after ${tookMs} ms`);
    assert.ok(await isLeader(standby));
    await waitFor('the new leader to be ready', async () => (await fetch(`${standby.healthUrl}/readyz`)).ok, {
      timeoutMs: 30_000,
    });

    await updateOneAndCountWrites(logs, standby, 'ha-0', '2');
    const s = await scrape(standby.metricsUrl);
    // The new leader did reconcile everything (so the absence of writes means something).
    assert.ok(
      (value(s, 'controller_runtime_reconcile_total', { controller: 'federatedconfigmap' }) ?? 0) >=
        NAMES.length,
    );
  });

  test('SIGTERM of the leader: it releases the lease and a standby takes over before the lease would expire', async () => {
    const leader = started.find((p) => p.process.running);
    assert.ok(leader && (await isLeader(leader)));
    const standby = await start('cm-c');
    assert.equal(await isLeader(standby), false);
    const logs = await openLogs();

    // Follow the Lease: the release (holder "") and the next acquisition, with the API server's times.
    const leaseEvents: Lease[] = [];
    const stopLeaseWatch = new AbortController();
    const rv = (await lease()).metadata.resourceVersion;
    const watching = host
      .watch<Lease>(
        resourcePath(CoreTypes.leases, { namespace: NS }),
        { resourceVersion: rv, fieldSelector: `metadata.name=${LEASE}` },
        (e) => leaseEvents.push(e.object),
        { signal: stopLeaseWatch.signal },
      )
      .catch(() => {});

    await leader.process.stop(30_000);
    assert.equal(leader.process.child.exitCode, 0, 'a graceful stop exits 0');
    await waitFor('cm-c to lead', () => isLeader(standby), { timeoutMs: 30_000, intervalMs: 200 });
    stopLeaseWatch.abort();
    await watching;
    const released = leaseEvents.findIndex((l) => (l.spec?.holderIdentity ?? '') === '');
    assert.ok(released >= 0, `the lease was released: ${JSON.stringify(leaseEvents.map((l) => l.spec))}`);
    const acquired = leaseEvents.slice(released).find((l) => (l.spec?.holderIdentity ?? '') !== '');
    assert.ok(acquired, 'and then acquired');
    const gapMs = leaseMs(acquired.spec?.acquireTime) - leaseMs(leaseEvents[released]?.spec?.renewTime);
    // Waiting for expiry would take at least the lease duration; a released lease is taken at the next try.
    assert.ok(gapMs >= 0 && gapMs < LEASE_MS, `taken ${gapMs} ms after the release`);
    await waitFor('cm-c to be ready', async () => (await fetch(`${standby.healthUrl}/readyz`)).ok, {
      timeoutMs: 30_000,
    });

    await updateOneAndCountWrites(logs, standby, 'ha-1', '2');
  });
});
