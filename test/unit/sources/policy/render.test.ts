import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  KARMADA_MANAGED_LABEL,
  TEMPLATE_GENERATION_ANNOTATION,
} from '../../../../src/api/policy/v1alpha1/index.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import type { PolicyCluster } from '../../../../src/sources/policy/cluster-affinity.ts';
import type { NamedOverridePolicy } from '../../../../src/sources/policy/overrides/select.ts';
import {
  MANAGED_ANNOTATIONS_ANNOTATION,
  MANAGED_LABELS_ANNOTATION,
  memberObject,
  pruneHostFields,
} from '../../../../src/sources/policy/render.ts';

const cluster: PolicyCluster = { name: 'c1', labels: {}, zones: [], ready: true };
const claim = {
  labels: { 'propagationpolicy.karmada.io/permanent-id': 'id' },
  annotations: { 'propagationpolicy.karmada.io/name': 'pp' },
};

const template = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'apps',
    uid: 'u',
    resourceVersion: '9',
    generation: 4,
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'web' },
    annotations: { team: 'a', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
    finalizers: ['x'],
    managedFields: [],
  } as KubeObject['metadata'],
  spec: { replicas: 6, template: { spec: { containers: [{ name: 'app', image: 'nginx:1' }] } } },
  status: { readyReplicas: 6 },
});

describe('memberObject', () => {
  test('the template without server-owned metadata and status, with the cluster’s replicas and the claim', () => {
    const { object } = memberObject({
      template: template(),
      cluster,
      replicas: 2,
      overrides: [],
      claim,
      retainReplicas: false,
    });
    assert.deepEqual(Object.keys(object.metadata).sort(), ['annotations', 'labels', 'name', 'namespace']);
    assert.equal((object as { status?: unknown }).status, undefined);
    assert.equal((object.spec as { replicas: number }).replicas, 2);
    assert.equal(object.metadata.labels?.app, 'web');
    assert.equal(object.metadata.labels?.['propagationpolicy.karmada.io/permanent-id'], 'id');
    assert.equal(object.metadata.labels?.[KARMADA_MANAGED_LABEL], 'true');
    assert.equal(object.metadata.annotations?.team, 'a');
    assert.equal(
      object.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'],
      undefined,
    );
    assert.equal(object.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '4');
    assert.equal(
      object.metadata.annotations?.[MANAGED_LABELS_ANNOTATION],
      'app,karmada.io/managed,propagationpolicy.karmada.io/permanent-id',
    );
    assert.match(object.metadata.annotations?.[MANAGED_ANNOTATIONS_ANNOTATION] ?? '', /(^|,)team(,|$)/);
  });

  test('replicas are only set on workload kinds', () => {
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'apps' },
      data: { a: '1' },
    };
    const { object } = memberObject({
      template: cm,
      cluster,
      replicas: 3,
      overrides: [],
      claim,
      retainReplicas: false,
    });
    assert.equal(object.spec, undefined);
  });

  test('overrides apply to the cluster they target and are named', () => {
    const op: NamedOverridePolicy = {
      kind: 'OverridePolicy',
      name: 'img',
      namespace: 'apps',
      spec: {
        overrideRules: [
          {
            targetCluster: { clusterNames: ['c1'] },
            overriders: { imageOverrider: [{ component: 'Tag', operator: 'replace', value: '2' }] },
          },
        ],
      },
    };
    const { object, applied } = memberObject({
      template: template(),
      cluster,
      replicas: 1,
      overrides: [op],
      claim,
      retainReplicas: false,
    });
    const image = (object.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template
      .spec.containers[0]?.image;
    assert.equal(image, 'nginx:2');
    assert.deepEqual(applied, ['OverridePolicy apps/img']);
    const other = memberObject({
      template: template(),
      cluster: { ...cluster, name: 'c2' },
      replicas: 1,
      overrides: [op],
      claim,
      retainReplicas: false,
    });
    assert.equal(
      (other.object.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec
        .containers[0]?.image,
      'nginx:1',
    );
  });

  test('against the live copy: the member’s own labels and annotations, resourceVersion and finalizers stay; ones the template dropped go', () => {
    const first = memberObject({
      template: template(),
      cluster,
      replicas: 2,
      overrides: [],
      claim,
      retainReplicas: false,
    }).object;
    const live: KubeObject = {
      ...first,
      metadata: {
        ...first.metadata,
        resourceVersion: '77',
        finalizers: ['member/keep'],
        labels: { ...first.metadata.labels, 'member-label': 'm' },
        annotations: { ...first.metadata.annotations, 'deployment.kubernetes.io/revision': '3' },
      },
    };
    const t = template();
    t.metadata.annotations = {};
    t.metadata.labels = {};
    const { object } = memberObject({
      template: t,
      cluster,
      replicas: 2,
      overrides: [],
      claim,
      live,
      retainReplicas: false,
    });
    assert.equal(object.metadata.resourceVersion, '77');
    assert.deepEqual(object.metadata.finalizers, ['member/keep']);
    assert.equal(object.metadata.labels?.['member-label'], 'm');
    assert.equal(
      object.metadata.labels?.app,
      undefined,
      'dropped from the template, so dropped from the member',
    );
    assert.equal(object.metadata.annotations?.['deployment.kubernetes.io/revision'], '3');
    assert.equal(object.metadata.annotations?.team, undefined);
  });

  test('retainReplicas keeps the member’s replicas (an HPA there owns them)', () => {
    const live: KubeObject = { ...template(), spec: { replicas: 9 } };
    const { object } = memberObject({
      template: template(),
      cluster,
      replicas: 2,
      overrides: [],
      claim,
      live,
      retainReplicas: true,
    });
    assert.equal((object.spec as { replicas: number }).replicas, 9);
  });
});

