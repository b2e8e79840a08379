// Native resources: plain objects on the federation API server (the host, which runs only the namespace,
// garbage-collector and token controllers), placed by Karmada's PropagationPolicy / ClusterPropagationPolicy
// and shaped by OverridePolicy, onto kwok members that really run the workloads. One federation for the file.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  CPP_PERMANENT_ID_LABEL,
  PP_NAME_ANNOTATION,
  PP_NAMESPACE_ANNOTATION,
  PP_PERMANENT_ID_LABEL,
} from '../../src/api/policy/v1alpha1/index.ts';
import { OWNER_ANNOTATION } from '../../src/engine/ownership.ts';
import {
  CoreTypes,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import { MANAGED_LABEL } from '../../src/propagation/constants.ts';
import { jsonEqual } from '../../src/propagation/json.ts';
import { Informer } from '../../src/runtime/informer/informer.ts';
import { BindingTypes } from '../../src/sources/policy/bindings.ts';
import { PolicyTypes } from '../../src/sources/policy/policies.ts';
import { FIRST_STATUS_GRACE_MS } from '../../src/sources/policy/scheduler.ts';
import { binary } from '../../src/testing/binaries.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { startKubefedControllerManager } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';
import { scrape, value } from '../../src/testing/prometheus.ts';
import {
  apiserverWrites,
  createFederatedNamespace,
  establishCrd,
  eventually,
  federatedConfigMap,
  getOrUndefined,
  startPropagation,
  T,
  writesBetween,
} from './federation-helpers.ts';
import { NS } from './helpers.ts';

const run = promisify(execFile);
const NSA = 'apps';
const DEPLOY: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};
const CM = CoreTypes.configMaps;
const SECRET = CoreTypes.secrets;
type Obj = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
};
type Binding = KubeObject & {
  spec: { clusters?: Array<{ name: string; replicas?: number }> };
  status?: {
    conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
    aggregatedStatus?: Array<{
      clusterName: string;
      applied?: boolean;
      appliedMessage?: string;
      health?: string;
    }>;
  };
};

function deployment(name: string, replicas: number, extra: Record<string, unknown> = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NSA, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.example/team/web:1.0', ...extra }] },
      },
    },
  };
}

function configMap(name: string, data: Record<string, string>, labels: Record<string, string> = {}): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NSA, labels }, data };
}

function pp(name: string, spec: Record<string, unknown>, namespace = NSA): Obj {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name, namespace },
    spec,
  };
}

function onClusters(...clusterNames: string[]) {
  return { clusterAffinity: { clusterNames } };
}

function selector(
  kind: string,
  extra: Record<string, unknown> = {},
  apiVersion = kind === 'Deployment' ? 'apps/v1' : 'v1',
) {
  return { apiVersion, kind, ...extra };
}

