// The other front ends over pull mode: a FederatedConfigMap and a policy-placed Deployment bound for a Pull
// cluster reach it through its agent (the engine writes ManifestWorks in the hub namespace named after the
// cluster and reads their status back), beside a Push member that works as before. Host + 2 kwok members, the
// controller manager as its own process; cluster1 joins with `kubefedctl join --mode pull`, its lease is
// renewed by the agent's LeaseHeartbeat and its ManifestWorks applied by a work agent against the member.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LeaseHeartbeat } from '../../src/agent/lease-heartbeat.ts';
import {
  MANIFEST_WORK_FINALIZER,
  type ManifestCondition,
  type ManifestWork,
} from '../../src/api/ocm/work/v1/index.ts';
import { OWNER_ANNOTATION } from '../../src/engine/ownership.ts';
import { MANIFEST_WORK_TYPE, manifestWorkName, WORK_SOURCE_LABEL } from '../../src/engine/pull/names.ts';
import { installControlPlane } from '../../src/install/control-plane.ts';
import {
  CoreTypes,
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import { MANAGED_LABEL } from '../../src/propagation/constants.ts';
import { canonicalJson } from '../../src/propagation/json.ts';
import { BindingTypes } from '../../src/sources/policy/bindings.ts';
import { PolicyTypes } from '../../src/sources/policy/policies.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  createFederatedNamespace,
  eventually,
  type FedObject,
  federatedConfigMap,
  getOrUndefined,
  T,
} from './federation-helpers.ts';
import { kubefedctl, NS, prepareHost, waitForCluster } from './helpers.ts';

const PULL = 'cluster1';
const PUSH = 'cluster2';
const FNS = 'pull-fed';
const APPS = 'pull-apps';
const DEPLOY: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};
type Obj = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
};
type WorkObject = ManifestWork & KubeObject;
type Binding = KubeObject & {
  status?: {
    aggregatedStatus?: Array<{
      clusterName: string;
      applied?: boolean;
      appliedMessage?: string;
      health?: string;
    }>;
  };
};

/**
 * A minimal work agent for one cluster, in the test process: the hub side under test only needs ManifestWorks
 * applied and their status written as OCM's agent writes it (finalizer first, server-side apply as
 * work-agent, Applied/Available per manifest, JSONPaths feedback with JsonRaw, deleteOption on deletion).
 */
