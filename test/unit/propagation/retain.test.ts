import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import { FieldRetentionError, retainClusterFields } from '../../../src/propagation/retain.ts';

const obj = (
  kind: string,
  fields: Record<string, unknown> = {},
  metadata: KubeObject['metadata'] = {},
): KubeObject => ({
  kind,
  metadata: { name: 'x', ...metadata },
  ...fields,
});

const retain = (desired: KubeObject, member: KubeObject, retainReplicas = false): KubeObject => {
  retainClusterFields(desired, member, { retainReplicas });
  return desired;
};

describe('retainClusterFields: metadata', () => {
  test('resourceVersion, finalizers and annotations are replaced by the member values', () => {
    const desired = obj(
      'ConfigMap',
      {},
      { labels: { a: 'b' }, annotations: { mine: 'x' }, finalizers: ['mine'] },
    );
    const member = obj(
      'ConfigMap',
      {},
      { resourceVersion: '42', annotations: { theirs: 'y' }, finalizers: ['theirs'], uid: 'u' },
    );
    retain(desired, member);
    assert.deepEqual(desired.metadata, {
      name: 'x',
      labels: { a: 'b' },
      annotations: { theirs: 'y' },
      finalizers: ['theirs'],
      resourceVersion: '42',
    });
  });

  test('fields absent on the member are removed from desired', () => {
    const desired = obj(
      'ConfigMap',
      {},
      { annotations: { a: 'b' }, finalizers: ['f'], resourceVersion: '1' },
    );
    retain(desired, obj('ConfigMap'));
    assert.deepEqual(desired.metadata, { name: 'x' });
  });

  test('copies do not alias the member', () => {
    const member = obj('ConfigMap', {}, { annotations: { a: 'b' }, finalizers: ['f'] });
    const desired = retain(obj('ConfigMap'), member);
    desired.metadata.annotations!.c = 'd';
    desired.metadata.finalizers!.push('g');
    assert.deepEqual(member.metadata.annotations, { a: 'b' });
    assert.deepEqual(member.metadata.finalizers, ['f']);
  });
});

describe('retainClusterFields: replicas (KubeFed retain_test)', () => {
  test('retainReplicas false keeps desired', () => {
    const desired = retain(obj('', { spec: { replicas: 1 } }), obj('', { spec: { replicas: 2 } }), false);
    assert.equal((desired.spec as { replicas: number }).replicas, 1);
  });

  test('retainReplicas true takes the member value', () => {
    const desired = retain(obj('', { spec: { replicas: 1 } }), obj('', { spec: { replicas: 2 } }), true);
    assert.equal((desired.spec as { replicas: number }).replicas, 2);
  });

  test('member without replicas leaves desired alone', () => {
    const desired = retain(
      obj('Deployment', { spec: { replicas: 1 } }),
      obj('Deployment', { spec: {} }),
      true,
    );
    assert.deepEqual(desired.spec, { replicas: 1 });
    const noSpec = retain(obj('Deployment', { spec: { replicas: 1 } }), obj('Deployment'), true);
    assert.deepEqual(noSpec.spec, { replicas: 1 });
  });

  test('desired without spec gets one', () => {
    const desired = retain(obj('Deployment'), obj('Deployment', { spec: { replicas: 4 } }), true);
    assert.deepEqual(desired.spec, { replicas: 4 });
  });

  test('zero replicas is retained', () => {
    const desired = retain(
      obj('Deployment', { spec: { replicas: 3 } }),
      obj('Deployment', { spec: { replicas: 0 } }),
      true,
    );
    assert.deepEqual(desired.spec, { replicas: 0 });
  });

  test('bad types are errors', () => {
    assert.throws(
      () => retain(obj('Deployment'), obj('Deployment', { spec: { replicas: 'two' } }), true),
      FieldRetentionError,
    );
    assert.throws(
      () => retain(obj('Deployment'), obj('Deployment', { spec: 'x' }), true),
      FieldRetentionError,
    );
    assert.throws(
      () => retain(obj('Deployment', { spec: [] }), obj('Deployment', { spec: { replicas: 1 } }), true),
      FieldRetentionError,
    );
  });

  test('Service and ServiceAccount never retain replicas', () => {
    const svc = retain(
      obj('Service', { spec: { replicas: 1 } }),
      obj('Service', { spec: { replicas: 2 } }),
      true,
    );
    assert.deepEqual(svc.spec, { replicas: 1 });
    const sa = retain(
      obj('ServiceAccount', { spec: { replicas: 1 } }),
      obj('ServiceAccount', { spec: { replicas: 2 } }),
      true,
    );
    assert.deepEqual(sa.spec, { replicas: 1 });
  });
});

