import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ManifestWork } from '../../../../src/api/ocm/work/v1/index.ts';
import { OWNER_ANNOTATION } from '../../../../src/engine/ownership.ts';
import {
  manifestWorkFor,
  renderForPull,
  sameManifestWork,
} from '../../../../src/engine/pull/manifest-work.ts';
import {
  MAX_WORK_NAME,
  manifestWorkLabels,
  manifestWorkName,
  WORK_SPEC_HASH_ANNOTATION,
} from '../../../../src/engine/pull/names.ts';
import {
  type DesiredObject,
  type ObjectRef,
  RenderError,
  type WorkOwner,
} from '../../../../src/engine/work.ts';
import { CoreTypes, type KubeObject } from '../../../../src/kube/client/index.ts';
import { MANAGED_LABEL } from '../../../../src/propagation/constants.ts';

const federated: WorkOwner = {
  source: 'federated',
  kind: 'FederatedConfigMap',
  namespace: 'ns',
  name: 'a',
  uid: 'u1',
};
const policy: WorkOwner = {
  source: 'policy',
  kind: 'ResourceBinding',
  namespace: 'apps',
  name: 'web-deployment',
  uid: 'u2',
};
const CM = { ...CoreTypes.configMaps, kind: 'ConfigMap' };
const DEPLOY = { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true, kind: 'Deployment' };
const NAMESPACE = { ...CoreTypes.namespaces, kind: 'Namespace' };

const cmRef: ObjectRef = { type: CM, namespace: 'ns', name: 'a' };
const cm = (data: Record<string, string> = { k: 'v' }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns', resourceVersion: '7', uid: 'x', labels: { app: 'a' } },
  data,
});

describe('manifestWorkName', () => {
  test('source, kind, namespace.name, lowercased', () => {
    assert.equal(manifestWorkName(federated), 'kubefed-federated-federatedconfigmap-ns.a');
  });
  test('cluster-scoped: no namespace part', () => {
    assert.equal(
      manifestWorkName({ source: 'policy', kind: 'ClusterResourceBinding', name: 'crb' }),
      'kubefed-policy-clusterresourcebinding-crb',
    );
  });
  test('namespace and name cannot run into each other: ns "a-b" name "c" differs from ns "a" name "b-c"', () => {
    const x = manifestWorkName({ ...federated, namespace: 'a-b', name: 'c' });
    const y = manifestWorkName({ ...federated, namespace: 'a', name: 'b-c' });
    assert.notEqual(x, y);
  });
  test('too long: cut, ending in a hash of the owner, deterministic and distinct', () => {
    const long = (n: string) => manifestWorkName({ ...federated, name: `${'x'.repeat(200)}${n}` });
    assert.equal(long('1').length <= MAX_WORK_NAME, true);
    assert.match(long('1'), /^kubefed-federated-federatedconfigmap-ns\.x+-[0-9a-f]{10}$/);
    assert.equal(long('1'), long('1'));
    assert.notEqual(long('1'), long('2'));
  });
  test('characters a name may not hold are replaced, and a hash keeps it unique', () => {
    const n = manifestWorkName({ source: 'policy', kind: 'ClusterResourceBinding', name: 'system:admin' });
    assert.match(n, /^kubefed-policy-clusterresourcebinding-system-admin-[0-9a-f]{10}$/);
  });
});

describe('manifestWorkLabels', () => {
  test('name the owner', () => {
    assert.deepEqual(manifestWorkLabels(federated), {
      'kubefed-ts.io/owner-source': 'federated',
      'kubefed-ts.io/owner-kind': 'FederatedConfigMap',
      'kubefed-ts.io/owner-namespace': 'ns',
      'kubefed-ts.io/owner-name': 'a',
    });
  });
  test('a name too long for a label value is cut and hashed', () => {
    const v = manifestWorkLabels({ ...federated, name: 'n'.repeat(100) })['kubefed-ts.io/owner-name'] ?? '';
    assert.equal(v.length <= 63, true);
    assert.match(v, /^n+-[0-9a-f]{10}$/);
  });
  test('a cluster-scoped owner has no namespace label', () => {
    const l = manifestWorkLabels({ source: 'policy', kind: 'ClusterResourceBinding', name: 'c', uid: '' });
    assert.equal(l['kubefed-ts.io/owner-namespace'], undefined);
  });
});

