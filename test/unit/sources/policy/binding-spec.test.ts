import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CPP_NAME_ANNOTATION,
  CPP_PERMANENT_ID_LABEL,
  PP_NAME_ANNOTATION,
  PP_NAMESPACE_ANNOTATION,
  PP_PERMANENT_ID_LABEL,
  RB_FINALIZER,
} from '../../../../src/api/policy/v1alpha1/index.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import {
  type BindingObject,
  claimMetadata,
  desiredBinding,
  mergeBinding,
  templateReplicas,
  unclaimedBinding,
} from '../../../../src/sources/policy/binding-spec.ts';
import type { CandidatePolicy } from '../../../../src/sources/policy/matching.ts';

const web: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'apps', uid: 'u-web', generation: 3 },
  spec: { replicas: 4 },
};

const policy: CandidatePolicy = {
  kind: 'PropagationPolicy',
  namespace: 'apps',
  name: 'web-pp',
  permanentId: 'id-1',
  deleting: false,
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
    placement: { clusterAffinity: { clusterNames: ['c1'] } },
    preserveResourcesOnDeletion: true,
  },
};

describe('desiredBinding', () => {
  test('is the ResourceBinding Karmada builds: name, owner, claim metadata, finalizer and the policy fields', () => {
    const b = desiredBinding(web, policy);
    assert.equal(b.kind, 'ResourceBinding');
    assert.equal(b.metadata.name, 'web-deployment');
    assert.equal(b.metadata.namespace, 'apps');
    assert.deepEqual(b.metadata.labels, { [PP_PERMANENT_ID_LABEL]: 'id-1' });
    assert.deepEqual(b.metadata.annotations, {
      [PP_NAMESPACE_ANNOTATION]: 'apps',
      [PP_NAME_ANNOTATION]: 'web-pp',
    });
    assert.deepEqual(b.metadata.finalizers, [RB_FINALIZER]);
    assert.deepEqual(b.metadata.ownerReferences, [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: 'u-web',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.deepEqual(b.spec.resource, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'apps',
      name: 'web',
      uid: 'u-web',
    });
    assert.equal(b.spec.replicas, 4);
    assert.deepEqual(b.spec.placement, policy.spec.placement);
    assert.equal(b.spec.conflictResolution, 'Abort');
    assert.equal(b.spec.preserveResourcesOnDeletion, true);
    assert.equal(b.spec.schedulerName, 'default-scheduler');
    assert.equal(b.spec.clusters, undefined, 'the scheduler writes clusters, never the detector');
  });

  test("carries one replica's requests as spec.replicaRequirements (Karmada's GetReplicas), kept up to date", () => {
    assert.equal(desiredBinding(web, policy).spec.replicaRequirements, undefined);
    const requesting: KubeObject = {
      ...web,
      spec: {
        replicas: 4,
        template: { spec: { containers: [{ name: 'a', resources: { requests: { cpu: '200m' } } }] } },
      },
    };
    const b = desiredBinding(requesting, policy);
    assert.deepEqual(b.spec.replicaRequirements, { resourceRequest: { cpu: '200m' } });
    const merged = mergeBinding(desiredBinding(web, policy), b);
    assert.deepEqual(merged?.spec.replicaRequirements, { resourceRequest: { cpu: '200m' } });
    assert.equal(mergeBinding(b, desiredBinding(web, policy))?.spec.replicaRequirements, undefined);
  });

  test('a cluster-scoped template gets a ClusterResourceBinding', () => {
    const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', uid: 'u' } };
    const b = desiredBinding(ns, { ...policy, kind: 'ClusterPropagationPolicy', namespace: undefined });
    assert.equal(b.kind, 'ClusterResourceBinding');
    assert.equal(b.metadata.namespace, undefined);
    assert.deepEqual(b.metadata.labels, { [CPP_PERMANENT_ID_LABEL]: 'id-1' });
    assert.deepEqual(b.metadata.annotations, { [CPP_NAME_ANNOTATION]: 'web-pp' });
    assert.equal(b.spec.replicas, undefined, 'not a workload');
  });
});

describe('templateReplicas', () => {
  test('follows Karmada’s default interpreter', () => {
    assert.equal(templateReplicas(web), 4);
    assert.equal(templateReplicas({ ...web, spec: {} }), 1, 'a Deployment without replicas has 1');
    assert.equal(
      templateReplicas({ apiVersion: 'batch/v1', kind: 'Job', metadata: {}, spec: { parallelism: 3 } }),
      3,
    );
    assert.equal(templateReplicas({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }), 0);
  });
});

describe('mergeBinding', () => {
  const existing = (): BindingObject => ({
    ...desiredBinding(web, policy),
    metadata: {
      ...desiredBinding(web, policy).metadata,
      uid: 'rb-uid',
      resourceVersion: '7',
      labels: { [PP_PERMANENT_ID_LABEL]: 'id-1', team: 'a' },
    },
    spec: { ...desiredBinding(web, policy).spec, clusters: [{ name: 'c1', replicas: 4 }] },
  });

  test('changes nothing when the binding is what the policy says (no write)', () => {
    const b = existing();
    assert.equal(mergeBinding(b, desiredBinding(web, policy)), undefined);
  });

  test('a policy change updates the policy fields and keeps spec.clusters, other labels and the uid', () => {
    const changed = desiredBinding(
      { ...web, spec: { replicas: 6 } },
      { ...policy, spec: { ...policy.spec, conflictResolution: 'Overwrite' } },
    );
    const merged = mergeBinding(existing(), changed);
    assert.ok(merged);
    assert.equal(merged.spec.replicas, 6);
    assert.equal(merged.spec.conflictResolution, 'Overwrite');
    assert.deepEqual(merged.spec.clusters, [{ name: 'c1', replicas: 4 }]);
    assert.equal(merged.metadata.labels?.team, 'a');
    assert.equal(merged.metadata.uid, 'rb-uid');
  });

  test('a claim by another policy replaces the old claim metadata and re-uses the binding', () => {
    const other = desiredBinding(web, {
      ...policy,
      kind: 'ClusterPropagationPolicy',
      namespace: undefined,
      name: 'all',
      permanentId: 'id-2',
    });
    const merged = mergeBinding(existing(), other);
    assert.ok(merged);
    assert.equal(merged.metadata.labels?.[PP_PERMANENT_ID_LABEL], undefined);
    assert.equal(merged.metadata.labels?.[CPP_PERMANENT_ID_LABEL], 'id-2');
    assert.equal(merged.metadata.annotations?.[PP_NAME_ANNOTATION], undefined);
    assert.deepEqual(merged.spec.clusters, [{ name: 'c1', replicas: 4 }]);
  });

  test('a field the policy no longer sets is removed', () => {
    const merged = mergeBinding(
      existing(),
      desiredBinding(web, { ...policy, spec: { ...policy.spec, preserveResourcesOnDeletion: undefined } }),
    );
    assert.equal(merged?.spec.preserveResourcesOnDeletion, undefined);
  });
});

describe('unclaimedBinding', () => {
  test('strips the claim whose permanent-id matches, and only that', () => {
    const b = desiredBinding(web, policy);
    const u = unclaimedBinding(b, 'id-1');
    assert.deepEqual(u?.metadata.labels, {});
    assert.deepEqual(u?.metadata.annotations, {});
    assert.equal(
      unclaimedBinding(b, 'someone-else'),
      undefined,
      'a newer claim is not removed (karmada#5307)',
    );
  });
});

describe('claimMetadata', () => {
  test('is Karmada’s label and annotations for each policy kind', () => {
    assert.deepEqual(
      claimMetadata({ kind: 'PropagationPolicy', namespace: 'n', name: 'p', permanentId: 'x' }),
      {
        labels: { [PP_PERMANENT_ID_LABEL]: 'x' },
        annotations: { [PP_NAMESPACE_ANNOTATION]: 'n', [PP_NAME_ANNOTATION]: 'p' },
      },
    );
  });
});