describe('retainClusterFields: Service (KubeFed retain_test)', () => {
  const service = (spec?: Record<string, unknown>): KubeObject =>
    obj('Service', spec === undefined ? {} : { spec });

  test('healthCheckNodePort', () => {
    assert.deepEqual(retain(service({}), service({})).spec, {});
    assert.throws(
      () => retain(service({}), service({ healthCheckNodePort: 'invalid string' })),
      FieldRetentionError,
    );
    assert.deepEqual(retain(service({}), service({ healthCheckNodePort: 0 })).spec, {});
    assert.deepEqual(retain(service({}), service({ healthCheckNodePort: 1000 })).spec, {
      healthCheckNodePort: 1000,
    });
    assert.deepEqual(
      retain(service({ healthCheckNodePort: 5 }), service({ healthCheckNodePort: 1000 })).spec,
      {
        healthCheckNodePort: 1000,
      },
    );
  });

  test('clusterIP and clusterIPs', () => {
    assert.deepEqual(retain(service({}), service({})).spec, {});
    assert.throws(() => retain(service({}), service({ clusterIP: -1000 })), FieldRetentionError);
    assert.deepEqual(retain(service({}), service({ clusterIP: '1.2.3.4' })).spec, { clusterIP: '1.2.3.4' });
    assert.deepEqual(retain(service({}), service({ clusterIPs: ['1.2.3.4', '5.6.7.8'] })).spec, {
      clusterIPs: ['1.2.3.4', '5.6.7.8'],
    });
    assert.deepEqual(
      retain(service({}), service({ clusterIP: '1.2.3.4', clusterIPs: ['5.6.7.8', '9.10.11.12'] })).spec,
      {
        clusterIP: '1.2.3.4',
        clusterIPs: ['5.6.7.8', '9.10.11.12'],
      },
    );
  });

  test('empty clusterIP and clusterIPs are not copied', () => {
    assert.deepEqual(
      retain(service({ clusterIP: 'None' }), service({ clusterIP: '', clusterIPs: [] })).spec,
      { clusterIP: 'None' },
    );
  });

  test('bad clusterIPs is an error', () => {
    assert.throws(() => retain(service({}), service({ clusterIPs: '1.2.3.4' })), FieldRetentionError);
    assert.throws(() => retain(service({}), service({ clusterIPs: [1] })), FieldRetentionError);
  });

  test('a desired Service without spec gets the allocated fields', () => {
    assert.deepEqual(retain(service(), service({ clusterIP: '10.0.0.1' })).spec, { clusterIP: '10.0.0.1' });
  });

  test('nodePort copied per port matched by name, protocol and port', () => {
    const desired = service({
      ports: [
        { name: 'http', port: 80 },
        { name: 'https', port: 443, protocol: 'TCP' },
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'other', port: 81, nodePort: 30999 },
        { name: 'moved', port: 8080 },
      ],
    });
    const member = service({
      ports: [
        { name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 },
        { name: 'https', port: 443, nodePort: 30443 },
        { name: 'dns', port: 53, protocol: 'TCP', nodePort: 30053 },
        { name: 'other', port: 81, protocol: 'TCP' },
        { name: 'moved', port: 9090, protocol: 'TCP', nodePort: 30090 },
      ],
    });
    assert.deepEqual((retain(desired, member).spec as { ports: unknown }).ports, [
      { name: 'http', port: 80, nodePort: 30080 },
      { name: 'https', port: 443, protocol: 'TCP', nodePort: 30443 },
      { name: 'dns', port: 53, protocol: 'UDP' },
      { name: 'other', port: 81, nodePort: 30999 },
      { name: 'moved', port: 8080 },
    ]);
  });

  test('unnamed single port', () => {
    const desired = retain(
      service({ ports: [{ port: 80 }] }),
      service({ ports: [{ port: 80, protocol: 'TCP', nodePort: 31000 }] }),
    );
    assert.deepEqual(desired.spec, { ports: [{ port: 80, nodePort: 31000 }] });
  });

  test('malformed ports are errors', () => {
    assert.throws(
      () => retain(service({ ports: [{ port: 80 }] }), service({ ports: 'x' })),
      FieldRetentionError,
    );
    assert.throws(
      () => retain(service({ ports: ['x'] }), service({ ports: [{ port: 80 }] })),
      FieldRetentionError,
    );
  });

  test('no ports on either side', () => {
    assert.deepEqual(retain(service({}), service({ ports: [{ port: 1, nodePort: 2 }] })).spec, {});
    assert.deepEqual(retain(service({ ports: [{ port: 1 }] }), service({})).spec, { ports: [{ port: 1 }] });
  });
});