describe('pruneHostFields', () => {
  test('a Service loses the cluster IPs the federation API server allocated, unless headless', () => {
    const svc: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { clusterIP: '10.0.0.7', clusterIPs: ['10.0.0.7'], ports: [{ port: 80 }] },
    };
    pruneHostFields(svc);
    assert.deepEqual(svc.spec, { ports: [{ port: 80 }] });
    const headless: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'h' },
      spec: { clusterIP: 'None', clusterIPs: ['None'] },
    };
    pruneHostFields(headless);
    assert.equal((headless.spec as { clusterIP: string }).clusterIP, 'None');
  });

  test('a Job loses its generated selector and controller-uid labels, unless its selector is manual', () => {
    const job = (manualSelector?: boolean): KubeObject => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: {
        ...(manualSelector ? { manualSelector } : {}),
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'host-uid' } },
        template: {
          metadata: {
            labels: {
              app: 'j',
              'controller-uid': 'host-uid',
              'batch.kubernetes.io/controller-uid': 'host-uid',
              'job-name': 'j',
            },
          },
        },
      },
    });
    const generated = job();
    pruneHostFields(generated);
    assert.equal((generated.spec as { selector?: unknown }).selector, undefined);
    assert.deepEqual(
      (generated.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata
        .labels,
      { app: 'j', 'job-name': 'j' },
    );
    const manual = job(true);
    pruneHostFields(manual);
    assert.ok((manual.spec as { selector?: unknown }).selector);
  });

  test('a ServiceAccount loses its token Secrets', () => {
    const sa = {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'app' },
      secrets: [{ name: 'app-token-x1' }, { name: 'pull' }],
    } as KubeObject;
    pruneHostFields(sa);
    assert.deepEqual((sa as { secrets?: unknown }).secrets, [{ name: 'pull' }]);
  });
});

describe('memberObject: ownerReferences set in the member are kept', () => {
  test('the live copy’s owner references survive an update', () => {
    const refs = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'o' }];
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'a' },
      data: { a: '1' },
    };
    const live: KubeObject = { ...cm, metadata: { ...cm.metadata, ownerReferences: refs } };
    const { object } = memberObject({
      template: cm,
      cluster,
      overrides: [],
      claim,
      live,
      retainReplicas: false,
    });
    assert.deepEqual(object.metadata.ownerReferences, refs);
  });
});