class StandInAgent {
  readonly #hub: KubeClient;
  readonly #member: KubeClient;
  readonly #namespace: string;
  readonly #applied = new Map<string, Target[]>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(hub: KubeClient, member: KubeClient, namespace: string) {
    this.#hub = hub;
    this.#member = member;
    this.#namespace = namespace;
  }

  start(): void {
    const loop = () => {
      if (this.#stopped) return;
      this.#running = this.#tick().finally(() => {
        this.#timer = setTimeout(loop, 300);
      });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  async #tick(): Promise<void> {
    let works: WorkObject[];
    try {
      works = (await this.#hub.list<WorkObject>(MANIFEST_WORK_TYPE, { namespace: this.#namespace })).items;
    } catch {
      return;
    }
    for (const mw of works) {
      try {
        await this.#sync(mw);
      } catch (e) {
        if (!isNotFound(e)) console.error(`stand-in agent: ${mw.metadata.name}: ${errorMessage(e)}`);
      }
    }
  }

  async #sync(mw: WorkObject): Promise<void> {
    const name = mw.metadata.name ?? '';
    const targets = (mw.spec.workload?.manifests ?? []).map((m, i) =>
      targetOf(m, mw.spec.manifestConfigs?.[i]),
    );
    const finalizers = mw.metadata.finalizers ?? [];
    if (mw.metadata.deletionTimestamp) {
      if (!finalizers.includes(MANIFEST_WORK_FINALIZER)) return;
      const policy = mw.spec.deleteOption?.propagationPolicy ?? 'Foreground';
      const rules = mw.spec.deleteOption?.selectivelyOrphans?.orphaningRules ?? [];
      const orphaned = (t: Target) =>
        policy === 'Orphan' ||
        (policy === 'SelectivelyOrphan' &&
          rules.some(
            (r) => r.resource === t.type.plural && r.name === t.name && (r.namespace ?? '') === t.namespace,
          ));
      let left = 0;
      for (const t of targets.filter((x) => !orphaned(x))) {
        if (await this.#exists(t)) {
          left++;
          await this.#member.delete(t.type, t.name, { namespace: t.namespace || undefined }).catch(() => {});
        }
      }
      if (left > 0) return;
      this.#applied.delete(name);
      await this.#hub.update(MANIFEST_WORK_TYPE, {
        ...mw,
        metadata: { ...mw.metadata, finalizers: finalizers.filter((f) => f !== MANIFEST_WORK_FINALIZER) },
      });
      return;
    }
    if (!finalizers.includes(MANIFEST_WORK_FINALIZER)) {
      await this.#hub.update(MANIFEST_WORK_TYPE, {
        ...mw,
        metadata: { ...mw.metadata, finalizers: [...finalizers, MANIFEST_WORK_FINALIZER] },
      });
      return;
    }
    // Resources that left the work are deleted.
    for (const old of this.#applied.get(name) ?? []) {
      if (!targets.some((t) => sameTarget(t, old))) {
        await this.#member
          .delete(old.type, old.name, { namespace: old.namespace || undefined })
          .catch(() => {});
      }
    }
    this.#applied.set(name, targets);
    const manifests: ManifestCondition[] = [];
    for (const [ordinal, t] of targets.entries()) {
      const meta = {
        ordinal,
        group: t.type.group,
        version: t.type.version,
        kind: t.manifest.kind ?? '',
        resource: t.type.plural,
        name: t.name,
        namespace: t.namespace,
      };
      try {
        await this.#member.patch(t.type, t.name, t.manifest, {
          namespace: t.namespace || undefined,
          patchType: 'apply',
          fieldManager: 'work-agent',
          force: true,
        });
        const live = await this.#member.get<Obj>(t.type, t.name, t.namespace || undefined);
        const values: NonNullable<ManifestCondition['statusFeedback']>['values'] = [];
        const raw = live.status ? JSON.stringify(live.status) : undefined;
        if (raw && raw.length <= 1024)
          values.push({ name: 'status', fieldValue: { type: 'JsonRaw', jsonRaw: raw } });
        if (typeof live.metadata.generation === 'number') {
          values.push({
            name: 'generation',
            fieldValue: { type: 'Integer', integer: live.metadata.generation },
          });
        }
        manifests.push({
          resourceMeta: meta,
          conditions: [
            cond('Applied', 'True', 'AppliedManifestComplete', 'Apply manifest complete'),
            cond('Available', 'True', 'ResourceAvailable', 'Resource is available'),
          ],
          statusFeedback: { values },
        });
      } catch (e) {
        const exists = await this.#exists(t);
        manifests.push({
          resourceMeta: meta,
          conditions: [
            cond('Applied', 'False', 'AppliedManifestFailed', `Failed to apply manifest: ${errorMessage(e)}`),
            cond(
              'Available',
              exists ? 'True' : 'False',
              exists ? 'ResourceAvailable' : 'ResourceNotAvailable',
              '',
            ),
          ],
        });
      }
    }
    const allApplied = manifests.every((m) =>
      m.conditions.some((c) => c.type === 'Applied' && c.status === 'True'),
    );
    const status: ManifestWork['status'] = {
      conditions: [
        {
          ...cond(
            'Applied',
            allApplied ? 'True' : 'False',
            allApplied ? 'AppliedManifestWorkComplete' : 'AppliedManifestWorkFailed',
            '',
          ),
          observedGeneration: mw.metadata.generation,
        },
      ],
      resourceStatus: { manifests },
    };
    if (withoutTimes(status) === withoutTimes(mw.status)) return;
    await this.#hub.update(MANIFEST_WORK_TYPE, { ...mw, status }, { subresource: 'status' });
  }

  async #exists(t: Target): Promise<boolean> {
    try {
      await this.#member.get(t.type, t.name, t.namespace || undefined);
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }
}

interface Target {
  type: ResourceType;
  name: string;
  namespace: string;
  manifest: KubeObject;
}

