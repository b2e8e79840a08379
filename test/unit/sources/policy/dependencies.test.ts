import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import { type DependencyRef, dependenciesOf } from '../../../../src/sources/policy/dependencies.ts';

const ref = (kind: DependencyRef['kind'], name: string, namespace = 'ns'): DependencyRef => ({
  apiVersion: 'v1',
  kind,
  namespace,
  name,
});

/** A pod spec referencing one object of each kind. */
const podSpec = {
  serviceAccountName: 'runner',
  containers: [{ name: 'app', envFrom: [{ configMapRef: { name: 'app-config' } }] }],
  volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
  imagePullSecrets: [{ name: 'registry' }],
};
const all = [
  ref('ConfigMap', 'app-config'),
  ref('PersistentVolumeClaim', 'data'),
  ref('Secret', 'registry'),
  ref('ServiceAccount', 'runner'),
];

function workload(kind: string, apiVersion: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion, kind, metadata: { name: 'w', namespace: 'ns' }, spec };
}

describe('dependenciesOf: each kind’s pod spec', () => {
  const rows: Array<[string, string, Record<string, unknown>]> = [
    ['Deployment', 'apps/v1', { template: { spec: podSpec } }],
    ['ReplicaSet', 'apps/v1', { template: { spec: podSpec } }],
    ['DaemonSet', 'apps/v1', { template: { spec: podSpec } }],
    ['StatefulSet', 'apps/v1', { template: { spec: podSpec } }],
    ['Job', 'batch/v1', { template: { spec: podSpec } }],
    ['CronJob', 'batch/v1', { jobTemplate: { spec: { template: { spec: podSpec } } } }],
    ['Pod', 'v1', podSpec],
  ];
  for (const [kind, apiVersion, spec] of rows) {
    test(kind, () => assert.deepEqual(dependenciesOf(workload(kind, apiVersion, spec)), all));
  }

  test('a kind from a list response (no apiVersion) is taken as the built-in', () => {
    const t: KubeObject = {
      kind: 'Deployment',
      metadata: { name: 'w', namespace: 'ns' },
      spec: { template: { spec: podSpec } },
    };
    assert.deepEqual(dependenciesOf(t), all);
  });

  test('the references are in the template’s namespace', () => {
    const t: KubeObject = {
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'other' },
      spec: { serviceAccountName: 'sa' },
    };
    assert.deepEqual(dependenciesOf(t), [ref('ServiceAccount', 'sa', 'other')]);
  });
});

