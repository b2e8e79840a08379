// OCM's hub-side work controllers on a bare federation (no workloads): kubefed-ts's Placement decisions from
// KubeFedClusters, the ManifestWorkReplicaSet controller following hand-written PlacementDecisions and
// hand-written ManifestWork statuses (as ocm test/integration/work/manifestworkreplicaset_test.go does), and
// the garbage collection of completed ManifestWorks. The controller manager runs as its own process.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KubeFedClusterType } from '../../src/api/core/v1beta1/index.ts';
import { CoreTypes, isAlreadyExists, type KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import {
  PlacementDecisionType,
  PlacementType,
} from '../../src/sources/manifestwork/placement/resource-types.ts';
import {
  ManifestWorkReplicaSetType,
  ManifestWorkType,
} from '../../src/sources/manifestwork/replicaset/resource-types.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { eventually, getOrUndefined, startPropagation } from './federation-helpers.ts';
import { NS } from './helpers.ts';

const APP_NS = 'apps';
const MWRS_LABEL = 'work.open-cluster-management.io/manifestworkreplicaset';
const PLACEMENT_NAME_LABEL = 'work.open-cluster-management.io/placementname';
const PLACEMENT_LABEL = 'cluster.open-cluster-management.io/placement';

interface Cond {
  type: string;
  status: string;
  reason?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}
type Obj = KubeObject & {
  spec?: Record<string, unknown>;
  status?: {
    conditions?: Cond[];
    decisions?: Array<{ clusterName: string }>;
    numberOfSelectedClusters?: number;
    summary?: Record<string, number>;
    placementSummary?: unknown[];
  };
};

const configMapManifest = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { a: 'b' },
});

function condition(o: Obj | undefined, type: string): string | undefined {
  const c = o?.status?.conditions?.find((x) => x.type === type);
  return c ? `${c.status}/${c.reason}` : undefined;
}

