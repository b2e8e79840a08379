import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  API_VERSION as DNS_API,
  DomainType,
  ServiceDNSRecordType,
} from '../../src/api/multiclusterdns/v1alpha1/index.ts';
import { ReplicaSchedulingPreferenceType } from '../../src/api/scheduling/v1alpha1/index.ts';
import type { KubeClient, KubeObject, ResourceType } from '../../src/kube/client/index.ts';
import type { MemberCache } from '../../src/members/member-caches.ts';
import { Members } from '../../src/members/members.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { parsePrometheusText, value } from '../../src/testing/prometheus.ts';
import {
  createFederatedNamespace,
  eventually,
  FED_GROUP,
  FED_VERSION,
  fedType,
  getOrUndefined,
  startPropagation,
  T,
} from './federation-helpers.ts';
import { NS } from './helpers.ts';

const NSX = 'caches';
const API = `${FED_GROUP}/${FED_VERSION}`;
const Services: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'services',
  namespaced: true,
  kind: 'Service',
};
const PodTemplates: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'podtemplates',
  namespaced: true,
  kind: 'PodTemplate',
};
type Conditioned = KubeObject & { status?: { conditions?: Array<{ type: string; reason?: string }> } };
const reason = (o: Conditioned | undefined, type: string) =>
  o?.status?.conditions?.find((c) => c.type === type)?.reason;

/** The member apiserver's open watches of a resource (all clients), from its own /metrics. */
async function openWatches(member: KubeClient, resource: string): Promise<number> {
  const res = await member.requestRaw('GET', '/metrics');
  if (res.statusCode !== 200) throw new Error(`GET /metrics: HTTP ${res.statusCode}`);
  return (
    value(parsePrometheusText(res.body), 'apiserver_longrunning_requests', { verb: 'WATCH', resource }) ?? 0
  );
}

/** In-process member caches of the federation's registered members, once cluster1 is ready. */
async function withMembers(host: KubeClient, use: (members: Members) => Promise<void>): Promise<void> {
  const members = new Members({ host, namespace: NS });
  members.start();
  try {
    await members.waitForSync();
    await eventually('cluster1 ready', async () => members.registry.isReady('cluster1'), Boolean);
    await use(members);
  } finally {
    await members.stop();
  }
}