describe('dependenciesOf: where references come from', () => {
  const pod = (spec: Record<string, unknown>) => dependenciesOf(workload('Pod', 'v1', spec));

  test('env valueFrom and envFrom of init, regular and ephemeral containers', () => {
    const env = (cm: string, secret: string) => [
      { name: 'A', valueFrom: { configMapKeyRef: { name: cm, key: 'k' } } },
      { name: 'B', valueFrom: { secretKeyRef: { name: secret, key: 'k' } } },
      { name: 'C', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'D', value: 'plain' },
    ];
    assert.deepEqual(
      pod({
        initContainers: [{ name: 'i', env: env('cm-init', 's-init') }],
        containers: [
          { name: 'c', env: env('cm-main', 's-main'), envFrom: [{ secretRef: { name: 's-from' } }] },
        ],
        ephemeralContainers: [{ name: 'e', env: env('cm-eph', 's-eph') }],
      }),
      [
        ref('ConfigMap', 'cm-eph'),
        ref('ConfigMap', 'cm-init'),
        ref('ConfigMap', 'cm-main'),
        ref('Secret', 's-eph'),
        ref('Secret', 's-from'),
        ref('Secret', 's-init'),
        ref('Secret', 's-main'),
      ],
    );
  });

  test('configMap, secret and projected volumes', () => {
    assert.deepEqual(
      pod({
        volumes: [
          { name: 'a', configMap: { name: 'cm-vol' } },
          { name: 'b', secret: { secretName: 's-vol' } },
          {
            name: 'c',
            projected: {
              sources: [
                { configMap: { name: 'cm-proj' } },
                { secret: { name: 's-proj' } },
                { serviceAccountToken: { path: 'token' } },
                { downwardAPI: { items: [] } },
              ],
            },
          },
          { name: 'd', emptyDir: {} },
        ],
      }),
      [
        ref('ConfigMap', 'cm-proj'),
        ref('ConfigMap', 'cm-vol'),
        ref('Secret', 's-proj'),
        ref('Secret', 's-vol'),
      ],
    );
  });

  test('volume plugins that name a Secret', () => {
    assert.deepEqual(
      pod({
        volumes: [
          { name: 'a', azureFile: { secretName: 'azure', shareName: 's' } },
          { name: 'b', cephfs: { monitors: [], secretRef: { name: 'ceph' } } },
          { name: 'c', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi' } } },
          { name: 'd', iscsi: { secretRef: { name: 'iscsi' } } },
          { name: 'e', flexVolume: { driver: 'f', secretRef: { name: 'flex' } } },
        ],
      }),
      [
        ref('Secret', 'azure'),
        ref('Secret', 'ceph'),
        ref('Secret', 'csi'),
        ref('Secret', 'flex'),
        ref('Secret', 'iscsi'),
      ],
    );
  });

  test('the "default" ServiceAccount and empty names are not dependencies', () => {
    assert.deepEqual(pod({ serviceAccountName: 'default' }), []);
    assert.deepEqual(
      pod({
        serviceAccountName: '',
        imagePullSecrets: [{ name: '' }],
        containers: [{ name: 'c', envFrom: [{ configMapRef: {} }] }],
        volumes: [{ name: 'a', persistentVolumeClaim: { claimName: '' } }],
      }),
      [],
    );
  });

  test('the deprecated serviceAccount field is not read (as Karmada)', () => {
    assert.deepEqual(pod({ serviceAccount: 'legacy' }), []);
  });

  test('duplicates are listed once, sorted by kind then name', () => {
    assert.deepEqual(
      pod({
        imagePullSecrets: [{ name: 'z' }, { name: 'a' }],
        containers: [
          { name: 'c1', envFrom: [{ secretRef: { name: 'z' } }, { configMapRef: { name: 'm' } }] },
          { name: 'c2', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'm', key: 'k' } } }] },
        ],
        volumes: [{ name: 'v', secret: { secretName: 'a' } }],
      }),
      [ref('ConfigMap', 'm'), ref('Secret', 'a'), ref('Secret', 'z')],
    );
  });

  test('StatefulSet volumeClaimTemplates are not dependencies; its pod volumes are', () => {
    const t = workload('StatefulSet', 'apps/v1', {
      volumeClaimTemplates: [{ metadata: { name: 'www' } }],
      template: { spec: { volumes: [{ name: 'shared', persistentVolumeClaim: { claimName: 'shared' } }] } },
    });
    assert.deepEqual(dependenciesOf(t), [ref('PersistentVolumeClaim', 'shared')]);
  });
});

describe('dependenciesOf: other kinds', () => {
  test('Ingress: its TLS Secrets', () => {
    const t = workload('Ingress', 'networking.k8s.io/v1', {
      tls: [{ secretName: 'tls-a', hosts: ['a'] }, { hosts: ['b'] }, { secretName: 'tls-a' }],
    });
    assert.deepEqual(dependenciesOf(t), [ref('Secret', 'tls-a')]);
  });

  test('kinds without a dependency interpreter, and CRDs reusing a built-in kind name, have none', () => {
    assert.deepEqual(dependenciesOf(workload('ConfigMap', 'v1', {})), []);
    assert.deepEqual(dependenciesOf(workload('Service', 'v1', { selector: {} })), []);
    assert.deepEqual(
      dependenciesOf(workload('Deployment', 'example.com/v1', { template: { spec: podSpec } })),
      [],
    );
    assert.deepEqual(dependenciesOf({ metadata: { name: 'kindless' } }), []);
  });

  test('a malformed template yields what can be read', () => {
    assert.deepEqual(dependenciesOf(workload('Deployment', 'apps/v1', { template: 'x' })), []);
    assert.deepEqual(
      dependenciesOf(
        workload('Pod', 'v1', { containers: 'x', volumes: [7, { name: 'a', configMap: { name: 'ok' } }] }),
      ),
      [ref('ConfigMap', 'ok')],
    );
  });
});
