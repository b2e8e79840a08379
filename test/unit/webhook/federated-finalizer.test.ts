import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FederatedTypeConfig } from '../../../src/api/core/v1beta1/index.ts';
import { LEADER_LOCK_NAME } from '../../../src/controller-manager/main.ts';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import { admit, WebhookPath } from '../../../src/webhook/admission.ts';
import {
  CONTROLLER_MANAGER_LEASE_NAME,
  controllerManagerLive,
  LEASE_GRACE_MS,
  type LeaderLease,
} from '../../../src/webhook/controller-manager-lease.ts';
import {
  type ControlPlaneView,
  syncControllerRuns,
  syncFinalizerPatch,
} from '../../../src/webhook/federated-finalizer.ts';

const NS = 'kube-federation-system';
const F = 'kubefed.io/sync-controller';

type Ftc = FederatedTypeConfig & KubeObject;

/** An FTC as the FTC controller leaves it: status Running at its generation when enabled. */
function ftc(
  plural: string,
  kind: string,
  over: {
    propagation?: 'Enabled' | 'Disabled';
    scope?: 'Namespaced' | 'Cluster';
    status?: Ftc['status'] | null;
    generation?: number;
    group?: string;
    deleting?: boolean;
  } = {},
): Ftc {
  const propagation = over.propagation ?? 'Enabled';
  const generation = over.generation ?? 1;
  const scope = over.scope ?? 'Namespaced';
  const status =
    over.status === null
      ? undefined
      : (over.status ?? {
          observedGeneration: generation,
          propagationController: propagation === 'Enabled' ? 'Running' : 'NotRunning',
          statusController: 'NotRunning',
        });
  return {
    apiVersion: 'core.kubefed.io/v1beta1',
    kind: 'FederatedTypeConfig',
    metadata: {
      name: plural,
      namespace: NS,
      generation,
      ...(over.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      targetType: { version: 'v1', kind, pluralName: plural, scope, group: '' },
      propagation,
      federatedType: {
        group: over.group ?? 'types.kubefed.io',
        version: 'v1beta1',
        kind: `Federated${kind}`,
        pluralName: `federated${plural}`,
        scope: 'Namespaced',
      },
    },
    ...(status ? { status } : {}),
  } as Ftc;
}

const namespaces = ftc('namespaces', 'Namespace', { scope: 'Cluster' });
const configmaps = ftc('configmaps', 'ConfigMap');

const NOW = Date.parse('2026-06-01T12:00:00Z');

/** The controller manager's Lease as its leader leaves it: renewed `agoMs` before NOW, 15s long. */
const lease = (agoMs = 1_000, over: Partial<NonNullable<LeaderLease['spec']>> = {}): LeaderLease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: CONTROLLER_MANAGER_LEASE_NAME, namespace: NS },
  spec: {
    holderIdentity: 'cm-0_1234',
    leaseDurationSeconds: 15,
    renewTime: new Date(NOW - agoMs).toISOString().replace('Z', '000Z'),
    ...over,
  },
});

const view = (ftcs: Ftc[], scope: 'Cluster' | 'Namespaced' = 'Cluster'): ControlPlaneView => ({
  kubefedNamespace: NS,
  scope,
  ftcs,
  controllerManagerLease: lease(),
  nowMs: NOW,
});

const cm = (namespace = 'app', name = 'a') => ({
  group: 'types.kubefed.io',
  resource: 'federatedconfigmaps',
  namespace,
  name,
});

describe('syncFinalizerPatch', () => {
  test('adds the list when there is none, appends to one, leaves a present finalizer alone', () => {
    assert.deepEqual(syncFinalizerPatch({ metadata: { name: 'a' } }), [
      { op: 'add', path: '/metadata/finalizers', value: [F] },
    ]);
    assert.deepEqual(syncFinalizerPatch({ metadata: { name: 'a', finalizers: null } }), [
      { op: 'add', path: '/metadata/finalizers', value: [F] },
    ]);
    assert.deepEqual(syncFinalizerPatch({ metadata: { finalizers: ['example.com/hold'] } }), [
      { op: 'add', path: '/metadata/finalizers/-', value: F },
    ]);
    assert.deepEqual(syncFinalizerPatch({ metadata: { finalizers: ['example.com/hold', F] } }), []);
  });

  test('metadata it does not understand gets no patch (the API rejects it, or the controller patches)', () => {
    assert.deepEqual(syncFinalizerPatch({}), []);
    assert.deepEqual(syncFinalizerPatch({ metadata: 'x' }), []);
    assert.deepEqual(syncFinalizerPatch({ metadata: { finalizers: 'x' } }), []);
  });
});