function targetOf(
  m: KubeObject,
  config: NonNullable<ManifestWork['spec']['manifestConfigs']>[number] | undefined,
): Target {
  const [group, version] = (m.apiVersion ?? '').includes('/')
    ? (m.apiVersion ?? '').split('/')
    : ['', m.apiVersion];
  const namespace = m.metadata.namespace ?? '';
  return {
    type: {
      group: group ?? '',
      version: version ?? '',
      plural: config?.resourceIdentifier.resource ?? '',
      namespaced: namespace !== '',
    },
    name: m.metadata.name ?? '',
    namespace,
    manifest: m,
  };
}

function sameTarget(a: Target, b: Target): boolean {
  return (
    a.type.group === b.type.group &&
    a.type.plural === b.type.plural &&
    a.name === b.name &&
    a.namespace === b.namespace
  );
}

function cond(type: string, status: string, reason: string, message: string) {
  return {
    type,
    status,
    reason,
    message,
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

function withoutTimes(v: unknown): string {
  return canonicalJson(
    JSON.parse(JSON.stringify(v ?? null, (k, x) => (k === 'lastTransitionTime' ? undefined : x))),
  );
}

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

describe('Federated<Kind> and policy-placed objects over a Pull cluster', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let pull: KubeClient;
  let push: KubeClient;
  let agent: StandInAgent;
  const heartbeat = new AbortController();

  const work = (name: string) => getOrUndefined<WorkObject>(host, MANIFEST_WORK_TYPE, name, PULL);

  before(async () => {
    fed = await startFederation({
      members: [PULL, PUSH],
      workloads: true,
      hostControllers: 'federation-apiserver',
    });
    host = fed.host.client();
    await prepareHost(host);
    await installControlPlane(host, NS, { defaultTypes: true });
    cm = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      logFile: join(fed.dir, 'kubefed-controller-manager.log'),
      args: ['--member-deletion-timeout=8s'],
    });
    const joined = await kubefedctl([
      'join',
      PUSH,
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
    ]);
    assert.equal(joined.code, 0, joined.stderr);
    const pulled = await kubefedctl([
      'join',
      PULL,
      '--mode',
      'pull',
      '--print-agent-install',
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
    ]);
    assert.equal(pulled.code, 0, pulled.stderr);
    pull = fed.cluster(PULL).client();
    push = fed.cluster(PUSH).client();
    void new LeaseHeartbeat({
      hub: host,
      namespace: PULL,
      holderIdentity: 'test-agent',
      leaseDurationMs: 60_000,
    }).run(heartbeat.signal);
    agent = new StandInAgent(host, pull, PULL);
    agent.start();
    for (const c of [PULL, PUSH]) {
      await waitForCluster(host, c, 'Ready', (k) =>
        Boolean(k.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')),
      );
    }
  });
  after(async () => {
    heartbeat.abort();
    await agent?.stop();
    await cm?.process.stop();
    await fed?.stop();
  });

  test('the Pull cluster holds no member credential on the hub', async () => {
    const kfc = await host.get<KubeObject & { spec: { syncMode?: string; secretRef?: unknown } }>(
      { group: 'core.kubefed.io', version: 'v1beta1', plural: 'kubefedclusters', namespaced: true },
      PULL,
      NS,
    );
    assert.equal(kfc.spec.syncMode, 'Pull');
    assert.equal(kfc.spec.secretRef, undefined);
  });

  test('a FederatedConfigMap reaches the Pull member through a ManifestWork, and the Push member directly; status.clusters says OK for both', async () => {
    await createFederatedNamespace(host, FNS);
    await host.create(T.fcm, federatedConfigMap('cfg', FNS, { k: 'v1' }));
    for (const c of [pull, push]) {
      await eventually(
        'cfg in a member',
        () => getOrUndefined<Obj>(c, T.configmaps, 'cfg', FNS),
        (o) => o?.data?.k === 'v1' && o.metadata.labels?.[MANAGED_LABEL] === 'true',
        60_000,
      );
    }
    const name = manifestWorkName({
      source: 'federated',
      kind: 'FederatedConfigMap',
      namespace: FNS,
      name: 'cfg',
    });
    const mw = await work(name);
    assert.ok(mw, 'the ManifestWork in the hub namespace of the Pull cluster');
    assert.equal(mw.metadata.labels?.[WORK_SOURCE_LABEL], 'federated');
    assert.equal(mw.metadata.annotations?.[OWNER_ANNOTATION], `federated:FederatedConfigMap:${FNS}/cfg`);
    assert.equal(mw.spec.manifestConfigs?.[0]?.updateStrategy?.type, 'ServerSideApply');
    // The Push member got no ManifestWork.
    assert.equal(await getOrUndefined(host, MANIFEST_WORK_TYPE, name, PUSH), undefined);
    const status = await eventually(
      'status.clusters OK for both',
      () => getOrUndefined<FedObject>(host, T.fcm, 'cfg', FNS),
      (o) => {
        const cl = o?.status?.clusters ?? [];
        return cl.length === 2 && cl.every((c) => c.status === undefined);
      },
      60_000,
    );
    assert.deepEqual(
      status?.status?.clusters?.map((c) => c.name),
      [PULL, PUSH],
    );

    // An update reaches the Pull member; once it has, the work is not written again.
    const fcm = await host.get<FedObject>(T.fcm, 'cfg', FNS);
    await host.update(T.fcm, { ...fcm, spec: { ...fcm.spec, template: { data: { k: 'v2' } } } });
    await eventually(
      'v2 in the Pull member',
      () => getOrUndefined<Obj>(pull, T.configmaps, 'cfg', FNS),
      (o) => o?.data?.k === 'v2',
      60_000,
    );
    const settled = await eventually(
      'the agent reported the new generation',
      () => work(name),
      (w) =>
        w?.status?.conditions?.some(
          (c) =>
            c.type === 'Applied' && c.status === 'True' && c.observedGeneration === w.metadata.generation,
        ) === true,
    );
    await new Promise((r) => setTimeout(r, 3_000));
    assert.equal(
      (await work(name))?.metadata.resourceVersion,
      settled?.metadata.resourceVersion,
      'no needless hub write',
    );

    // Deleted: both copies go, the work goes, the federated object goes.
    await host.delete(T.fcm, 'cfg', { namespace: FNS });
    for (const c of [pull, push]) {
      await eventually(
        'cfg gone from a member',
        () => getOrUndefined(c, T.configmaps, 'cfg', FNS),
        (o) => o === undefined,
        60_000,
      );
    }
    await eventually(
      'the ManifestWork gone',
      () => work(name),
      (w) => w === undefined,
      60_000,
    );
    await eventually(
      'the FederatedConfigMap gone',
      () => getOrUndefined(host, T.fcm, 'cfg', FNS),
      (o) => o === undefined,
      60_000,
    );
  });

  test('a policy-placed Deployment reaches the Pull member; its binding shows the kwok pods ready there, and deleting it removes both copies', async () => {
    await host.create(CoreTypes.namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: APPS },
    });
    await host.create(PolicyTypes.PropagationPolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'web', namespace: APPS },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        placement: { clusterAffinity: { clusterNames: [PULL, PUSH] } },
      },
    });
    await host.create(DEPLOY, deployment('web', 2));
    for (const c of [pull, push]) {
      await eventually(
        'web in a member',
        () => getOrUndefined<Obj>(c, DEPLOY, 'web', APPS),
        (o) => o?.spec?.replicas === 2,
        90_000,
      );
    }
    const rb = await eventually(
      'both clusters applied and healthy in the binding',
      () => getOrUndefined<Binding>(host, BindingTypes.ResourceBinding, 'web-deployment', APPS),
      (b) => {
        const items = b?.status?.aggregatedStatus ?? [];
        return items.length === 2 && items.every((i) => i.applied === true && i.health === 'Healthy');
      },
      120_000,
    );
    assert.deepEqual(
      rb?.status?.aggregatedStatus?.map((i) => i.clusterName),
      [PULL, PUSH],
    );
    await eventually(
      'the fleet status on the template counts the Pull member’s kwok pods',
      () => getOrUndefined<Obj>(host, DEPLOY, 'web', APPS),
      (o) => o?.status?.readyReplicas === 4,
      90_000,
    );

    await host.delete(DEPLOY, 'web', { namespace: APPS });
    for (const c of [pull, push]) {
      await eventually(
        'web gone from a member',
        () => getOrUndefined(c, DEPLOY, 'web', APPS),
        (o) => o === undefined,
        90_000,
      );
    }
  });
});
