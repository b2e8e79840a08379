// OCM's ManifestWork in push mode: the controller manager runs a work agent per Push-mode member, which
// applies the bundles of the member's hub namespace on the host to kwok members that really run the
// workloads, records them in an AppliedManifestWork, and reports conditions and feedback back. Modelled on
// ocm test/integration/work (work_test.go, updatestrategy_test.go, deleteoption_test.go,
// statusfeedback_test.go, conditionrules_test.go). One federation for the file.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AMW_KIND,
  API_VERSION,
  type AppliedManifestWork,
  MANIFEST_WORK_FINALIZER,
  type ManifestWork,
  OBJECT_HASH_ANNOTATION,
  type UpdateStrategy,
} from '../../src/api/ocm/work/v1/index.ts';
import { AMW_TYPE, MW_TYPE } from '../../src/engine/agent/applied-work.ts';
import { appliedManifestWorkName, hubHash } from '../../src/engine/agent/hub-hash.ts';
import {
  CoreTypes,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { eventually, getOrUndefined, startPropagation } from './federation-helpers.ts';
import { WriteLog } from './write-log.ts';

const APPS = 'mw-apps';
const DEPLOY: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};
const CM = CoreTypes.configMaps;
type Obj = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
};
type Cond = { type: string; status: string; reason?: string; message?: string; observedGeneration?: number };
type ManifestStatus = {
  resourceMeta: { ordinal: number; resource?: string; kind?: string };
  conditions: Cond[];
  statusFeedback?: {
    values?: Array<{ name: string; fieldValue: { type: string; integer?: number; string?: string } }>;
  };
};

const cond = (conds: readonly Cond[] | undefined, type: string) => conds?.find((c) => c.type === type);
const manifestsOf = (w: ManifestWork | undefined) =>
  (w?.status?.resourceStatus?.manifests ?? []) as unknown as ManifestStatus[];
const manifestAt = (w: ManifestWork | undefined, ordinal: number) =>
  manifestsOf(w).find((m) => m.resourceMeta.ordinal === ordinal);
const feedback = (m: ManifestStatus | undefined, name: string) =>
  m?.statusFeedback?.values?.find((v) => v.name === name)?.fieldValue.integer;

function deployment(name: string, replicas: number): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: APPS, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.example/team/web:1.0' }] },
      },
    },
  };
}
const configMap = (name: string, data: Record<string, string>, namespace = APPS): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});
const strategy = (name: string, namespace: string, updateStrategy: UpdateStrategy) => ({
  resourceIdentifier: { group: '', resource: 'configmaps', name, namespace },
  updateStrategy,
});