describe('native resources placed by Karmada policies', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let c1: KubeClient;
  let c2: KubeClient;

  const member = (c: KubeClient, type: ResourceType, name: string, ns = NSA) =>
    getOrUndefined<Obj>(c, type, name, ns);
  const binding = (name: string, ns = NSA) =>
    getOrUndefined<Binding>(host, BindingTypes.ResourceBinding, name, ns);
  const claimOf = async (type: ResourceType, name: string) =>
    (await getOrUndefined<Obj>(host, type, name, NSA))?.metadata.annotations?.[PP_NAME_ANNOTATION];
  const deletePolicy = (name: string) => host.delete(PolicyTypes.PropagationPolicy, name, { namespace: NSA });

  before(async () => {
    fed = await startFederation({
      members: ['cluster1', 'cluster2'],
      workloads: true,
      hostControllers: 'federation-apiserver',
    });
    ({ host, cm } = await startPropagation(fed));
    c1 = fed.cluster('cluster1').client();
    c2 = fed.cluster('cluster2').client();
    await host.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NSA } });
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('a plain Deployment and a PropagationPolicy: it runs on the members, follows replica changes, and its own status is the fleet’s', async () => {
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('web', {
        resourceSelectors: [selector('Deployment', { name: 'web' })],
        placement: onClusters('cluster1', 'cluster2'),
      }),
    );
    await host.create(DEPLOY, deployment('web', 2));
    for (const c of [c1, c2]) {
      const d = await eventually(
        'web in a member',
        () => member(c, DEPLOY, 'web'),
        (o) => o?.spec?.replicas === 2,
      );
      assert.equal(d?.metadata.annotations?.[PP_NAME_ANNOTATION], 'web');
      assert.equal(d?.metadata.annotations?.[PP_NAMESPACE_ANNOTATION], NSA);
      assert.ok(d?.metadata.labels?.[PP_PERMANENT_ID_LABEL]);
      assert.equal(d?.metadata.labels?.[MANAGED_LABEL], 'true');
    }
    const rb = await eventually(
      'the binding scheduled and fully applied',
      () => binding('web-deployment'),
      (b) =>
        b?.spec.clusters?.length === 2 &&
        b.status?.conditions?.some((c) => c.type === 'Scheduled' && c.status === 'True') === true &&
        b.status?.conditions?.some((c) => c.type === 'FullyApplied' && c.status === 'True') === true,
    );
    assert.deepEqual(rb?.spec.clusters, [
      { name: 'cluster1', replicas: 2 },
      { name: 'cluster2', replicas: 2 },
    ]);
    // The kwok pods become ready in both members: the template's status sums them.
    await eventually(
      'the fleet status on the template',
      () => member(host, DEPLOY, 'web'),
      (o) => o?.status?.readyReplicas === 4 && o?.status?.availableReplicas === 4,
    );
    const { stdout } = await run(binary('kubectl'), [
      '--kubeconfig',
      fed.kubeconfigPath,
      '--context',
      'host',
      '-n',
      NSA,
      'rollout',
      'status',
      'deployment/web',
      '--timeout=60s',
    ]);
    assert.match(stdout, /successfully rolled out/);

    const live = await host.get<Obj>(DEPLOY, 'web', NSA);
    await host.update(DEPLOY, { ...live, spec: { ...live.spec, replicas: 3 } });
    for (const c of [c1, c2])
      await eventually(
        '3 replicas in a member',
        () => member(c, DEPLOY, 'web'),
        (o) => o?.spec?.replicas === 3,
      );
    const scaled = await eventually(
      '6 ready in the fleet',
      () => member(host, DEPLOY, 'web'),
      (o) => o?.status?.readyReplicas === 6,
    );
    assert.equal(scaled?.status?.observedGeneration, scaled?.metadata.generation);
  });

  test('a binding created with its schedule has its status written once: Scheduled and FullyApplied together', async () => {
    // Every status write of this one binding, as its watch delivers them.
    const statusWrites: Array<Binding['status']> = [];
    const watch = new Informer<Binding>({
      client: host,
      type: BindingTypes.ResourceBinding,
      namespace: NSA,
      fieldSelector: 'metadata.name=once-configmap',
    });
    watch.addHandlers({
      onUpdate: (old, b) => {
        if (!jsonEqual(old.status ?? {}, b.status ?? {})) statusWrites.push(b.status);
      },
    });
    watch.start();
    try {
      await watch.waitForSync();
      await host.create(
        PolicyTypes.PropagationPolicy,
        pp('once', {
          resourceSelectors: [selector('ConfigMap', { name: 'once' })],
          placement: onClusters('cluster1', 'cluster2'),
        }),
      );
      await host.create(CM, configMap('once', { a: '1' }));
      const rb = await eventually(
        'the binding reported on',
        async () => watch.store.get(`${NSA}/once-configmap`),
        (b) => b?.status?.conditions?.some((c) => c.type === 'FullyApplied') === true,
      );
      assert.ok((rb?.spec.clusters ?? []).length === 2, 'created with its clusters');
      // Past the scheduler's grace (FIRST_STATUS_GRACE_MS from the creation): it finds its fields written.
      const created = Date.parse(rb?.metadata.creationTimestamp ?? '');
      await new Promise((r) =>
        setTimeout(r, Math.max(0, created + FIRST_STATUS_GRACE_MS + 2_000 - Date.now())),
      );
      assert.equal(statusWrites.length, 1, JSON.stringify(statusWrites));
      const types = (statusWrites[0]?.conditions ?? []).map((c) => `${c.type}=${c.status}`);
      assert.ok(types.includes('Scheduled=True') && types.includes('FullyApplied=True'), types.join(', '));
      const scheduledEvents = (
        await host.list<KubeObject & { reason?: string; count?: number }>(CoreTypes.events, {
          namespace: NSA,
          fieldSelector: 'involvedObject.name=once-configmap',
        })
      ).items.filter((e) => e.reason === 'ScheduleBindingSucceed');
      assert.equal(
        scheduledEvents.reduce((n, e) => n + (e.count ?? 1), 0),
        1,
      );
    } finally {
      await watch.stop();
    }
  });

  test('precedence: name beats label beats kind, explicit priority beats all, ties go to the smaller name, a PP beats any CPP; deleting the winner hands the template on', async () => {
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('p-kind', { resourceSelectors: [selector('ConfigMap')], placement: onClusters('cluster1') }),
    );
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('p-label', {
        resourceSelectors: [selector('ConfigMap', { labelSelector: { matchLabels: { tier: 'prec' } } })],
        placement: onClusters('cluster2'),
      }),
    );
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('p-name', {
        resourceSelectors: [selector('ConfigMap', { name: 'prec' })],
        placement: onClusters('cluster1', 'cluster2'),
      }),
    );
    await host.create(PolicyTypes.ClusterPropagationPolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'ClusterPropagationPolicy',
      metadata: { name: 'c-all' },
      spec: {
        priority: 100,
        resourceSelectors: [selector('ConfigMap', { name: 'prec' })],
        placement: onClusters('cluster2'),
      },
    });
    await host.create(CM, configMap('prec', { v: '1' }, { tier: 'prec' }));
    await eventually(
      'prec claimed by the name match',
      () => claimOf(CM, 'prec'),
      (n) => n === 'p-name',
    );
    const tmpl = await host.get<Obj>(CM, 'prec', NSA);
    assert.equal(
      tmpl.metadata.labels?.[CPP_PERMANENT_ID_LABEL],
      undefined,
      'a PP claim beats a CPP of higher priority',
    );
    for (const c of [c1, c2])
      await eventually(
        'prec in both members',
        () => member(c, CM, 'prec'),
        (o) => o?.data?.v === '1',
      );

    // Deleting the winner: the label match takes it, and its placement moves the copies to cluster2 only.
    await deletePolicy('p-name');
    await eventually(
      'prec claimed by the label match',
      () => claimOf(CM, 'prec'),
      (n) => n === 'p-label',
    );
    await eventually(
      'prec gone from cluster1',
      () => member(c1, CM, 'prec'),
      (o) => o === undefined,
    );
    assert.equal((await member(c2, CM, 'prec'))?.data?.v, '1');

    // Explicit priority beats implicit; equal priority goes to the smaller name.
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('z-prio', {
        priority: 5,
        resourceSelectors: [selector('ConfigMap', { labelSelector: { matchLabels: { tier: 'prio' } } })],
        placement: onClusters('cluster1'),
      }),
    );
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('y-prio', {
        priority: 5,
        resourceSelectors: [selector('ConfigMap')],
        placement: onClusters('cluster2'),
      }),
    );
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('a-low', {
        priority: 1,
        resourceSelectors: [selector('ConfigMap', { name: 'prio' })],
        placement: onClusters('cluster2'),
      }),
    );
    await host.create(CM, configMap('prio', { v: '1' }, { tier: 'prio' }));
    // Both priority-5 policies out-rank the name match; between them the label match is more specific.
    await eventually(
      'prio claimed by the label match of priority 5',
      () => claimOf(CM, 'prio'),
      (n) => n === 'z-prio',
    );
    await host.create(CM, configMap('tie', { v: '1' }, {}));
    await eventually(
      'tie claimed by the only priority-5 match',
      () => claimOf(CM, 'tie'),
      (n) => n === 'y-prio',
    );
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('x-prio', {
        priority: 5,
        resourceSelectors: [selector('ConfigMap')],
        placement: onClusters('cluster1'),
      }),
    );
    await host.create(CM, configMap('tie2', { v: '1' }, {}));
    await eventually(
      'equal priority and specificity: the smaller name',
      () => claimOf(CM, 'tie2'),
      (n) => n === 'x-prio',
    );
    for (const name of ['p-kind', 'p-label', 'z-prio', 'y-prio', 'x-prio', 'a-low']) await deletePolicy(name);
    await host.delete(PolicyTypes.ClusterPropagationPolicy, 'c-all');
  });

  test('policy deletion keeps the copies; selector and placement edits move them', async () => {
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('moves', {
        resourceSelectors: [selector('ConfigMap', { name: 'moving' })],
        placement: onClusters('cluster1'),
      }),
    );
    await host.create(CM, configMap('moving', { v: '1' }));
    await eventually(
      'moving in cluster1',
      () => member(c1, CM, 'moving'),
      (o) => o?.data?.v === '1',
    );
    const p = await host.get<Obj>(PolicyTypes.PropagationPolicy, 'moves', NSA);
    await host.update(PolicyTypes.PropagationPolicy, {
      ...p,
      spec: { ...p.spec, placement: onClusters('cluster2') },
    });
    await eventually(
      'moving in cluster2',
      () => member(c2, CM, 'moving'),
      (o) => o?.data?.v === '1',
    );
    await eventually(
      'moving gone from cluster1',
      () => member(c1, CM, 'moving'),
      (o) => o === undefined,
    );

    // A selector that no longer matches releases the template; the copies stay.
    const p2 = await host.get<Obj>(PolicyTypes.PropagationPolicy, 'moves', NSA);
    await host.update(PolicyTypes.PropagationPolicy, {
      ...p2,
      spec: { ...p2.spec, resourceSelectors: [selector('ConfigMap', { name: 'other' })] },
    });
    await eventually(
      'moving released',
      () => claimOf(CM, 'moving'),
      (n) => n === undefined,
    );
    assert.equal((await member(c2, CM, 'moving'))?.data?.v, '1');

    // Deleting a policy releases what it claims and leaves the member copies (Karmada's rule).
    await host.create(CM, configMap('kept', { v: '1' }));
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('keeper', {
        resourceSelectors: [selector('ConfigMap', { name: 'kept' })],
        placement: onClusters('cluster1'),
      }),
    );
    await eventually(
      'a policy created after its template claims it',
      () => member(c1, CM, 'kept'),
      (o) => o?.data?.v === '1',
    );
    await deletePolicy('keeper');
    await eventually(
      'kept released',
      () => claimOf(CM, 'kept'),
      (n) => n === undefined,
    );
    await eventually(
      'the policy is gone',
      () => getOrUndefined(host, PolicyTypes.PropagationPolicy, 'keeper', NSA),
      (o) => o === undefined,
    );
    assert.equal((await member(c1, CM, 'kept'))?.data?.v, '1');
    await deletePolicy('moves');
  });

  test('every overrider, an OverridePolicy created after propagation, and a key-addressed list path', async () => {
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('ov', {
        resourceSelectors: [
          selector('Deployment', { name: 'ov' }),
          selector('ConfigMap', { name: 'ov-conf' }),
        ],
        placement: onClusters('cluster1', 'cluster2'),
      }),
    );
    await host.create(
      DEPLOY,
      deployment('ov', 1, {
        command: ['/bin/app'],
        args: ['--a'],
        env: [
          { name: 'LOG', value: 'info' },
          { name: 'MODE', value: 'x' },
        ],
      }),
    );
    await host.create(CM, configMap('ov-conf', { 'app.yaml': 'server:\n  port: 80\n' }));
    await eventually(
      'ov in cluster1 before any override',
      () => member(c1, DEPLOY, 'ov'),
      (o) => o !== undefined,
    );
    await host.create(PolicyTypes.OverridePolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'OverridePolicy',
      metadata: { name: 'ov', namespace: NSA },
      spec: {
        resourceSelectors: [selector('Deployment', { name: 'ov' })],
        overrideRules: [
          {
            targetCluster: { clusterNames: ['cluster1'] },
            overriders: {
              imageOverrider: [{ component: 'Registry', operator: 'replace', value: 'mirror.cluster1' }],
              commandOverrider: [{ containerName: 'app', operator: 'add', value: ['--verbose'] }],
              argsOverrider: [{ containerName: 'app', operator: 'add', value: ['--b'] }],
              labelsOverrider: [{ operator: 'add', value: { cluster: 'one' } }],
              annotationsOverrider: [{ operator: 'add', value: { 'note/cluster': 'one' } }],
              plaintext: [
                {
                  path: '/spec/template/spec/containers/[name=app]/env/[name=LOG]/value',
                  operator: 'replace',
                  value: 'debug',
                },
              ],
            },
          },
        ],
      },
    });
    await host.create(PolicyTypes.OverridePolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'OverridePolicy',
      metadata: { name: 'ov-conf', namespace: NSA },
      spec: {
        resourceSelectors: [selector('ConfigMap', { name: 'ov-conf' })],
        overrideRules: [
          {
            targetCluster: { clusterNames: ['cluster1'] },
            overriders: {
              fieldOverrider: [
                {
                  fieldPath: '/data/app.yaml',
                  yaml: [{ subPath: '/server/port', operator: 'replace', value: 8080 }],
                },
              ],
            },
          },
        ],
      },
    });
    const d1 = await eventually(
      'the overrides in cluster1',
      () => member(c1, DEPLOY, 'ov'),
      (o) => {
        const c = (o?.spec?.template as { spec: { containers: Array<Record<string, unknown>> } } | undefined)
          ?.spec.containers[0];
        return c?.image === 'mirror.cluster1/team/web:1.0';
      },
    );
    const container = (
      d1?.spec?.template as { spec: { containers: Array<Record<string, unknown>> } } | undefined
    )?.spec.containers[0];
    assert.deepEqual(container?.command, ['/bin/app', '--verbose']);
    assert.deepEqual(container?.args, ['--a', '--b']);
    assert.deepEqual(container?.env, [
      { name: 'LOG', value: 'debug' },
      { name: 'MODE', value: 'x' },
    ]);
    assert.equal(d1?.metadata.labels?.cluster, 'one');
    assert.equal(d1?.metadata.annotations?.['note/cluster'], 'one');
    const opStatus = await eventually(
      'the OverridePolicy says what it shapes',
      () => getOrUndefined<Obj>(host, PolicyTypes.OverridePolicy, 'ov', NSA),
      (o) => (o?.status as { claimedCount?: number } | undefined)?.claimedCount === 1,
    );
    assert.deepEqual((opStatus?.status as { claimedResources?: unknown } | undefined)?.claimedResources, [
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NSA, name: 'ov' },
    ]);
    const conf = await eventually(
      'the field override in cluster1',
      () => member(c1, CM, 'ov-conf'),
      (o) => o?.data?.['app.yaml']?.includes('8080') === true,
    );
    assert.match(conf?.data?.['app.yaml'] ?? '', /port: 8080/);
    // cluster2 is not a target of the rule.
    const d2 = await member(c2, DEPLOY, 'ov');
    assert.equal(
      (d2?.spec?.template as { spec: { containers: Array<{ image: string }> } } | undefined)?.spec
        .containers[0]?.image,
      'registry.example/team/web:1.0',
    );
    assert.equal((await member(c2, CM, 'ov-conf'))?.data?.['app.yaml'], 'server:\n  port: 80\n');
  });

  test('divided replicas by static weights; a CRD’s objects through a ClusterPropagationPolicy', async () => {
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('split', {
        resourceSelectors: [selector('Deployment', { name: 'split' })],
        placement: {
          clusterAffinity: { clusterNames: ['cluster1', 'cluster2'] },
          replicaScheduling: {
            replicaSchedulingType: 'Divided',
            replicaDivisionPreference: 'Weighted',
            weightPreference: {
              staticWeightList: [
                { targetCluster: { clusterNames: ['cluster1'] }, weight: 1 },
                { targetCluster: { clusterNames: ['cluster2'] }, weight: 2 },
              ],
            },
          },
        },
      }),
    );
    await host.create(DEPLOY, deployment('split', 6));
    await eventually(
      '2 replicas in cluster1',
      () => member(c1, DEPLOY, 'split'),
      (o) => o?.spec?.replicas === 2,
    );
    await eventually(
      '4 replicas in cluster2',
      () => member(c2, DEPLOY, 'split'),
      (o) => o?.spec?.replicas === 4,
    );
    await eventually(
      '6 ready in the fleet',
      () => member(host, DEPLOY, 'split'),
      (o) => o?.status?.readyReplicas === 6,
    );

    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.io' },
      spec: {
        group: 'example.io',
        names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    for (const c of [host, c1, c2]) await establishCrd(c, crd);
    const WIDGET: ResourceType = {
      group: 'example.io',
      version: 'v1',
      plural: 'widgets',
      namespaced: true,
      kind: 'Widget',
    };
    await host.create(PolicyTypes.ClusterPropagationPolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'ClusterPropagationPolicy',
      metadata: { name: 'widgets' },
      spec: {
        resourceSelectors: [{ apiVersion: 'example.io/v1', kind: 'Widget' }],
        placement: onClusters('cluster2'),
      },
    });
    await host.create(WIDGET, {
      apiVersion: 'example.io/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: NSA },
      spec: { size: 3 },
    } as KubeObject);
    const w = await eventually(
      'the widget in cluster2',
      () => member(c2, WIDGET, 'w1'),
      (o) => o !== undefined,
    );
    assert.equal(w?.spec?.size, 3);
    assert.equal(await member(c1, WIDGET, 'w1'), undefined);
  });

  test('a Service and a Job: each member allocates its own cluster IP and Job selector', async () => {
    const SVC: ResourceType = {
      group: '',
      version: 'v1',
      plural: 'services',
      namespaced: true,
      kind: 'Service',
    };
    const JOB: ResourceType = {
      group: 'batch',
      version: 'v1',
      plural: 'jobs',
      namespaced: true,
      kind: 'Job',
    };
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('svc-job', {
        resourceSelectors: [
          selector('Service', { name: 'api' }),
          selector('Job', { name: 'once' }, 'batch/v1'),
        ],
        placement: onClusters('cluster1'),
      }),
    );
    await host.create(SVC, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'api', namespace: NSA },
      spec: { selector: { app: 'api' }, ports: [{ port: 80 }] },
    } as KubeObject);
    await host.create(JOB, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'once', namespace: NSA },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    } as KubeObject);
    const hostSvc = await host.get<Obj>(SVC, 'api', NSA);
    const svc = await eventually(
      'the Service in cluster1',
      () => member(c1, SVC, 'api'),
      (o) => o !== undefined,
    );
    assert.ok(svc?.spec?.clusterIP, 'cluster1 allocated a cluster IP');
    assert.deepEqual(svc?.spec?.ports, hostSvc.spec?.ports);
    const hostJob = await host.get<Obj>(JOB, 'once', NSA);
    const job = await eventually(
      'the Job in cluster1',
      () => member(c1, JOB, 'once'),
      (o) => o !== undefined,
    );
    const selectorOf = (o: Obj | undefined) =>
      (o?.spec?.selector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels?.[
        'batch.kubernetes.io/controller-uid'
      ];
    assert.equal(selectorOf(job), job?.metadata.uid, "the member's selector names the member's own Job");
    assert.notEqual(selectorOf(job), selectorOf(hostJob));
  });

  test('propagateDeps sends the ConfigMaps and Secrets a pod template references, and removes them when no longer referenced', async () => {
    await host.create(CM, configMap('deps-env', { A: '1' }));
    await host.create(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'deps-secret', namespace: NSA },
      stringData: { token: 't' },
    } as KubeObject);
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('deps', {
        propagateDeps: true,
        resourceSelectors: [selector('Deployment', { name: 'deps' })],
        placement: onClusters('cluster1'),
      }),
    );
    const d = deployment('deps', 1, { envFrom: [{ configMapRef: { name: 'deps-env' } }] });
    (d.spec as { template: { spec: Record<string, unknown> } }).template.spec.volumes = [
      { name: 's', secret: { secretName: 'deps-secret' } },
    ];
    await host.create(DEPLOY, d);
    await eventually(
      'the ConfigMap in cluster1',
      () => member(c1, CM, 'deps-env'),
      (o) => o?.data?.A === '1',
    );
    await eventually(
      'the Secret in cluster1',
      () => member(c1, SECRET, 'deps-secret'),
      (o) => o !== undefined,
    );
    assert.equal(await member(c2, CM, 'deps-env'), undefined, 'only where the depender goes');
    const live = await host.get<Obj>(DEPLOY, 'deps', NSA);
    const spec = structuredClone(live.spec) as { template: { spec: Record<string, unknown> } };
    delete spec.template.spec.volumes;
    await host.update(DEPLOY, { ...live, spec });
    await eventually(
      'the Secret removed from cluster1',
      () => member(c1, SECRET, 'deps-secret'),
      (o) => o === undefined,
    );
    assert.equal((await member(c1, CM, 'deps-env'))?.data?.A, '1');
  });

  test('a member object that exists and is not ours: left alone and reported under Abort, taken over under Overwrite', async () => {
    await c1
      .create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NSA } })
      .catch(() => undefined);
    await c1.create(CM, configMap('pre', { owner: 'member' }));
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('pre', {
        resourceSelectors: [selector('ConfigMap', { name: 'pre' })],
        placement: onClusters('cluster1'),
      }),
    );
    await host.create(CM, configMap('pre', { owner: 'federation' }));
    const rb = await eventually(
      'the conflict reported',
      () => binding('pre-configmap'),
      (b) => b?.status?.aggregatedStatus?.[0]?.applied === false,
    );
    assert.match(rb?.status?.aggregatedStatus?.[0]?.appliedMessage ?? '', /AlreadyExists/);
    assert.equal((await member(c1, CM, 'pre'))?.data?.owner, 'member');
    const p = await host.get<Obj>(PolicyTypes.PropagationPolicy, 'pre', NSA);
    await host.update(PolicyTypes.PropagationPolicy, {
      ...p,
      spec: { ...p.spec, conflictResolution: 'Overwrite' },
    });
    await eventually(
      'taken over',
      () => member(c1, CM, 'pre'),
      (o) => o?.data?.owner === 'federation',
    );
  });

  test('a Federated<Kind> and a policy on the same member object: neither changes the other’s copy', async () => {
    await createFederatedNamespace(host, 'mixed', ['cluster1']);
    await eventually(
      'mixed in cluster1',
      () => getOrUndefined(c1, T.namespaces, 'mixed'),
      (n) => n !== undefined,
    );
    await host.create(T.fcm, federatedConfigMap('shared', 'mixed', { from: 'federated' }, ['cluster1']));
    await eventually(
      'the federated copy',
      () => member(c1, CM, 'shared', 'mixed'),
      (o) => o?.data?.from === 'federated',
    );
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp(
        'shared',
        { resourceSelectors: [selector('ConfigMap', { name: 'shared' })], placement: onClusters('cluster1') },
        'mixed',
      ),
    );
    await host.create(CM, {
      ...configMap('shared', { from: 'policy' }),
      metadata: { name: 'shared', namespace: 'mixed' },
    });
    const rb = await eventually(
      'the policy side told who owns it',
      () => binding('shared-configmap', 'mixed'),
      (b) => b?.status?.aggregatedStatus?.[0]?.applied === false,
    );
    assert.match(rb?.status?.aggregatedStatus?.[0]?.appliedMessage ?? '', /AlreadyOwned/);
    const copy = await member(c1, CM, 'shared', 'mixed');
    assert.equal(copy?.data?.from, 'federated');
    assert.equal(copy?.metadata.annotations?.[OWNER_ANNOTATION], undefined);
  });

  test('bad input: a missing override path, unknown clusters and an invalid selector get a clear status; nothing else is disturbed', async () => {
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('bad-path', {
        resourceSelectors: [selector('ConfigMap', { name: 'bad-path' })],
        placement: onClusters('cluster1', 'cluster2', 'cluster9'),
      }),
    );
    await host.create(CM, configMap('bad-path', { v: '1' }));
    await eventually(
      'bad-path in cluster2',
      () => member(c2, CM, 'bad-path'),
      (o) => o?.data?.v === '1',
    );
    await host.create(PolicyTypes.OverridePolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'OverridePolicy',
      metadata: { name: 'bad-path', namespace: NSA },
      spec: {
        resourceSelectors: [selector('ConfigMap', { name: 'bad-path' })],
        overrideRules: [
          {
            targetCluster: { clusterNames: ['cluster1'] },
            overriders: { plaintext: [{ path: '/data/missing/deeper', operator: 'replace', value: 'x' }] },
          },
        ],
      },
    });
    const rb = await eventually(
      'the override failure reported for cluster1',
      () => binding('bad-path-configmap'),
      (b) =>
        b?.status?.aggregatedStatus?.some((i) => i.clusterName === 'cluster1' && i.applied === false) ===
        true,
    );
    assert.match(
      rb?.status?.aggregatedStatus?.find((i) => i.clusterName === 'cluster1')?.appliedMessage ?? '',
      /ApplyOverridePolicyFailed/,
    );
    assert.equal(rb?.status?.aggregatedStatus?.find((i) => i.clusterName === 'cluster2')?.applied, true);
    const policy = await eventually(
      'unknown clusters named on the policy',
      () => getOrUndefined<Obj>(host, PolicyTypes.PropagationPolicy, 'bad-path', NSA),
      (o) =>
        ((o?.status?.conditions ?? []) as Array<{ type: string; status: string; message: string }>).some(
          (c) => c.type === 'ClustersKnown' && c.status === 'False',
        ),
    );
    const known = (policy?.status?.conditions as Array<{ type: string; message: string }> | undefined)?.find(
      (c) => c.type === 'ClustersKnown',
    );
    assert.match(known?.message ?? '', /cluster9/);

    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('bad-selector', {
        resourceSelectors: [
          selector('ConfigMap', {
            labelSelector: { matchExpressions: [{ key: 'a', operator: 'Sideways' }] },
          }),
        ],
      }),
    );
    const bad = await eventually(
      'the invalid selector reported',
      () => getOrUndefined<Obj>(host, PolicyTypes.PropagationPolicy, 'bad-selector', NSA),
      (o) =>
        ((o?.status?.conditions ?? []) as Array<{ type: string; reason: string }>).some(
          (c) => c.type === 'Ready' && c.reason === 'InvalidSelector',
        ),
    );
    assert.ok(bad);
    // Everything else still propagates.
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('still-fine', {
        resourceSelectors: [selector('ConfigMap', { name: 'still-fine' })],
        placement: onClusters('cluster2'),
      }),
    );
    await host.create(CM, configMap('still-fine', { v: '1' }));
    await eventually(
      'still-fine in cluster2',
      () => member(c2, CM, 'still-fine'),
      (o) => o?.data?.v === '1',
    );
    await deletePolicy('bad-selector');
  });

  test('suspension stops dispatching and resuming applies what changed; deleting a template deletes its copies unless preserved', async () => {
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('susp', {
        resourceSelectors: [selector('ConfigMap', { name: 'susp' })],
        placement: onClusters('cluster1'),
      }),
    );
    await host.create(CM, configMap('susp', { v: '1' }));
    await eventually(
      'susp in cluster1',
      () => member(c1, CM, 'susp'),
      (o) => o?.data?.v === '1',
    );
    let p = await host.get<Obj>(PolicyTypes.PropagationPolicy, 'susp', NSA);
    await host.update(PolicyTypes.PropagationPolicy, {
      ...p,
      spec: { ...p.spec, suspension: { dispatching: true } },
    });
    await eventually(
      'the binding suspended',
      () => binding('susp-configmap'),
      (b) => b?.status?.conditions?.some((c) => c.type === 'Dispatching' && c.status === 'False') === true,
    );
    const t = await host.get<Obj>(CM, 'susp', NSA);
    await host.update(CM, { ...t, data: { v: '2' } });
    await new Promise((r) => setTimeout(r, 3_000));
    assert.equal((await member(c1, CM, 'susp'))?.data?.v, '1', 'no change reaches a suspended member');
    p = await host.get<Obj>(PolicyTypes.PropagationPolicy, 'susp', NSA);
    await host.update(PolicyTypes.PropagationPolicy, { ...p, spec: { ...p.spec, suspension: {} } });
    await eventually(
      'resumed',
      () => member(c1, CM, 'susp'),
      (o) => o?.data?.v === '2',
    );

    await host.delete(CM, 'susp', { namespace: NSA });
    await eventually(
      'the copy deleted with its template',
      () => member(c1, CM, 'susp'),
      (o) => o === undefined,
    );

    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('keep', {
        preserveResourcesOnDeletion: true,
        resourceSelectors: [selector('ConfigMap', { name: 'keep' })],
        placement: onClusters('cluster1'),
      }),
    );
    await host.create(CM, configMap('keep', { v: '1' }));
    await eventually(
      'keep in cluster1',
      () => member(c1, CM, 'keep'),
      (o) => o?.data?.v === '1',
    );
    await host.delete(CM, 'keep', { namespace: NSA });
    await eventually(
      'the binding gone',
      () => binding('keep-configmap'),
      (b) => b === undefined,
    );
    const kept = await member(c1, CM, 'keep');
    assert.equal(kept?.data?.v, '1');
    assert.notEqual(kept?.metadata.labels?.[MANAGED_LABEL], 'true', 'released, not managed any more');
  });

  /** resourceVersions of everything the policy source could write: templates, bindings, policies, member copies. */
  const versions = async () => {
    const out: Record<string, string> = {};
    const sources: Array<[string, KubeClient, ResourceType, string | undefined]> = [
      ['deploy', host, DEPLOY, NSA],
      ['cm', host, CM, NSA],
      ['rb', host, BindingTypes.ResourceBinding, undefined],
      ['pp', host, PolicyTypes.PropagationPolicy, undefined],
      ['op', host, PolicyTypes.OverridePolicy, undefined],
      ['c1 deploy', c1, DEPLOY, NSA],
      ['c1 cm', c1, CM, NSA],
      ['c2 deploy', c2, DEPLOY, NSA],
      ['c2 cm', c2, CM, NSA],
    ];
    for (const [what, client, type, ns] of sources) {
      const list = await client.list<KubeObject>(type, ns ? { namespace: ns } : {});
      for (const o of list.items)
        out[`${what} ${o.metadata.namespace}/${o.metadata.name}`] = o.metadata.resourceVersion ?? '';
    }
    return out;
  };
  /** Waits until two reads 3 s apart agree, and returns that state. */
  const settled = async () => {
    let before = await versions();
    await eventually(
      'the federation at rest',
      async () => {
        await new Promise((r) => setTimeout(r, 3_000));
        const now = await versions();
        const same = JSON.stringify(now) === JSON.stringify(before);
        before = now;
        return same;
      },
      (same) => same,
      60_000,
    );
    return before;
  };

  test('at rest nothing is written, and a reconcile of unchanged bindings writes no member copy', async () => {
    const before = await settled();
    await new Promise((r) => setTimeout(r, 6_000));
    assert.deepEqual(await versions(), before);

    // Every binding looked at again (a label is a metadata change: an update event, a reconcile): the
    // copies are up to date, so not one is written (no UpdateInCluster event).
    const updates = async () => {
      const list = await host.list<KubeObject & { reason?: string; count?: number }>(CoreTypes.events, {
        namespace: NSA,
      });
      return list.items.filter((e) => e.reason === 'UpdateInCluster').reduce((n, e) => n + (e.count ?? 1), 0);
    };
    const updatesBefore = await updates();
    for (const b of (await host.list<KubeObject>(BindingTypes.ResourceBinding, { namespace: NSA })).items) {
      await host.patch(
        BindingTypes.ResourceBinding,
        b.metadata.name ?? '',
        { metadata: { labels: { touched: 'yes' } } },
        { namespace: NSA },
      );
    }
    await settled();
    assert.equal(await updates(), updatesBefore);
  });

  test('a controller manager killed and started again writes nothing that did not change', async () => {
    const before = await settled();
    const statusBefore = new Map(
      (await host.list<Binding>(BindingTypes.ResourceBinding)).items.map((b) => [
        `rb ${b.metadata.namespace}/${b.metadata.name}`,
        JSON.stringify({ meta: b.metadata, spec: b.spec, status: b.status }),
      ]),
    );
    const memberClients = fed.members.map((m) => m.client());
    const writesBefore = await Promise.all([host, ...memberClients].map((c) => apiserverWrites(c)));
    const killedAt = Math.floor(Date.now() / 1000) * 1000;
    cm.process.killNow();
    cm = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      logFile: join(fed.dir, 'kubefed-controller-manager-2.log'),
      args: ['--member-deletion-timeout=8s'],
    });
    const bindings = (await host.list<KubeObject>(BindingTypes.ResourceBinding)).items.length;
    await waitFor(
      'the new controller manager to have looked at every binding',
      async () =>
        (value(await scrape(cm.metricsUrl), 'controller_runtime_reconcile_total', {
          controller: 'policy-binding',
        }) ?? 0) >= bindings,
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    await new Promise((r) => setTimeout(r, 5_000));
    const after = await versions();
    // On a mismatch, say what changed: the bindings' status in full.
    const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
    const details = await Promise.all(
      changed
        .filter((k) => k.startsWith('rb '))
        .map(async (k) => {
          const [ns, name] = k.slice(3).split('/');
          const b = await host.get<Binding>(BindingTypes.ResourceBinding, name ?? '', ns);
          return `before: ${statusBefore.get(k)}\nafter:  ${JSON.stringify({ meta: b.metadata, spec: b.spec, status: b.status })}`;
        }),
    );
    assert.deepEqual(after, before, `changed: ${changed.join(', ')}\n${details.join('\n')}`);
    // Not even a write that changed nothing (a no-op PUT keeps the resourceVersion), nor a Normal event: the
    // apiservers' own counters. The host's writes but for leases and cluster health; the members' writes of
    // what the federation propagates (their own controllers keep writing nodes, pods and leases).
    const writesAfter = await Promise.all([host, ...memberClients].map((c) => apiserverWrites(c)));
    const periodic = new Set(['leases', 'kubefedclusters/status', 'events']);
    const hostResources = [...(writesAfter[0] ?? new Map()).keys()].filter((r) => !periodic.has(r));
    assert.deepEqual(
      writesBetween(writesBefore[0] ?? new Map(), writesAfter[0] ?? new Map(), hostResources),
      {},
      'host writes after the restart',
    );
    // Events: only what is still wrong is reported again (bad-path's override, mixed/shared owned by the
    // Federated<Kind>): a new process's event recorder, like client-go's, knows nothing of the old one's.
    type Event = KubeObject & {
      type?: string;
      reason?: string;
      message?: string;
      lastTimestamp?: string;
      involvedObject?: { kind?: string; namespace?: string; name?: string };
    };
    const recent = (await host.list<Event>(CoreTypes.events)).items.filter(
      (e) => Date.parse(e.lastTimestamp ?? '') >= killedAt,
    );
    const line = (e: Event) =>
      `${e.type} ${e.reason} ${e.involvedObject?.kind} ${e.involvedObject?.namespace}/${e.involvedObject?.name}: ${e.message}`;
    const stillWrong = new Set(['apps/bad-path', 'mixed/shared']);
    assert.deepEqual(
      recent
        .filter(
          (e) =>
            e.type !== 'Warning' ||
            !stillWrong.has(`${e.involvedObject?.namespace}/${e.involvedObject?.name}`),
        )
        .map(line),
      [],
      'events after the restart but the warnings of what is still wrong',
    );
    const propagated = ['configmaps', 'secrets', 'deployments', 'services', 'jobs', 'widgets', 'namespaces'];
    fed.members.forEach((m, i) => {
      assert.deepEqual(
        writesBetween(writesBefore[i + 1] ?? new Map(), writesAfter[i + 1] ?? new Map(), propagated),
        {},
        `${m.name}: writes after the restart`,
      );
    });
  });
});