describe('manifestWorkFor', () => {
  const mw = manifestWorkFor(federated, 'cluster1', [{ ref: cmRef, object: cm() }]);
  test('in the hub namespace named after the cluster, with the owner named', () => {
    assert.equal(mw.metadata.namespace, 'cluster1');
    assert.equal(mw.metadata.name, 'kubefed-federated-federatedconfigmap-ns.a');
    assert.equal(mw.apiVersion, 'work.open-cluster-management.io/v1');
    assert.equal(mw.kind, 'ManifestWork');
    assert.equal(mw.metadata.annotations?.[OWNER_ANNOTATION], 'federated:FederatedConfigMap:ns/a');
    assert.equal(mw.metadata.labels?.['kubefed-ts.io/owner-source'], 'federated');
  });
  test('the manifest is stamped as the applier stamps it, names its owner (the agent asks), has no server-set fields', () => {
    const m = mw.spec.workload?.manifests?.[0];
    assert.deepEqual(m, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'a',
        namespace: 'ns',
        labels: { app: 'a', [MANAGED_LABEL]: 'true' },
        annotations: { [OWNER_ANNOTATION]: 'federated:FederatedConfigMap:ns/a' },
      },
      data: { k: 'v' },
    });
  });
  test('other sources get their owner annotation on the manifest', () => {
    const ref: ObjectRef = { type: DEPLOY, namespace: 'apps', name: 'web' };
    const w = manifestWorkFor(policy, 'c', [
      { ref, object: { metadata: { name: 'web', namespace: 'apps' }, spec: {}, status: { replicas: 1 } } },
    ]);
    const m = w.spec.workload?.manifests?.[0];
    assert.equal(m?.metadata.annotations?.[OWNER_ANNOTATION], 'policy:ResourceBinding:apps/web-deployment');
    assert.equal(m?.apiVersion, 'apps/v1');
    assert.equal(m?.kind, 'Deployment');
    assert.equal(m?.status, undefined);
  });
  test('server-side apply as work-agent, forced, with the status and generation fed back', () => {
    assert.deepEqual(mw.spec.manifestConfigs, [
      {
        resourceIdentifier: { group: '', resource: 'configmaps', name: 'a', namespace: 'ns' },
        updateStrategy: {
          type: 'ServerSideApply',
          serverSideApply: { force: true, fieldManager: 'work-agent' },
        },
        feedbackRules: [
          {
            type: 'JSONPaths',
            jsonPaths: [
              { name: 'status', path: '.status' },
              { name: 'generation', path: '.metadata.generation' },
            ],
          },
        ],
      },
    ]);
  });
  test('deleted in the foreground by default', () => {
    assert.deepEqual(mw.spec.deleteOption, { propagationPolicy: 'Foreground' });
  });
  test('what the Work keeps is orphaned selectively', () => {
    const nsRef: ObjectRef = { type: NAMESPACE, name: 'host' };
    const w = manifestWorkFor(
      federated,
      'c',
      [
        { ref: nsRef, object: { metadata: { name: 'host' } } },
        { ref: cmRef, object: cm() },
      ],
      { keep: (r) => r.name === 'host' },
    );
    assert.deepEqual(w.spec.deleteOption, {
      propagationPolicy: 'SelectivelyOrphan',
      selectivelyOrphans: { orphaningRules: [{ group: '', resource: 'namespaces', name: 'host' }] },
    });
    assert.deepEqual(w.spec.manifestConfigs?.[0]?.resourceIdentifier, {
      group: '',
      resource: 'namespaces',
      name: 'host',
    });
  });
  test('released: orphaned, and the manifests lose the managed label (the owner annotation lets the agent apply it)', () => {
    const w = manifestWorkFor(policy, 'c', [{ ref: cmRef, object: cm() }], { release: true });
    assert.deepEqual(w.spec.deleteOption, { propagationPolicy: 'Orphan' });
    const m = w.spec.workload?.manifests?.[0];
    assert.deepEqual(m?.metadata.labels, { app: 'a' });
    assert.deepEqual(m?.metadata.annotations, {
      [OWNER_ANNOTATION]: 'policy:ResourceBinding:apps/web-deployment',
    });
  });
  test('the spec hash: equal for the same content, different for a change', () => {
    const again = manifestWorkFor(federated, 'cluster1', [{ ref: cmRef, object: cm() }]);
    const changed = manifestWorkFor(federated, 'cluster1', [{ ref: cmRef, object: cm({ k: 'w' }) }]);
    assert.match(mw.metadata.annotations?.[WORK_SPEC_HASH_ANNOTATION] ?? '', /^[0-9a-f]{64}$/);
    assert.equal(sameManifestWork(again, mw), true);
    assert.equal(sameManifestWork(changed, mw), false);
  });
  test('an existing work without the hash (written by hand) is rewritten', () => {
    const bare: ManifestWork = { ...mw, metadata: { ...mw.metadata, annotations: {} } };
    assert.equal(sameManifestWork(bare, mw), false);
  });
  test('the rendered object is not changed', () => {
    const o = cm();
    manifestWorkFor(policy, 'c', [{ ref: cmRef, object: o }]);
    assert.deepEqual(o, cm());
  });
});