describe('ManifestWorkReplicaSet and Placement on the hub', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;

  const works = async (mwrs: string) =>
    (
      await host.list<Obj>(ManifestWorkType, { labelSelector: `${MWRS_LABEL}=${APP_NS}.${mwrs}` })
    ).items.filter((w) => !w.metadata.deletionTimestamp);
  const worksIn = async (mwrs: string) => (await works(mwrs)).map((w) => w.metadata.namespace).sort();
  const mwrsObj = (name: string) => getOrUndefined<Obj>(host, ManifestWorkReplicaSetType, name, APP_NS);

  async function namespace(name: string): Promise<void> {
    try {
      await host.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }

  /** A Placement whose decisions the test writes, with the status OCM's scheduler would give it. */
  async function externalPlacement(name: string, selected: number): Promise<void> {
    const created = await host.create<Obj>(PlacementType, {
      apiVersion: 'cluster.open-cluster-management.io/v1beta1',
      kind: 'Placement',
      metadata: { name, namespace: APP_NS, annotations: { 'kubefed-ts.io/decisions': 'external' } },
      spec: {},
    });
    await setSelected(created, selected);
  }

  async function setSelected(placement: Obj, selected: number): Promise<void> {
    const fresh = await host.get<Obj>(PlacementType, placement.metadata.name ?? '', APP_NS);
    await host.update(
      PlacementType,
      {
        ...fresh,
        status: { numberOfSelectedClusters: selected, decisionGroups: [{ decisionGroupIndex: 0 }] },
      },
      { subresource: 'status' },
    );
  }

  /** Writes (creates or replaces) the placement's one PlacementDecision with these clusters. */
  async function decide(placement: string, clusters: string[]): Promise<void> {
    const name = `${placement}-decision-1`;
    let pd = await getOrUndefined<Obj>(host, PlacementDecisionType, name, APP_NS);
    if (!pd)
      pd = await host.create<Obj>(PlacementDecisionType, {
        apiVersion: 'cluster.open-cluster-management.io/v1beta1',
        kind: 'PlacementDecision',
        metadata: {
          name,
          namespace: APP_NS,
          labels: {
            [PLACEMENT_LABEL]: placement,
            'cluster.open-cluster-management.io/decision-group-index': '0',
          },
        },
      });
    await host.update(
      PlacementDecisionType,
      { ...pd, status: { decisions: clusters.map((clusterName) => ({ clusterName, reason: '' })) } },
      { subresource: 'status' },
    );
  }

  async function createMwrs(name: string, placementRefs: unknown[], extra: Record<string, unknown> = {}) {
    await host.create(ManifestWorkReplicaSetType, {
      apiVersion: 'work.open-cluster-management.io/v1alpha1',
      kind: 'ManifestWorkReplicaSet',
      metadata: { name, namespace: APP_NS, labels: { team: 'blue' } },
      spec: {
        manifestWorkTemplate: { workload: { manifests: [configMapManifest(name)] } },
        placementRefs,
        ...extra,
      },
    });
  }

  /** Writes the status an agent would: applied, done progressing, available — at the work's generation. */
  async function markDone(work: Obj, extra: Cond[] = []): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const generation = work.metadata.generation;
    const cond = (type: string, status: string): Cond & { message: string } => ({
      type,
      status,
      reason: 'Test',
      message: '',
      observedGeneration: generation,
      lastTransitionTime: now,
    });
    await host.update(
      ManifestWorkType,
      {
        ...work,
        status: {
          conditions: [
            cond('Applied', 'True'),
            cond('Progressing', 'False'),
            cond('Available', 'True'),
            ...extra.map((c) => cond(c.type, c.status)),
          ],
        },
      },
      { subresource: 'status' },
    );
  }

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2'] });
    ({ host, cm } = await startPropagation(fed));
    for (const n of [APP_NS, 'c1', 'c2', 'c3', 'c4']) await namespace(n);
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('a Placement with spec.placement clusterSelector gets a PlacementDecision with the matching ready clusters', async () => {
    const label = async (cluster: string, env: string) =>
      host.patch(KubeFedClusterType, cluster, { metadata: { labels: { env } } }, { namespace: NS });
    await label('cluster1', 'prod');
    await label('cluster2', 'dev');
    const placement = await host.create<Obj>(PlacementType, {
      apiVersion: 'cluster.open-cluster-management.io/v1beta1',
      kind: 'Placement',
      metadata: { name: 'prod', namespace: APP_NS },
      spec: { placement: { clusterSelector: { matchLabels: { env: 'prod' } } } },
    });
    const decision = await eventually(
      'PlacementDecision prod-decision-1 with cluster1',
      () => getOrUndefined<Obj>(host, PlacementDecisionType, 'prod-decision-1', APP_NS),
      (d) => d?.status?.decisions?.map((x) => x.clusterName).join() === 'cluster1',
    );
    assert.equal(decision?.metadata.labels?.[PLACEMENT_LABEL], 'prod');
    assert.equal(decision?.metadata.labels?.['cluster.open-cluster-management.io/decision-group-index'], '0');
    assert.deepEqual(
      ((decision?.metadata.ownerReferences ?? []) as Array<{ kind: string; uid: string }>).map((r) => [
        r.kind,
        r.uid,
      ]),
      [['Placement', placement.metadata.uid]],
    );
    const status = await eventually(
      'Placement prod status',
      () => host.get<Obj>(PlacementType, 'prod', APP_NS),
      (p) => p.status?.numberOfSelectedClusters === 1,
    );
    assert.equal(condition(status, 'PlacementSatisfied'), 'True/AllDecisionsScheduled');

    await label('cluster2', 'prod');
    await eventually(
      'both clusters decided once cluster2 is prod',
      () => getOrUndefined<Obj>(host, PlacementDecisionType, 'prod-decision-1', APP_NS),
      (d) => d?.status?.decisions?.map((x) => x.clusterName).join() === 'cluster1,cluster2',
    );
    // A Placement with nothing in its spec selects every cluster, as OCM's does.
    await host.create(PlacementType, {
      apiVersion: 'cluster.open-cluster-management.io/v1beta1',
      kind: 'Placement',
      metadata: { name: 'everywhere', namespace: APP_NS },
      spec: {},
    });
    await eventually(
      'every cluster decided for an empty Placement',
      () => getOrUndefined<Obj>(host, PlacementDecisionType, 'everywhere-decision-1', APP_NS),
      (d) => d?.status?.decisions?.length === 2,
    );
  });

  test('the MWRS follows a hand-written PlacementDecision 3 → 2 → 0 clusters, with its labels on the works', async () => {
    await externalPlacement('follow', 3);
    await decide('follow', ['c1', 'c2', 'c3']);
    await createMwrs('follow', [{ name: 'follow' }]);
    await eventually(
      '3 works',
      () => worksIn('follow'),
      (ns) => ns.join() === 'c1,c2,c3',
    );
    const [w] = await works('follow');
    assert.equal(w?.metadata.name, 'follow');
    assert.equal(w?.metadata.labels?.[MWRS_LABEL], `${APP_NS}.follow`);
    assert.equal(w?.metadata.labels?.[PLACEMENT_NAME_LABEL], 'follow');
    assert.equal(w?.metadata.labels?.team, 'blue');
    assert.equal(w?.metadata.ownerReferences, undefined);
    const set = await eventually(
      'finalizer and summary',
      () => mwrsObj('follow'),
      (s) => s?.status?.summary?.total === 3,
    );
    assert.ok(set?.metadata.finalizers?.includes('work.open-cluster-management.io/manifest-work-cleanup'));
    assert.equal(condition(set, 'PlacementVerified'), 'True/AsExpected');

    await decide('follow', ['c1', 'c2']);
    await eventually(
      '2 works',
      () => worksIn('follow'),
      (ns) => ns.join() === 'c1,c2',
    );
    await decide('follow', []);
    await eventually(
      'no works',
      () => worksIn('follow'),
      (ns) => ns.length === 0,
    );
    const empty = await eventually(
      'PlacementDecisionEmpty',
      () => mwrsObj('follow'),
      (s) => condition(s, 'PlacementVerified') === 'False/PlacementDecisionEmpty',
    );
    assert.equal(empty?.status?.summary?.total, 0);
    assert.equal(condition(empty, 'ManifestworkApplied'), 'False/PlacementDecisionEmpty');
  });

  test('summary counts follow the works’ statuses; PlacementRolledOut goes False → True', async () => {
    await externalPlacement('rollout', 2);
    await decide('rollout', ['c1', 'c2']);
    await createMwrs('rollout', [{ name: 'rollout' }]);
    await eventually(
      '2 works',
      () => worksIn('rollout'),
      (ns) => ns.length === 2,
    );
    const progressing = await eventually(
      'rolling out',
      () => mwrsObj('rollout'),
      (s) => s?.status?.summary?.total === 2 && condition(s, 'PlacementRolledOut') === 'False/Progressing',
    );
    assert.equal(progressing?.status?.summary?.applied, 0);
    const [first, second] = await works('rollout');
    assert.ok(first && second);
    await markDone(first);
    await eventually(
      'one applied and available',
      () => mwrsObj('rollout'),
      (s) => s?.status?.summary?.applied === 1 && s.status.summary.available === 1,
    );
    assert.equal(condition(await mwrsObj('rollout'), 'PlacementRolledOut'), 'False/Progressing');
    await markDone(second);
    const done = await eventually(
      'rolled out',
      () => mwrsObj('rollout'),
      (s) => condition(s, 'PlacementRolledOut') === 'True/Complete',
    );
    assert.deepEqual(
      { ...done?.status?.summary },
      { total: 2, applied: 2, available: 2, degraded: 0, progressing: 0 },
    );
    assert.equal(condition(done, 'ManifestworkApplied'), 'True/AsExpected');
    assert.deepEqual(done?.status?.placementSummary, [
      { name: 'rollout', availableDecisionGroups: '1 (2 / 2 clusters applied)', summary: { total: 2 } },
    ]);
  });

  test('a work whose cluster namespace is missing: PlacementVerified NotAsExpected naming it, until the namespace exists', async () => {
    await externalPlacement('missing', 1);
    await decide('missing', ['c-missing']);
    await createMwrs('missing', [{ name: 'missing' }]);
    const failing = await eventually(
      'NotAsExpected',
      () => mwrsObj('missing'),
      (s) => condition(s, 'PlacementVerified') === 'False/NotAsExpected',
    );
    const verified = failing?.status?.conditions?.find((c) => c.type === 'PlacementVerified') as
      | (Cond & { message?: string })
      | undefined;
    assert.match(verified?.message ?? '', /c-missing/);
    assert.equal(failing?.status?.summary?.total, 0);
    await namespace('c-missing');
    await eventually(
      'the work once the namespace exists',
      () => worksIn('missing'),
      (ns) => ns.join() === 'c-missing',
      90_000,
    );
    await eventually(
      'AsExpected',
      () => mwrsObj('missing'),
      (s) => condition(s, 'PlacementVerified') === 'True/AsExpected',
    );
  });

  test('a work of the same name that is not the MWRS’s is never taken over', async () => {
    const mine = await host.create<Obj>(ManifestWorkType, {
      apiVersion: 'work.open-cluster-management.io/v1',
      kind: 'ManifestWork',
      metadata: { name: 'clash', namespace: 'c1' },
      spec: { workload: { manifests: [configMapManifest('hand-made')] } },
    });
    await externalPlacement('clash', 1);
    await decide('clash', ['c1']);
    await createMwrs('clash', [{ name: 'clash' }]);
    const set = await eventually(
      'NotAsExpected',
      () => mwrsObj('clash'),
      (s) => condition(s, 'PlacementVerified') === 'False/NotAsExpected',
    );
    const verified = set?.status?.conditions?.find((c) => c.type === 'PlacementVerified') as
      | (Cond & { message?: string })
      | undefined;
    assert.match(
      verified?.message ?? '',
      /c1\/clash already exists and belongs to no ManifestWorkReplicaSet/,
    );
    const still = await host.get<Obj>(ManifestWorkType, 'clash', 'c1');
    assert.equal(still.metadata.resourceVersion, mine.metadata.resourceVersion);
  });

  test('changing the placementRef deletes the old placement’s works', async () => {
    await externalPlacement('old', 1);
    await externalPlacement('new', 1);
    await decide('old', ['c1']);
    await decide('new', ['c3']);
    await createMwrs('moving', [{ name: 'old' }]);
    await eventually(
      'work on c1',
      () => worksIn('moving'),
      (ns) => ns.join() === 'c1',
    );
    // A merge patch, as `kubectl patch --type merge` sends it: a get and a PUT would race the controller's status
    // writes, which move the resourceVersion (a 409 seen in CI).
    await host.patch(
      ManifestWorkReplicaSetType,
      'moving',
      { spec: { placementRefs: [{ name: 'new' }] } },
      { namespace: APP_NS },
    );
    const moved = await eventually(
      'work on c3 only',
      () => works('moving'),
      (ws) => ws.map((w) => w.metadata.namespace).join() === 'c3',
    );
    assert.equal(moved[0]?.metadata.labels?.[PLACEMENT_NAME_LABEL], 'new');
  });

  test('Progressive with maxConcurrency 2: two works, the next ones as those succeed', async () => {
    await externalPlacement('wave', 4);
    await decide('wave', ['c1', 'c2', 'c3', 'c4']);
    await createMwrs('wave', [
      { name: 'wave', rolloutStrategy: { type: 'Progressive', progressive: { maxConcurrency: 2 } } },
    ]);
    await eventually(
      'the first two',
      () => worksIn('wave'),
      (ns) => ns.join() === 'c1,c2',
    );
    for (const w of await works('wave')) await markDone(w);
    await eventually(
      'all four',
      () => worksIn('wave'),
      (ns) => ns.join() === 'c1,c2,c3,c4',
    );
  });

  test('Foreground deletion waits for the works; Background does not', async () => {
    await externalPlacement('fg', 1);
    await decide('fg', ['c2']);
    await createMwrs('fg', [{ name: 'fg' }], { cascadeDeletionPolicy: 'Foreground' });
    const [w] = await eventually(
      'a work',
      () => works('fg'),
      (ws) => ws.length === 1,
    );
    assert.ok(w);
    // An agent's finalizer keeps the work while the member cleans up.
    await host.patch(
      ManifestWorkType,
      w.metadata.name ?? '',
      { metadata: { finalizers: ['test/hold'] } },
      {
        namespace: w.metadata.namespace,
      },
    );
    await eventually(
      'MWRS finalized with its finalizer',
      () => mwrsObj('fg'),
      (s) => Boolean(s?.metadata.finalizers?.length),
    );
    await host.delete(ManifestWorkReplicaSetType, 'fg', { namespace: APP_NS });
    await eventually(
      'the work is being deleted',
      () => getOrUndefined<Obj>(host, ManifestWorkType, 'fg', 'c2'),
      (x) => Boolean(x?.metadata.deletionTimestamp),
    );
    assert.ok(await mwrsObj('fg'), 'Foreground: the MWRS waits for its works');
    await host.patch(ManifestWorkType, 'fg', { metadata: { finalizers: null } }, { namespace: 'c2' });
    await eventually(
      'MWRS gone after its work',
      () => mwrsObj('fg'),
      (s) => s === undefined,
    );

    await externalPlacement('bg', 1);
    await decide('bg', ['c2']);
    await createMwrs('bg', [{ name: 'bg' }]);
    await eventually(
      'a work',
      () => works('bg'),
      (ws) => ws.length === 1,
    );
    await host.patch(
      ManifestWorkType,
      'bg',
      { metadata: { finalizers: ['test/hold'] } },
      { namespace: 'c2' },
    );
    await eventually(
      'MWRS finalized',
      () => mwrsObj('bg'),
      (s) => Boolean(s?.metadata.finalizers?.length),
    );
    await host.delete(ManifestWorkReplicaSetType, 'bg', { namespace: APP_NS });
    await eventually(
      'Background: MWRS gone at once',
      () => mwrsObj('bg'),
      (s) => s === undefined,
    );
    const held = await getOrUndefined<Obj>(host, ManifestWorkType, 'bg', 'c2');
    assert.ok(held?.metadata.deletionTimestamp, 'its work was deleted too');
    await host.patch(ManifestWorkType, 'bg', { metadata: { finalizers: null } }, { namespace: 'c2' });
  });

  test('a completed ManifestWork is deleted after its TTL; one of a MWRS is kept', async () => {
    const work = (name: string, labels: Record<string, string> = {}) => ({
      apiVersion: 'work.open-cluster-management.io/v1',
      kind: 'ManifestWork',
      metadata: { name, namespace: 'c4', labels },
      spec: {
        workload: { manifests: [configMapManifest(name)] },
        deleteOption: { propagationPolicy: 'Foreground', ttlSecondsAfterFinished: 1 },
      },
    });
    const kept = await host.create<Obj>(
      ManifestWorkType,
      work('owned', { [MWRS_LABEL]: `${APP_NS}.elsewhere` }),
    );
    const single = await host.create<Obj>(ManifestWorkType, work('single'));
    await markDone(kept, [{ type: 'Complete', status: 'True' }]);
    await markDone(single, [{ type: 'Complete', status: 'True' }]);
    await eventually(
      'the completed work is deleted',
      () => getOrUndefined<Obj>(host, ManifestWorkType, 'single', 'c4'),
      (w) => w === undefined,
    );
    // The TTL (1 s) is long past for both: the MWRS's work would be gone by now if it were collected.
    await new Promise((r) => setTimeout(r, 2000));
    assert.ok(
      await getOrUndefined<Obj>(host, ManifestWorkType, 'owned', 'c4'),
      'a MWRS’s work is never collected',
    );
  });
});