describe('ManifestWork pushed by the controller manager', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let c1: KubeClient;
  let c2: KubeClient;
  let hash: string;

  const work = (ns: string, name: string) => getOrUndefined<ManifestWork>(host, MW_TYPE, name, ns);
  const createWork = (
    ns: string,
    name: string,
    manifests: Obj[],
    spec: Record<string, unknown> = {},
    labels?: Record<string, string>,
  ) =>
    host.create<ManifestWork>(MW_TYPE, {
      apiVersion: API_VERSION,
      kind: 'ManifestWork',
      metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
      spec: { workload: { manifests }, ...spec },
    } as ManifestWork);
  const updateWork = async (ns: string, name: string, change: (w: ManifestWork) => void) => {
    for (;;) {
      const w = await host.get<ManifestWork>(MW_TYPE, name, ns);
      change(w);
      try {
        return await host.update<ManifestWork>(MW_TYPE, w);
      } catch (e) {
        if (!(e instanceof Error) || !/modified/.test(e.message)) throw e;
      }
    }
  };
  /** The work's status after the agent saw its current generation. */
  const settled = (
    ns: string,
    name: string,
    check: (w: ManifestWork) => boolean = () => true,
    timeoutMs?: number,
  ) =>
    eventually(
      `${ns}/${name} status at its generation`,
      () => work(ns, name),
      (w) =>
        w !== undefined &&
        cond(w.status?.conditions as Cond[], 'Applied')?.observedGeneration === w.metadata.generation &&
        check(w),
      timeoutMs,
    ) as Promise<ManifestWork>;
  const gone = (c: KubeClient, type: ResourceType, name: string, ns?: string) =>
    eventually(
      `${name} gone`,
      () => getOrUndefined(c, type, name, ns),
      (o) => o === undefined,
    );

  before(async () => {
    fed = await startFederation({
      members: ['cluster1', 'cluster2'],
      workloads: true,
      hostControllers: 'federation-apiserver',
    });
    ({ host, cm } = await startPropagation(fed));
    c1 = fed.cluster('cluster1').client();
    c2 = fed.cluster('cluster2').client();
    hash = hubHash(host.config.server);
    // The push agents make the hub namespaces of their clusters.
    for (const name of ['cluster1', 'cluster2']) {
      await eventually(
        `hub namespace ${name}`,
        () => getOrUndefined(host, CoreTypes.namespaces, name),
        (n) => n !== undefined,
      );
    }
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('a bundle is applied in kind order, owned by its AppliedManifestWork, with conditions, feedback and rules; an unknown kind and a bad rule get their conditions; re-applying writes nothing', async () => {
    const logs = { ns: new WriteLog(), cm: new WriteLog(), deploy: new WriteLog() };
    await logs.ns.start(c1, CoreTypes.namespaces, '');
    await logs.cm.start(c1, CM, APPS);
    await logs.deploy.start(c1, DEPLOY, APPS);
    const widget: Obj = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: APPS },
    };
    await createWork(
      'cluster1',
      'bundle',
      [
        deployment('web', 2),
        configMap('cfg', { v: '1' }),
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: APPS } },
        widget,
      ],
      {
        manifestConfigs: [
          {
            resourceIdentifier: { group: 'apps', resource: 'deployments', name: 'web', namespace: APPS },
            feedbackRules: [
              { type: 'WellKnownStatus' },
              {
                type: 'JSONPaths',
                jsonPaths: [
                  { name: 'ready', path: '.status.readyReplicas' },
                  { name: 'available', path: '.status.conditions[?(@.type=="Available")].status' },
                ],
              },
            ],
            conditionRules: [
              {
                condition: 'AllReady',
                type: 'CEL',
                celExpressions: ['object.status.readyReplicas == object.spec.replicas'],
                message: 'every replica is ready',
              },
            ],
          },
          {
            resourceIdentifier: { group: '', resource: 'configmaps', name: 'cfg', namespace: APPS },
            conditionRules: [{ condition: 'Broken', type: 'CEL', celExpressions: ['object.data.('] }],
          },
        ],
      },
      { team: 'blue' },
    );
    const w = await settled(
      'cluster1',
      'bundle',
      (x) => cond(manifestAt(x, 0)?.conditions, 'Applied')?.status === 'True',
    );
    assert.ok(w.metadata.finalizers?.includes(MANIFEST_WORK_FINALIZER));
    // Namespace (rank 0) before ConfigMap (3) before Deployment (5), whatever the spec's order.
    const added = (l: WriteLog, name: string) =>
      BigInt(l.events.find((e) => e.type === 'ADDED' && e.name === name)?.rv ?? '0');
    const [nsRv, cmRv, deployRv] = [added(logs.ns, APPS), added(logs.cm, 'cfg'), added(logs.deploy, 'web')];
    assert.ok(nsRv > 0n && nsRv < cmRv && cmRv < deployRv, `creation order ${nsRv} < ${cmRv} < ${deployRv}`);
    for (const l of Object.values(logs)) await l.stop();

    for (const ordinal of [0, 1, 2]) {
      assert.equal(
        cond(manifestAt(w, ordinal)?.conditions, 'Applied')?.status,
        'True',
        `manifest ${ordinal} applied`,
      );
      assert.equal(
        cond(manifestAt(w, ordinal)?.conditions, 'Available')?.status,
        'True',
        `manifest ${ordinal} available`,
      );
    }
    const unknown = manifestAt(w, 3);
    assert.equal(cond(unknown?.conditions, 'Applied')?.status, 'False');
    assert.equal(cond(unknown?.conditions, 'Applied')?.reason, 'AppliedManifestFailed');
    assert.equal(unknown?.resourceMeta.kind, 'Widget');
    assert.equal(
      cond(w.status?.conditions as Cond[], 'Applied')?.status,
      'False',
      'not every manifest is applied',
    );
    const broken = cond(manifestAt(w, 1)?.conditions, 'Broken');
    assert.equal(broken?.status, 'False');
    assert.equal(broken?.reason, 'ConditionRuleExpressionError', JSON.stringify(broken));

    // The AMW: named by the hub hash, labels from the work, and the owner of what was applied.
    const amwName = appliedManifestWorkName(hash, 'bundle');
    const amw = await c1.get<AppliedManifestWork>(AMW_TYPE, amwName);
    assert.deepEqual(amw.spec, { hubHash: hash, agentID: amw.spec?.agentID, manifestWorkName: 'bundle' });
    assert.equal(amw.metadata.labels?.team, 'blue');
    const web = await c1.get<Obj>(DEPLOY, 'web', APPS);
    assert.deepEqual(web.metadata.ownerReferences, [
      { apiVersion: API_VERSION, kind: AMW_KIND, name: amwName, uid: amw.metadata.uid },
    ]);
    assert.ok(web.metadata.annotations?.[OBJECT_HASH_ANNOTATION]);
    assert.deepEqual((amw.status?.appliedResources ?? []).map((r) => `${r.resource}/${r.name}`).sort(), [
      'configmaps/cfg',
      'deployments/web',
      'namespaces/mw-apps',
    ]);

    // kwok runs the pods: WellKnownStatus and JSONPaths feedback, and the CEL rule, follow them.
    const ready = await eventually(
      'feedback and the rule from ready pods',
      () => work('cluster1', 'bundle'),
      (x) =>
        feedback(manifestAt(x, 0), 'ReadyReplicas') === 2 &&
        cond(manifestAt(x, 0)?.conditions, 'AllReady')?.status === 'True',
      40_000,
    );
    assert.equal(feedback(manifestAt(ready, 0), 'ready'), 2);
    assert.equal(feedback(manifestAt(ready, 0), 'Replicas'), 2);
    const available = manifestAt(ready, 0)?.statusFeedback?.values?.find((v) => v.name === 'available');
    assert.deepEqual(available?.fieldValue, { type: 'String', string: 'True' });
    assert.equal(cond(manifestAt(ready, 0)?.conditions, 'AllReady')?.reason, 'ConditionRuleEvaluated');
    assert.equal(cond(manifestAt(ready, 0)?.conditions, 'StatusFeedbackSynced')?.status, 'True');

    // A status resync that finds nothing new writes nothing.
    const quiet = await work('cluster1', 'bundle');
    await new Promise((r) => setTimeout(r, 11_000));
    assert.deepEqual((await work('cluster1', 'bundle'))?.status, quiet?.status);
    assert.equal(
      (await work('cluster1', 'bundle'))?.metadata.resourceVersion,
      quiet?.metadata.resourceVersion,
    );

    // Re-applying unchanged content writes nothing: a change of the work's labels makes the agent
    // reconcile (the AMW follows the label), and neither the Deployment's generation nor the ConfigMap moves.
    const [before, cfgBefore] = [await c1.get<Obj>(DEPLOY, 'web', APPS), await c1.get<Obj>(CM, 'cfg', APPS)];
    await updateWork('cluster1', 'bundle', (x) => {
      x.metadata.labels = { team: 'green' };
    });
    await eventually(
      'the AMW relabelled',
      () => c1.get<AppliedManifestWork>(AMW_TYPE, amwName),
      (a) => a.metadata.labels?.team === 'green',
    );
    assert.equal((await c1.get<Obj>(DEPLOY, 'web', APPS)).metadata.generation, before.metadata.generation);
    assert.equal(
      (await c1.get<Obj>(CM, 'cfg', APPS)).metadata.resourceVersion,
      cfgBefore.metadata.resourceVersion,
    );
  });

  test('update strategies: Update keeps what the member added, CreateOnly never updates, ServerSideApply conflicts without force, wins with it and leaves ignoreFields to the member, ReadOnly only reads', async () => {
    const ns = 'mw-strategies';
    await c2.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    // Objects already on the member: one for ReadOnly, and one whose field another manager owns.
    await c2.create(CM, configMap('ro', { v: 'member' }, ns));
    await c2.patch(CM, 'ssa', configMap('ssa', { k: 'theirs' }, ns), {
      namespace: ns,
      patchType: 'apply',
      fieldManager: 'someone-else',
    });
    const configs = (force: boolean) => [
      strategy('co', ns, { type: 'CreateOnly' }),
      strategy('ssa', ns, {
        type: 'ServerSideApply',
        serverSideApply: { force, fieldManager: 'work-agent' },
      }),
      strategy('ro', ns, { type: 'ReadOnly' }),
      strategy('ro-missing', ns, { type: 'ReadOnly' }),
      strategy('ign', ns, {
        type: 'ServerSideApply',
        serverSideApply: { ignoreFields: [{ condition: 'OnSpokePresent', jsonPaths: ['.data.b'] }] },
      }),
      strategy('bad-path', ns, {
        type: 'ServerSideApply',
        serverSideApply: { ignoreFields: [{ condition: 'OnSpokePresent', jsonPaths: ['.data[?(@.x.b'] }] },
      }),
    ];
    const manifests = (v: string) => [
      configMap('up', { v }, ns),
      configMap('co', { v }, ns),
      configMap('ssa', { k: 'ours' }, ns),
      configMap('ro', { v }, ns),
      configMap('ro-missing', { v }, ns),
      configMap('ign', { a: v, b: v }, ns),
      configMap('bad-path', { v }, ns),
    ];
    await createWork('cluster2', 'strategies', manifests('1'), { manifestConfigs: configs(false) });
    let w = await settled('cluster2', 'strategies', (x) => manifestsOf(x).length === 7);
    const applied = (x: ManifestWork, i: number) => cond(manifestAt(x, i)?.conditions, 'Applied');
    assert.equal(applied(w, 0)?.status, 'True');
    assert.equal(applied(w, 1)?.status, 'True');
    assert.equal(applied(w, 2)?.status, 'False', 'a field another manager owns: conflict');
    assert.match(applied(w, 2)?.message ?? '', /conflict/i);
    assert.equal(applied(w, 3)?.status, 'True');
    assert.equal(applied(w, 4)?.status, 'False', 'ReadOnly never creates');
    assert.equal(await getOrUndefined(c2, CM, 'ro-missing', ns), undefined);
    assert.equal((await c2.get<Obj>(CM, 'ssa', ns)).data?.k, 'theirs');
    assert.equal(applied(w, 5)?.status, 'True');
    assert.equal(applied(w, 6)?.reason, 'AppliedManifestSSAIgnoreFieldError');
    // The member changes the ignored field; the work's next version leaves it as the member set it.
    const ign = await c2.get<Obj>(CM, 'ign', ns);
    await c2.update(CM, { ...ign, data: { ...ign.data, b: 'member' } });

    // The member adds a finalizer and a label to the Update object: a new version keeps both.
    const up = await c2.get<Obj>(CM, 'up', ns);
    await c2.update(CM, {
      ...up,
      metadata: { ...up.metadata, finalizers: ['example.com/keep'], labels: { member: 'yes' } },
    });
    await updateWork('cluster2', 'strategies', (x) => {
      x.spec.workload = { manifests: manifests('2') };
      x.spec.manifestConfigs = configs(true);
    });
    w = await settled('cluster2', 'strategies', (x) => applied(x, 2)?.status === 'True');
    assert.deepEqual((await c2.get<Obj>(CM, 'ign', ns)).data, { a: '2', b: 'member' });
    const up2 = await c2.get<Obj>(CM, 'up', ns);
    assert.equal(up2.data?.v, '2');
    assert.deepEqual(up2.metadata.finalizers, ['example.com/keep']);
    assert.equal(up2.metadata.labels?.member, 'yes');
    assert.equal((await c2.get<Obj>(CM, 'co', ns)).data?.v, '1', 'CreateOnly does not update');
    assert.equal((await c2.get<Obj>(CM, 'ssa', ns)).data?.k, 'ours', 'force takes the field over');
    const ro = await c2.get<Obj>(CM, 'ro', ns);
    assert.equal(ro.data?.v, 'member', 'ReadOnly does not write');
    assert.equal(ro.metadata.ownerReferences, undefined);
    await c2.patch(CM, 'up', { metadata: { finalizers: null } }, { namespace: ns, patchType: 'merge' });
  });

  test('an executor without permission creates nothing until RBAC allows it; an object another front manages is left alone', async () => {
    const ns = 'mw-executor';
    await c2.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    // Propagated by a Federated<Kind> (the managed label, no owner annotation): not the work's to take.
    await c2.create(CM, {
      ...configMap('theirs', { v: 'fed' }, ns),
      metadata: { name: 'theirs', namespace: ns, labels: { 'kubefed.io/managed': 'true' } },
    });
    await createWork('cluster2', 'fronts', [
      configMap('theirs', { v: 'work' }, ns),
      configMap('mine', { v: 'work' }, ns),
    ]);
    const fronts = await settled('cluster2', 'fronts', (x) => manifestsOf(x).length === 2);
    assert.equal(cond(manifestAt(fronts, 0)?.conditions, 'Applied')?.status, 'False');
    assert.match(
      cond(manifestAt(fronts, 0)?.conditions, 'Applied')?.message ?? '',
      /the object is managed by a federated object of the same name/,
    );
    assert.equal(cond(manifestAt(fronts, 1)?.conditions, 'Applied')?.status, 'True');
    assert.equal((await c2.get<Obj>(CM, 'theirs', ns)).data?.v, 'fed');

    await createWork('cluster2', 'executed', [configMap('by-sa', { v: '1' }, ns)], {
      executor: { subject: { type: 'ServiceAccount', serviceAccount: { namespace: ns, name: 'deployer' } } },
    });
    const denied = await settled('cluster2', 'executed', (x) => manifestsOf(x).length === 1);
    assert.equal(cond(manifestAt(denied, 0)?.conditions, 'Applied')?.status, 'False');
    assert.match(
      cond(manifestAt(denied, 0)?.conditions, 'Applied')?.message ?? '',
      /not allowed to apply the resource {2}configmaps, mw-executor by-sa/,
    );
    assert.equal(await getOrUndefined(c2, CM, 'by-sa', ns), undefined);
    const RBAC = (plural: string, kind: string): ResourceType => ({
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      plural,
      namespaced: true,
      kind,
    });
    await c2.create(RBAC('roles', 'Role'), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'deployer', namespace: ns },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'update', 'patch', 'get', 'delete'] },
      ],
    });
    await c2.create(RBAC('rolebindings', 'RoleBinding'), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'deployer', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' },
      subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: ns }],
    });
    await eventually(
      'applied once allowed',
      () => getOrUndefined<Obj>(c2, CM, 'by-sa', ns),
      (o) => o?.data?.v === '1',
      30_000,
    );
  });

  test('delete options: Foreground deletes everything and a manifest left out of the bundle, an AMW deleted on the member takes its resources and is remade; Orphan keeps all without ownerRefs; SelectivelyOrphan keeps the listed one', async () => {
    const ns = 'default';
    await createWork('cluster1', 'fg', [
      configMap('fg-a', { v: '1' }, ns),
      configMap('fg-b', { v: '1' }, ns),
    ]);
    await createWork('cluster1', 'orph', [configMap('orph-a', { v: '1' }, ns)], {
      deleteOption: { propagationPolicy: 'Orphan' },
    });
    await createWork(
      'cluster1',
      'sel',
      [configMap('sel-keep', { v: '1' }, ns), configMap('sel-drop', { v: '1' }, ns)],
      {
        deleteOption: {
          propagationPolicy: 'SelectivelyOrphan',
          selectivelyOrphans: {
            orphaningRules: [{ group: '', resource: 'configmaps', name: 'sel-keep', namespace: ns }],
          },
        },
      },
    );
    for (const name of ['fg', 'orph', 'sel']) {
      await settled(
        'cluster1',
        name,
        (x) => cond(x.status?.conditions as Cond[], 'Applied')?.status === 'True',
      );
    }
    // Left out of the bundle: deleted from the member, and from the AMW's record.
    await updateWork('cluster1', 'fg', (x) => {
      x.spec.workload = { manifests: [configMap('fg-a', { v: '1' }, ns)] };
    });
    await gone(c1, CM, 'fg-b', ns);
    await eventually(
      'fg-b out of appliedResources',
      () => c1.get<AppliedManifestWork>(AMW_TYPE, appliedManifestWorkName(hash, 'fg')),
      (a) => (a.status?.appliedResources ?? []).map((r) => r.name).join() === 'fg-a',
    );

    // The AMW deleted on the member takes its resources along; the work, still there, applies them again.
    const fgAmw = await c1.get<AppliedManifestWork>(AMW_TYPE, appliedManifestWorkName(hash, 'fg'));
    const fgA = await c1.get<Obj>(CM, 'fg-a', ns);
    await c1.delete(AMW_TYPE, fgAmw.metadata.name ?? '');
    const again = await eventually(
      'fg-a applied again under a new AMW',
      () => getOrUndefined<Obj>(c1, CM, 'fg-a', ns),
      (o) => o !== undefined && o.metadata.uid !== fgA.metadata.uid,
    );
    const newAmw = await c1.get<AppliedManifestWork>(AMW_TYPE, appliedManifestWorkName(hash, 'fg'));
    assert.notEqual(newAmw.metadata.uid, fgAmw.metadata.uid);
    assert.deepEqual(
      ((again?.metadata.ownerReferences ?? []) as Array<{ uid: string }>).map((r) => r.uid),
      [newAmw.metadata.uid],
    );

    // A member finalizer holds fg-a: the Foreground work waits for it, Deleting meanwhile.
    await c1.patch(
      CM,
      'fg-a',
      { metadata: { finalizers: ['example.com/hold'] } },
      { namespace: ns, patchType: 'merge' },
    );
    for (const name of ['fg', 'orph', 'sel']) await host.delete(MW_TYPE, name, { namespace: 'cluster1' });
    const waiting = await eventually(
      'fg deleting, waiting for fg-a',
      () => work('cluster1', 'fg'),
      (x) => cond(x?.status?.conditions as Cond[], 'Deleting')?.status === 'True',
    );
    assert.ok(waiting?.metadata.deletionTimestamp);
    // Deleting is said first; the agent then deletes the resources, and fg-a waits on its finalizer.
    await eventually(
      'fg-a being deleted',
      () => c1.get<Obj>(CM, 'fg-a', ns),
      (x) => x.metadata.deletionTimestamp !== undefined,
    );
    await c1.patch(CM, 'fg-a', { metadata: { finalizers: null } }, { namespace: ns, patchType: 'merge' });
    for (const name of ['fg', 'orph', 'sel']) {
      await eventually(
        `${name} gone from the hub`,
        () => work('cluster1', name),
        (x) => x === undefined,
      );
      assert.equal(await getOrUndefined(c1, AMW_TYPE, appliedManifestWorkName(hash, name)), undefined);
    }
    assert.equal(
      await getOrUndefined(c1, CM, 'fg-a', ns),
      undefined,
      'Foreground deleted it before the work went',
    );
    const orphan = await c1.get<Obj>(CM, 'orph-a', ns);
    assert.equal(orphan.metadata.ownerReferences, undefined);
    const kept = await c1.get<Obj>(CM, 'sel-keep', ns);
    assert.equal(kept.metadata.ownerReferences, undefined);
    await gone(c1, CM, 'sel-drop', ns);
  });
});