describe('renderForPull', () => {
  const desired = (render: DesiredObject['render'], extra: Partial<DesiredObject> = {}): DesiredObject => ({
    ...cmRef,
    render,
    ...extra,
  });
  const previous = manifestWorkFor(federated, 'c', [{ ref: cmRef, object: cm({ old: 'yes' }) }]);

  test('renders as for a create (no live copy), with the warnings as events', () => {
    let seen: KubeObject | undefined | null = null;
    const r = renderForPull(
      'c',
      [
        desired((live) => {
          seen = live;
          return { object: cm(), warnings: [{ reason: 'W', message: 'careful' }] };
        }),
      ],
      undefined,
    );
    assert.equal(seen, undefined);
    assert.deepEqual(r.objects, [{ ref: cmRef, object: cm() }]);
    assert.deepEqual(r.warnings, [{ type: 'Warning', reason: 'W', message: 'careful' }]);
    assert.deepEqual(r.failures, []);
  });
  test('a render error: its status, and the previous manifest is kept (the copy stays as it is)', () => {
    const r = renderForPull(
      'c',
      [
        desired(() => {
          throw new RenderError('FieldRetentionFailed', 'bad');
        }),
      ],
      previous,
    );
    assert.deepEqual(r.failures, [
      {
        ref: cmRef,
        status: 'FieldRetentionFailed',
        message: 'bad',
        event: { type: 'Warning', reason: 'FieldRetentionFailed', message: 'Cluster "c": bad' },
      },
    ]);
    assert.deepEqual(
      r.objects.map((o) => o.object.data),
      [{ old: 'yes' }],
    );
  });
  test('any other error is ComputeResourceFailed; without a previous work nothing is sent', () => {
    const r = renderForPull(
      'c',
      [
        desired(() => {
          throw new Error('boom');
        }),
      ],
      undefined,
    );
    assert.equal(r.failures[0]?.status, 'ComputeResourceFailed');
    assert.deepEqual(r.objects, []);
  });
  test('an invalid object: its status, the previous manifest kept, not rendered', () => {
    const r = renderForPull(
      'c',
      [desired(() => assert.fail('rendered'), { invalid: { status: 'ApplyOverridesFailed', message: 'm' } })],
      previous,
    );
    assert.deepEqual(r.failures, [{ ref: cmRef, status: 'ApplyOverridesFailed', message: 'm' }]);
    assert.equal(r.objects.length, 1);
  });
});