describe('retainClusterFields: ServiceAccount', () => {
  const sa = (secrets?: unknown): KubeObject =>
    obj('ServiceAccount', secrets === undefined ? {} : { secrets });

  test('member secrets kept when desired has none', () => {
    assert.deepEqual(retain(sa(), sa([{ name: 'tok' }])).secrets, [{ name: 'tok' }]);
    assert.deepEqual(retain(sa([]), sa([{ name: 'tok' }])).secrets, [{ name: 'tok' }]);
    assert.deepEqual(retain(sa(null), sa([{ name: 'tok' }])).secrets, [{ name: 'tok' }]);
  });

  test('desired secrets win when populated', () => {
    assert.deepEqual(retain(sa([{ name: 'mine' }]), sa([{ name: 'tok' }])).secrets, [{ name: 'mine' }]);
  });

  test('nothing to keep', () => {
    assert.equal(retain(sa(), sa()).secrets, undefined);
    assert.deepEqual(retain(sa([]), sa([])).secrets, []);
  });

  test('bad types are errors', () => {
    assert.throws(() => retain(sa(), sa('x')), FieldRetentionError);
    assert.throws(() => retain(sa('x'), sa([])), FieldRetentionError);
  });
});

describe('Job selector retention (kubefed-ts)', () => {
  const memberJob = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j', resourceVersion: '5' },
    spec: {
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } },
      template: {
        metadata: {
          labels: {
            app: 'x',
            'batch.kubernetes.io/controller-uid': 'u1',
            'job-name': 'j',
            'controller-uid': 'u1',
            'batch.kubernetes.io/job-name': 'j',
          },
        },
        spec: { restartPolicy: 'Never' },
      },
    },
  };
  test('keeps the generated selector and template labels the template does not set', () => {
    const desired = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { template: { metadata: { labels: { app: 'y' } }, spec: { restartPolicy: 'Never' } } },
    };
    retainClusterFields(desired, memberJob, { retainReplicas: false });
    assert.deepEqual(desired.spec.template.metadata.labels, {
      app: 'y',
      'controller-uid': 'u1',
      'job-name': 'j',
      'batch.kubernetes.io/controller-uid': 'u1',
      'batch.kubernetes.io/job-name': 'j',
    });
    assert.deepEqual((desired.spec as Record<string, unknown>).selector, memberJob.spec.selector);
  });
  test('leaves a manual selector alone', () => {
    const desired = {
      kind: 'Job',
      metadata: { name: 'j' },
      spec: {
        manualSelector: true,
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } } },
      },
    };
    retainClusterFields(desired, memberJob, { retainReplicas: false });
    assert.deepEqual(desired.spec.selector, { matchLabels: { a: 'b' } });
    assert.deepEqual(desired.spec.template.metadata.labels, { a: 'b' });
  });
});