describe('controllerManagerLive', () => {
  test("the controller manager's own leader lease", () => {
    assert.equal(CONTROLLER_MANAGER_LEASE_NAME, LEADER_LOCK_NAME);
  });

  test('a held lease is live until renewTime + leaseDuration + the grace', () => {
    assert.equal(controllerManagerLive(lease(0), NOW), true);
    assert.equal(controllerManagerLive(lease(15_000), NOW), true, 'expired, within the grace');
    assert.equal(controllerManagerLive(lease(15_000 + LEASE_GRACE_MS - 1), NOW), true);
    assert.equal(controllerManagerLive(lease(15_000 + LEASE_GRACE_MS), NOW), false);
    assert.equal(controllerManagerLive(lease(3_600_000), NOW), false);
  });

  test('no lease, a released one, or one without a duration or renewal time is not live', () => {
    assert.equal(controllerManagerLive(undefined, NOW), false);
    assert.equal(controllerManagerLive({ ...lease(), spec: undefined }, NOW), false);
    // What a controller manager leaves on a clean stop (LeaderElector.release).
    assert.equal(
      controllerManagerLive(lease(0, { holderIdentity: '', leaseDurationSeconds: 1 }), NOW),
      false,
    );
    assert.equal(controllerManagerLive(lease(0, { holderIdentity: undefined }), NOW), false);
    assert.equal(controllerManagerLive(lease(0, { leaseDurationSeconds: 0 }), NOW), false);
    assert.equal(controllerManagerLive(lease(0, { leaseDurationSeconds: undefined }), NOW), false);
    assert.equal(controllerManagerLive(lease(0, { renewTime: undefined }), NOW), false);
    assert.equal(controllerManagerLive(lease(0, { renewTime: 'yesterday' }), NOW), false);
  });
});

describe('syncControllerRuns', () => {
  test('an enabled type whose controller runs, in any namespace of a Cluster-scoped control plane', () => {
    assert.equal(syncControllerRuns(view([namespaces, configmaps]), cm()), true);
  });

  test('a Running status without a live controller manager (none, stopped, crashed) gets nothing', () => {
    for (const l of [undefined, lease(0, { holderIdentity: '' }), lease(60_000)]) {
      const v = { ...view([namespaces, configmaps]), controllerManagerLease: l };
      assert.equal(syncControllerRuns(v, cm()), false, JSON.stringify(l?.spec));
    }
  });

  test('a disabled or unknown type, or one of another federated group, gets nothing', () => {
    const disabled = ftc('configmaps', 'ConfigMap', { propagation: 'Disabled' });
    assert.equal(syncControllerRuns(view([namespaces, disabled]), cm()), false);
    assert.equal(syncControllerRuns(view([namespaces]), cm()), false);
    const other = ftc('configmaps', 'ConfigMap', { group: 'federation.example.com' });
    assert.equal(syncControllerRuns(view([namespaces, other]), cm()), false);
  });

  test('enabled, but not yet acted on by the FTC controller (no status, older generation, NotRunning)', () => {
    for (const f of [
      ftc('configmaps', 'ConfigMap', { status: null }),
      ftc('configmaps', 'ConfigMap', {
        generation: 2,
        status: { observedGeneration: 1, propagationController: 'Running', statusController: 'NotRunning' },
      }),
      ftc('configmaps', 'ConfigMap', {
        status: {
          observedGeneration: 1,
          propagationController: 'NotRunning',
          statusController: 'NotRunning',
        },
      }),
    ]) {
      assert.equal(syncControllerRuns(view([namespaces, f]), cm()), false, JSON.stringify(f.status));
    }
  });

  test('an FTC being deleted, or a namespaced type without the namespaces FTC (Cluster scope), gets nothing', () => {
    const deleting = ftc('configmaps', 'ConfigMap', { deleting: true });
    assert.equal(syncControllerRuns(view([namespaces, deleting]), cm()), false);
    assert.equal(syncControllerRuns(view([configmaps]), cm()), false);
  });

  test('Namespaced scope: only the KubeFed namespace, and no cluster-scoped target types', () => {
    assert.equal(syncControllerRuns(view([configmaps], 'Namespaced'), cm(NS)), true);
    assert.equal(syncControllerRuns(view([configmaps], 'Namespaced'), cm('app')), false);
    const clusterRoles = ftc('clusterroles', 'ClusterRole', { scope: 'Cluster' });
    const target = { group: 'types.kubefed.io', resource: 'federatedclusterroles', namespace: NS, name: 'r' };
    assert.equal(syncControllerRuns(view([clusterRoles], 'Namespaced'), target), false);
  });

  test("an FTC that leaves its target's names to their defaults counts, and the view's FTC is left as it was", () => {
    const bare = ftc('configmaps', 'ConfigMap');
    bare.spec.targetType = {
      version: 'v1',
      kind: 'ConfigMap',
      scope: 'Namespaced',
    } as Ftc['spec']['targetType'];
    const before = structuredClone(bare);
    assert.equal(syncControllerRuns(view([namespaces, bare]), cm()), true);
    // The view is the webhook's informer cache, shared by every admission: the defaults go on a copy.
    assert.deepEqual(bare, before);
  });

  test('FederatedNamespaces the sync controller skips get nothing: a wrong name, an unfederatable namespace', () => {
    const fedNs = (namespace: string, name: string) => ({
      group: 'types.kubefed.io',
      resource: 'federatednamespaces',
      namespace,
      name,
    });
    assert.equal(syncControllerRuns(view([namespaces]), fedNs('app', 'app')), true);
    assert.equal(syncControllerRuns(view([namespaces]), fedNs('app', 'other')), false);
    for (const ns of ['kube-system', 'kube-public', 'default', NS]) {
      assert.equal(syncControllerRuns(view([namespaces]), fedNs(ns, ns)), false, ns);
    }
  });
});

