import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FederatedTypeConfigType } from '../../src/api/core/v1beta1/index.ts';
import { DEFAULT_TARGET_TYPES } from '../../src/federation-types/index.ts';
import type { KubeClient, KubeObject, ResourceType } from '../../src/kube/client/index.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  createFederatedNamespace,
  enableType,
  establishCrd,
  eventReasons,
  eventually,
  FED_GROUP,
  FED_VERSION,
  type FedObject,
  getOrUndefined,
  propagation,
  startPropagation,
  T,
} from './federation-helpers.ts';
import { kubefedctl, NS } from './helpers.ts';

const NSX = 'lifecycle';
const API = `${FED_GROUP}/${FED_VERSION}`;

/** A namespaced CRD with a structural schema, like the generated CRDs of KubeFed's e2e (test/e2e/crd.go). */
const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          },
        },
      },
    ],
  },
};

interface TargetType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

/** A template per default type, like KubeFed's test/common/fixtures. */
const TEMPLATES: Record<string, Record<string, unknown>> = {
  ClusterRole: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] },
  ConfigMap: { data: { a: '1' } },
  Deployment: {
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  },
  Ingress: { spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } },
  Job: {
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
  },
  Namespace: {},
  ReplicaSet: {
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'rs' } },
      template: {
        metadata: { labels: { app: 'rs' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  },
  Secret: { data: { a: Buffer.from('1').toString('base64') } },
  ServiceAccount: {},
  Service: { spec: { type: 'NodePort', ports: [{ port: 80 }], selector: { app: 'web' } } },
};

describe('create / update / placement change / delete for each of the ten default types', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let members: KubeClient[];

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2'] });
    ({ host, cm } = await startPropagation(fed));
    members = [fed.cluster('cluster1').client(), fed.cluster('cluster2').client()];
    await createFederatedNamespace(host, NSX);
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  /**
   * KubeFed's own CRUD scenario (test/e2e/crud.go with test/common/crudtester.go): create with placement on two
   * members, update with a label override that has no op on a template without labels (evanphx/json-patch's
   * replace sets the missing member), drop one cluster from placement, delete; each step checked in the members.
   */
  async function lifecycle(t: TargetType, template: Record<string, unknown>): Promise<void> {
    const isNamespace = t.kind === 'Namespace';
    const target: ResourceType = {
      group: t.group,
      version: t.version,
      plural: t.plural,
      namespaced: t.namespaced,
      kind: t.kind,
    };
    const fedT: ResourceType = {
      group: FED_GROUP,
      version: FED_VERSION,
      plural: `federated${t.plural}`,
      namespaced: t.namespaced || isNamespace,
      kind: `Federated${t.kind}`,
    };
    const name = isNamespace ? 'lifecycle-ns' : `lc-${t.kind.toLowerCase()}`;
    const fedNs = isNamespace ? name : t.namespaced ? NSX : undefined;
    const targetNs = t.namespaced ? NSX : undefined;
    assert.equal((template.metadata as { labels?: unknown } | undefined)?.labels, undefined);
    if (isNamespace)
      await host.create(T.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await host.create(fedT, {
      apiVersion: API,
      kind: fedT.kind,
      metadata: { name, ...(fedNs ? { namespace: fedNs } : {}) },
      spec: { template, placement: { clusters: [{ name: 'cluster1' }, { name: 'cluster2' }] } },
    });
    const get = (c: KubeClient) => getOrUndefined(c, target, name, targetNs);
    await eventually(
      `${t.kind} in both members, managed`,
      () => Promise.all(members.map(get)),
      (v) => v.every((o) => o?.metadata.labels?.['kubefed.io/managed'] === 'true'),
    );
    await eventually(
      'Propagation=True',
      () => host.get<FedObject>(fedT, name, fedNs),
      (o) => propagation(o)?.status === 'True',
    );

    // Update: an override of /metadata/labels for cluster1, with no op, as KubeFed's e2e writes it.
    await host.patch(
      fedT,
      name,
      {
        spec: {
          overrides: [
            {
              clusterName: 'cluster1',
              clusterOverrides: [{ path: '/metadata/labels', value: { tier: 'one' } }],
            },
          ],
        },
      },
      { namespace: fedNs },
    );
    await eventually(
      'override applied in cluster1 only',
      () => Promise.all(members.map(get)),
      (v) =>
        v[0]?.metadata.labels?.tier === 'one' &&
        v[0]?.metadata.labels?.['kubefed.io/managed'] === 'true' &&
        v[1]?.metadata.labels?.tier === undefined,
    );
    const updated = await eventually(
      'still Propagation=True after the update',
      () => host.get<FedObject>(fedT, name, fedNs),
      (o) => propagation(o)?.status === 'True' && o.status?.observedGeneration === o.metadata.generation,
    );
    assert.deepEqual(
      updated.status?.clusters?.map((c) => [c.name, c.status ?? '']),
      [
        ['cluster1', ''],
        ['cluster2', ''],
      ],
    );

    // Placement change: cluster2 drops out.
    await host.patch(
      fedT,
      name,
      { spec: { placement: { clusters: [{ name: 'cluster1' }] } } },
      { namespace: fedNs },
    );
    await eventually(
      'removed from cluster2',
      () => get(members[1] as KubeClient),
      (o) => o === undefined || Boolean(o.metadata.deletionTimestamp),
      60_000,
    );
    assert.equal((await get(members[0] as KubeClient))?.metadata.labels?.tier, 'one');

    // Delete: cleaned up in cluster1, federated object released.
    await host.delete(fedT, name, { namespace: fedNs });
    await eventually(
      'federated object released',
      () => getOrUndefined(host, fedT, name, fedNs),
      (o) => o === undefined,
      60_000,
    );
    const left = await get(members[0] as KubeClient);
    assert.ok(left === undefined || left.metadata.deletionTimestamp, `${t.kind} still in cluster1`);
  }

  for (const t of DEFAULT_TARGET_TYPES) {
    test(`${t.kind}: full lifecycle`, () => lifecycle(t, TEMPLATES[t.kind] ?? {}));
  }

  test('a CRD enabled with kubefedctl: full lifecycle', async () => {
    await Promise.all([host, ...members].map((c) => establishCrd(c, WIDGET_CRD)));
    await enableType(fed, host, 'widgets', 'widgets.example.com');
    await lifecycle(
      { group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true },
      { spec: { size: 3 } },
    );
  });

  test('an update rejected as immutable shows UpdateFailed with the API server message', async () => {
    const fj: ResourceType = {
      group: FED_GROUP,
      version: FED_VERSION,
      plural: 'federatedjobs',
      namespaced: true,
      kind: 'FederatedJob',
    };
    const jobs: ResourceType = {
      group: 'batch',
      version: 'v1',
      plural: 'jobs',
      namespaced: true,
      kind: 'Job',
    };
    await host.create(fj, {
      apiVersion: API,
      kind: 'FederatedJob',
      metadata: { name: 'immutable', namespace: NSX },
      spec: { template: TEMPLATES.Job, placement: { clusters: [{ name: 'cluster1' }] } },
    });
    await eventually(
      'Job created',
      () => getOrUndefined(members[0] as KubeClient, jobs, 'immutable', NSX),
      Boolean,
    );
    await host.patch(
      fj,
      'immutable',
      {
        spec: {
          template: {
            spec: {
              template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:2' }] } },
            },
          },
        },
      },
      { namespace: NSX },
    );
    const fo = await eventually(
      'UpdateFailed',
      () => host.get<FedObject>(fj, 'immutable', NSX),
      (o) =>
        JSON.stringify(o.status?.clusters?.map((c) => [c.name, c.status])) ===
        JSON.stringify([['cluster1', 'UpdateFailed']]),
    );
    assert.equal(propagation(fo)?.status, 'False');
    assert.match(fo.status?.clusters?.[0]?.message ?? '', /field is immutable/);
    const events = await host.list<
      KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } }
    >({ group: '', version: 'v1', plural: 'events', namespaced: true, kind: 'Event' }, { namespace: NSX });
    const failed = events.items.find(
      (e) => e.involvedObject?.name === 'immutable' && e.reason === 'UpdateInClusterFailed',
    );
    assert.match(
      failed?.message ?? '',
      /Failed to update Job "lifecycle\/immutable" in cluster "cluster1": .*field is immutable/,
    );
  });

  test('the FTC controller stops, restarts and reports its sync controllers', async () => {
    type Ftc = KubeObject & { status?: { propagationController?: string; observedGeneration?: number } };
    const ftc = () => host.get<Ftc>(FederatedTypeConfigType, 'configmaps', NS);
    const running = await eventually('Running', ftc, (o) => o.status?.propagationController === 'Running');
    assert.equal(running.status?.observedGeneration, running.metadata.generation);
    assert.ok(running.metadata.finalizers?.includes('core.kubefed.io/federated-type-config'));

    const r = await kubefedctl([
      'disable',
      'configmaps',
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /Propagation controller for FederatedTypeConfig "kube-federation-system\/configmaps" is stopped/,
    );
    // Nothing propagates while disabled.
    await host.create(T.fcm, {
      apiVersion: API,
      kind: 'FederatedConfigMap',
      metadata: { name: 'while-disabled', namespace: NSX },
      spec: { template: { data: { a: '1' } }, placement: { clusterSelector: {} } },
    });
    await new Promise((res) => setTimeout(res, 2000));
    assert.equal(
      await getOrUndefined(members[0] as KubeClient, T.configmaps, 'while-disabled', NSX),
      undefined,
    );

    const e = await kubefedctl([
      'enable',
      'configmaps',
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
    ]);
    assert.equal(e.code, 0, e.stderr);
    await eventually(
      'Running again',
      ftc,
      (o) =>
        o.status?.propagationController === 'Running' &&
        o.status.observedGeneration === o.metadata.generation,
    );
    await eventually(
      'propagates again',
      () => getOrUndefined(members[0] as KubeClient, T.configmaps, 'while-disabled', NSX),
      Boolean,
    );
    // One CreateInCluster for all the members, recorded once their creates are done.
    await eventually(
      'a CreateInCluster event',
      () => eventReasons(host, NSX, 'while-disabled'),
      (reasons) => reasons.includes('CreateInCluster'),
    );
  });
});
