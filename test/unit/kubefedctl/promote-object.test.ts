import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import { CommandError } from '../../../src/kubefedctl/errors.ts';
import { parsePromoteOutput } from '../../../src/kubefedctl/promote.ts';
import {
  generatePolicyName,
  promotionPolicy,
  templateFromMember,
} from '../../../src/kubefedctl/promote-object.ts';

const live: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'nginx',
    namespace: 'default',
    uid: 'u-1',
    resourceVersion: '42',
    generation: 3,
    creationTimestamp: '2026-01-01T00:00:00Z',
    managedFields: [{ manager: 'kubectl' }],
    ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'x' }],
    finalizers: ['f'],
    labels: { app: 'nginx' },
    annotations: { 'deployment.kubernetes.io/revision': '2', keep: 'me' },
  } as KubeObject['metadata'],
  spec: { replicas: 2 },
  status: { readyReplicas: 2 },
} as KubeObject;

describe('promote: the member object as a template', () => {
  test('server-owned metadata, status and the revision annotation go; the conflict annotation comes', () => {
    const t = templateFromMember(live);
    assert.deepEqual(t, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'nginx',
        namespace: 'default',
        labels: { app: 'nginx' },
        annotations: { keep: 'me', 'work.karmada.io/conflict-resolution': 'overwrite' },
      },
      spec: { replicas: 2 },
    });
    assert.equal(live.metadata.uid, 'u-1', 'the input is not changed');
  });

  test('a conflict-resolution annotation the object has is kept', () => {
    const t = templateFromMember({
      ...live,
      metadata: { name: 'n', annotations: { 'work.karmada.io/conflict-resolution': 'abort' } },
    });
    assert.equal(t.metadata.annotations?.['work.karmada.io/conflict-resolution'], 'abort');
  });

  test('member-generated fields per kind: Service cluster IPs, Job selector labels, token secrets', () => {
    const svc = templateFromMember({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], ports: [{ port: 80 }] },
    } as KubeObject);
    assert.deepEqual(svc.spec, { ports: [{ port: 80 }] });
    const headless = templateFromMember({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { clusterIP: 'None', clusterIPs: ['None'] },
    } as KubeObject);
    assert.deepEqual(headless.spec, { clusterIP: 'None', clusterIPs: ['None'] });
    const job = templateFromMember({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: {
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u', keep: 'x' } },
        template: { metadata: { labels: { 'job-name': 'j', 'controller-uid': 'u', keep: 'x' } } },
      },
    } as KubeObject);
    assert.deepEqual(job.spec, {
      selector: { matchLabels: { keep: 'x' } },
      template: { metadata: { labels: { keep: 'x' } } },
    });
    const sa = templateFromMember({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'bot' },
      secrets: [{ name: 'bot-token-abc' }, { name: 'mine' }],
    } as KubeObject);
    assert.deepEqual((sa as KubeObject & { secrets?: unknown }).secrets, [{ name: 'mine' }]);
  });
});

describe('promote: the policy', () => {
  test('a PropagationPolicy naming the object and the cluster, adopting with Overwrite', () => {
    const t = templateFromMember(live);
    assert.deepEqual(promotionPolicy(t, 'member1', 'nginx-p'), {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'nginx-p', namespace: 'default' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }],
        placement: { clusterAffinity: { clusterNames: ['member1'] } },
        conflictResolution: 'Overwrite',
      },
    });
  });

  test('with dependencies promoted, the policy propagates them', () => {
    const p = promotionPolicy(templateFromMember(live), 'member1', 'nginx-p', true);
    assert.equal((p.spec as { propagateDeps?: boolean }).propagateDeps, true);
  });

  test('a ClusterPropagationPolicy for a cluster-scoped object', () => {
    const p = promotionPolicy(
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } },
      'm',
      'r-x',
    );
    assert.equal(p.kind, 'ClusterPropagationPolicy');
    assert.deepEqual(p.metadata, { name: 'r-x' });
  });

  test('generated names: the object name with a suffix that tells namespace and kind apart', () => {
    const a = generatePolicyName('default', 'Nginx', 'apps/v1', 'Deployment');
    assert.match(a, /^nginx-[0-9a-f]{10}$/);
    assert.equal(a, generatePolicyName('default', 'Nginx', 'apps/v1', 'Deployment'));
    assert.notEqual(a, generatePolicyName('default', 'Nginx', 'v1', 'Service'));
    assert.notEqual(a, generatePolicyName('other', 'Nginx', 'apps/v1', 'Deployment'));
  });

  test('-o takes yaml or json only', () => {
    assert.equal(parsePromoteOutput(undefined), undefined);
    assert.equal(parsePromoteOutput('json'), 'json');
    assert.throws(() => parsePromoteOutput('wide'), CommandError);
  });
});