describe('admit /mutate-federated', () => {
  const body = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u1',
        operation: 'CREATE',
        resource: { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' },
        namespace: 'app',
        name: 'a',
        object: { metadata: { name: 'a', namespace: 'app' }, spec: {} },
        ...over,
      },
    });
  const decode = (patch: string | undefined) =>
    patch === undefined ? undefined : JSON.parse(Buffer.from(patch, 'base64').toString('utf8'));
  const ctx = { controlPlane: () => view([namespaces, configmaps]) };

  test('CREATE of an object of a running type carries the finalizer as a JSON patch', () => {
    const { response } = admit(WebhookPath.MutateFederated, body(), ctx).review;
    assert.equal(response.allowed, true);
    assert.equal(response.patchType, 'JSONPatch');
    assert.deepEqual(decode(response.patch), [{ op: 'add', path: '/metadata/finalizers', value: [F] }]);
  });

  test('no view (no API access, not synced), an UPDATE, a subresource or a KubeFed group: allowed unchanged', () => {
    for (const [c, over] of [
      [{}, {}],
      [{ controlPlane: () => undefined }, {}],
      [ctx, { operation: 'UPDATE' }],
      [ctx, { subResource: 'status' }],
      [
        ctx,
        {
          resource: { group: 'core.kubefed.io', version: 'v1beta1', resource: 'federatedtypeconfigs' },
        },
      ],
    ] as const) {
      const { response } = admit(WebhookPath.MutateFederated, body(over), c).review;
      assert.deepEqual(response, { uid: 'u1', allowed: true }, JSON.stringify(over));
    }
  });

  test('a create is validated here, with or without a view: an invalid object is refused, not patched', () => {
    // The validating entry sees only updates, so a create's placement, override and template rules are
    // this webhook's to check.
    for (const c of [ctx, {}]) {
      const invalid = body({
        object: {
          metadata: { name: 'a', namespace: 'app' },
          spec: { template: {}, placement: { clusters: 'cluster1' } },
        },
      });
      const { response } = admit(WebhookPath.MutateFederated, invalid, c).review;
      assert.equal(response.allowed, false);
      assert.equal(response.patch, undefined);
      assert.match(response.status?.message ?? '', /placement/);
      const notAnObject = admit(WebhookPath.MutateFederated, body({ object: 'x' }), c).review.response;
      assert.equal(notAnObject.allowed, false);
    }
  });

  test('with the controller manager gone (its lease expired) it is allowed unchanged', () => {
    const { response } = admit(WebhookPath.MutateFederated, body(), {
      controlPlane: () => ({ ...view([namespaces, configmaps]), controllerManagerLease: lease(60_000) }),
    }).review;
    assert.deepEqual(response, { uid: 'u1', allowed: true });
  });

  test('a disabled type is allowed unchanged', () => {
    const disabled = ftc('configmaps', 'ConfigMap', { propagation: 'Disabled' });
    const { response } = admit(WebhookPath.MutateFederated, body(), {
      controlPlane: () => view([namespaces, disabled]),
    }).review;
    assert.deepEqual(response, { uid: 'u1', allowed: true });
  });
});