describe('native resources on a host that runs workload controllers', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;

  before(async () => {
    // The host is also a full cluster (controller-manager, scheduler, kwok): its Deployment controller acts on
    // the template too, and owns its status there.
    fed = await startFederation({ members: ['cluster1'], hostControllers: 'workloads' });
    ({ host, cm } = await startPropagation(fed));
    await host.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NSA } });
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('the template still propagates; its status is left to the host’s controller, and the binding says why', async () => {
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('web', {
        resourceSelectors: [selector('Deployment', { name: 'web' })],
        placement: onClusters('cluster1'),
      }),
    );
    await host.create(DEPLOY, deployment('web', 1));
    const c1 = fed.cluster('cluster1').client();
    await eventually(
      'web in cluster1',
      () => getOrUndefined<Obj>(c1, DEPLOY, 'web', NSA),
      (o) => o?.spec?.replicas === 1,
    );
    const rb = await eventually(
      'the binding reports who owns the status',
      () => getOrUndefined<Binding>(host, BindingTypes.ResourceBinding, 'web-deployment', NSA),
      (b) =>
        b?.status?.conditions?.some(
          (c) =>
            c.type === 'StatusWrittenBack' && c.status === 'False' && c.reason === 'HostControllerOwnsStatus',
        ) === true,
    );
    assert.match(
      rb?.status?.conditions?.find((c) => c.type === 'StatusWrittenBack')?.message ?? '',
      /kube-controller-manager/,
    );
  });
});