describe('shared member caches: one member watch per cluster × type × selector', () => {
  let fed: Federation;
  let host: KubeClient;
  let member: KubeClient;
  let cm: ControllerManagerProcess;
  /** Watches the member had before kubefed-ts ran (its own controllers'), by resource. */
  const baseline: Record<string, number> = {};

  before(async () => {
    fed = await startFederation({ members: ['cluster1'] });
    member = fed.cluster('cluster1').client();
    for (const r of ['services', 'deployments', 'endpointslices', 'podtemplates']) {
      baseline[r] = await openWatches(member, r);
    }
    ({ host, cm } = await startPropagation(fed));
    await createFederatedNamespace(host, NSX);
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('the sync controllers, the service DNS controller and the RSP controller share the member watches', async () => {
    await host.create(T.fdeploy, {
      apiVersion: API,
      kind: 'FederatedDeployment',
      metadata: { name: 'web', namespace: NSX },
      spec: {
        template: {
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'c', image: 'nginx' }] },
            },
          },
        },
        placement: { clusterSelector: {} },
      },
    });
    await host.create(fedType('FederatedService', 'federatedservices'), {
      apiVersion: API,
      kind: 'FederatedService',
      metadata: { name: 'web', namespace: NSX },
      spec: {
        template: { spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 80 }] } },
        placement: { clusterSelector: {} },
      },
    });
    await host.create(DomainType, {
      apiVersion: DNS_API,
      kind: 'Domain',
      metadata: { name: 'galactic', namespace: NS },
      domain: 'example.test',
    });
    await host.create(ServiceDNSRecordType, {
      apiVersion: DNS_API,
      kind: 'ServiceDNSRecord',
      metadata: { name: 'web', namespace: NSX },
      spec: { domainRef: 'galactic' },
    });
    await host.create(ReplicaSchedulingPreferenceType, {
      apiVersion: 'scheduling.kubefed.io/v1alpha1',
      kind: 'ReplicaSchedulingPreference',
      metadata: { name: 'web', namespace: NSX },
      spec: { targetKind: 'FederatedDeployment', totalReplicas: 2, clusters: { '*': { weight: 1 } } },
    });

    // Every reader is at work: the copies exist, the DNS record and the RSP were reconciled with them.
    for (const t of [Services, T.deployments]) {
      await eventually(`${t.plural} copy`, () => getOrUndefined(member, t, 'web', NSX), Boolean, 60_000);
    }
    await eventually(
      'ServiceDNSRecord published (partially: the member has no region)',
      () => host.get<Conditioned>(ServiceDNSRecordType, 'web', NSX),
      (r) => reason(r, 'Ready') === 'PartiallyPublished',
      60_000,
    );
    await eventually(
      'RSP scheduled',
      () => host.get<Conditioned>(ReplicaSchedulingPreferenceType, 'web', NSX),
      (r) => reason(r, 'Scheduled') === 'Scheduled',
      60_000,
    );
    await eventually(
      'the copy has the scheduled replicas',
      () => getOrUndefined<KubeObject & { spec?: { replicas?: number } }>(member, T.deployments, 'web', NSX),
      (d) => d?.spec?.replicas === 2,
      60_000,
    );

    // Two readers of services (the FederatedService sync controller, servicedns) and two of deployments
    // (the FederatedDeployment sync controller, the RSP controller): one watch each; endpointslices has one.
    // The member's own controllers watch these too, so kubefed-ts's share is what goes when it stops.
    const resources = ['services', 'deployments', 'endpointslices'];
    const running = await Promise.all(resources.map((r) => openWatches(member, r)));
    await cm.process.stop();
    const held = async () =>
      (await Promise.all(resources.map((r) => openWatches(member, r)))).map((n, i) => (running[i] ?? 0) - n);
    await eventually('the stopped process holds no watch', held, (d) => d.every((n) => n > 0));
    // Every connection of the process closed at its exit; give the apiserver a moment to count them all.
    await new Promise((r) => setTimeout(r, 2000));
    const after = await held();
    assert.deepEqual(
      Object.fromEntries(resources.map((r, i) => [r, after[i]])),
      Object.fromEntries(resources.map((r) => [r, 1])),
      `member watches held by the controller manager (baseline before it ran: ${JSON.stringify(baseline)}, while running: ${JSON.stringify(running)})`,
    );
  });

  test('a reader is not told of its own writes; the other readers of the cache are', async () => {
    await withMembers(host, async (members) => {
      const spec = { type: PodTemplates, namespace: NSX, labelSelector: 'test=own' };
      const heard = { writer: [] as string[], other: [] as string[] };
      const listen = (who: keyof typeof heard) => ({
        onObject: (_c: string, o: KubeObject) => heard[who].push(o.metadata.resourceVersion ?? ''),
      });
      const writer = members.caches.open(spec, listen('writer'));
      const other = members.caches.open(spec, listen('other'));
      await eventually(
        'loaded',
        async () => writer.state('cluster1').kind,
        (k) => k === 'synced',
      );
      const created = await writer.ownWrite('cluster1', `${NSX}/own`, undefined, () =>
        member.create(PodTemplates, {
          apiVersion: 'v1',
          kind: 'PodTemplate',
          metadata: { name: 'own', namespace: NSX, labels: { test: 'own' } },
          template: { spec: { containers: [{ name: 'c', image: 'example.com/c' }] } },
        }),
      );
      const rv = created.metadata.resourceVersion ?? '';
      // The writer's next read sees its write at once.
      assert.equal(writer.get('cluster1', `${NSX}/own`)?.metadata.resourceVersion, rv);
      await eventually(
        'the other reader hears of the create',
        async () => heard.other,
        (h) => h.includes(rv),
      );
      // Someone else's change: both hear of it. Events come in order, so once the writer has heard of this
      // one, it would have heard of its own create before it.
      const changed = await member.patch<KubeObject>(
        PodTemplates,
        'own',
        { metadata: { annotations: { by: 'someone else' } } },
        { namespace: NSX, patchType: 'merge' },
      );
      const rv2 = changed.metadata.resourceVersion ?? '';
      await eventually(
        'the writer hears of the other change',
        async () => heard.writer,
        (h) => h.includes(rv2),
      );
      assert.deepEqual(heard.writer, [rv2]);
      await eventually(
        'so does the other reader',
        async () => heard.other,
        (h) => h.includes(rv2),
      );
      assert.deepEqual(heard.other, [rv, rv2]);
      await Promise.all([writer.close(), other.close()]);
    });
  });

  test('cached member objects leave out managedFields; a write made from a cached copy keeps the stored ones', async () => {
    const podTemplate = (name: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name, namespace: NSX, labels: { test: 'fields' } },
      template: { spec: { containers: [{ name: 'c', image: 'example.com/c' }] } },
    });
    const managers = async (name: string) =>
      ((await member.get<KubeObject>(PodTemplates, name, NSX)).metadata.managedFields ?? []).map(
        (f) => f.manager,
      );
    await member.create(PodTemplates, podTemplate('listed'));
    await withMembers(host, async (members) => {
      const cache = members.caches.open({ type: PodTemplates, namespace: NSX, labelSelector: 'test=fields' });
      await eventually(
        'loaded',
        async () => cache.state('cluster1').kind,
        (k) => k === 'synced',
      );
      const written = await cache.ownWrite('cluster1', `${NSX}/written`, undefined, () =>
        member.create(PodTemplates, podTemplate('written')),
      );
      assert.ok(
        written.metadata.managedFields?.length,
        'the writer keeps the answer as the apiserver gave it',
      );
      await member.create(PodTemplates, podTemplate('watched'));
      const watched = await eventually(
        'the watched object is cached',
        async () => cache.get('cluster1', `${NSX}/watched`),
        Boolean,
      );
      for (const [name, cached] of [
        ['listed', cache.get('cluster1', `${NSX}/listed`)],
        ['written', cache.get('cluster1', `${NSX}/written`)],
        ['watched', watched],
      ] as const) {
        assert.ok(cached, name);
        assert.equal(cached.metadata.managedFields, undefined, `${name}: cached without managedFields`);
        assert.ok((await managers(name)).length > 0, `${name}: the apiserver has them`);
      }
      // An update built from the cached copy sends no managedFields: the apiserver keeps the creator's entry.
      const before = await managers('listed');
      const copy = structuredClone(cache.get('cluster1', `${NSX}/listed`) as KubeObject);
      copy.metadata.labels = { ...copy.metadata.labels, changed: 'yes' };
      await member.update(PodTemplates, copy);
      const after = await managers('listed');
      for (const m of before) assert.ok(after.includes(m), `${m} still owns its fields: ${after.join(', ')}`);
      await cache.close();
    });
  });

  test('readers of one spec share its informers, which stop when the last reader closes', async () => {
    await withMembers(host, async (members) => {
      const caches = members.caches;
      const spec = (selector: string) => ({ type: PodTemplates, namespace: NSX, labelSelector: selector });
      const watches = async () => (await openWatches(member, 'podtemplates')) - (baseline.podtemplates ?? 0);
      const opened: MemberCache[] = [caches.open(spec('test=a')), caches.open(spec('test=a'))];
      assert.equal(caches.size, 1);
      await eventually('one watch for two readers of one spec', watches, (n) => n === 1);
      const [a1, a2] = opened;
      const b = caches.open(spec('test=b'));
      assert.equal(caches.size, 2);
      await eventually('another selector, another watch', watches, (n) => n === 2);

      await eventually(
        'test=a loaded',
        async () => a2?.state('cluster1').kind,
        (k) => k === 'synced',
      );
      await a1?.close();
      assert.equal(caches.size, 2, 'a reader is left on test=a: its informers keep running');
      assert.equal(a2?.state('cluster1').kind, 'synced');
      await b.close();
      assert.equal(caches.size, 1);
      await eventually('test=b closed: one watch left', watches, (n) => n === 1);
      await a2?.close();
      assert.equal(caches.size, 0);
      await eventually('no reader left: no watch', watches, (n) => n === 0);
    });
  });
});
