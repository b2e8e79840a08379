import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import type { ApiResourceInfo } from '../../../src/kube/discovery.ts';
import { CommandError } from '../../../src/kubefedctl/errors.ts';
import {
  contentResourceTypes,
  federate,
  isGeneratedObject,
  validateFederateArgs,
} from '../../../src/kubefedctl/federate.ts';

describe('federate flags (KubeFed Complete)', () => {
  test('arguments are required unless -f, which takes none', () => {
    assert.throws(() => validateFederateArgs([], {}), new CommandError('TYPE-NAME is required'));
    assert.throws(() => validateFederateArgs(['deploy'], {}), new CommandError('RESOURCE-NAME is required'));
    assert.deepEqual(validateFederateArgs(['deploy', 'web'], {}), {
      typeName: 'deploy',
      resourceName: 'web',
      output: undefined,
    });
    assert.throws(
      () => validateFederateArgs(['deploy', 'web'], { filename: 'x.yaml' }),
      new CommandError("Flag '--filename' does not take any args. Got args: [deploy web]"),
    );
    assert.deepEqual(validateFederateArgs([], { filename: '-' }), { output: undefined });
  });

  test('--output accepts only yaml, and not with --enable-type', () => {
    assert.equal(validateFederateArgs(['cm', 'x'], { output: 'yaml' }).output, 'yaml');
    assert.throws(
      () => validateFederateArgs(['cm', 'x'], { output: 'json' }),
      new CommandError('Invalid value for --output: json'),
    );
    assert.throws(
      () => validateFederateArgs(['cm', 'x'], { output: 'yaml', enableType: true }),
      new CommandError("Flag '--enable-type' cannot be used with '--output [yaml]'"),
    );
  });

  test('the checks run in KubeFed order: output, then filename, then arguments', () => {
    assert.throws(
      () => validateFederateArgs([], { output: 'json', filename: 'x' }),
      /Invalid value for --output/,
    );
    assert.throws(
      () => validateFederateArgs([], { enableType: true, output: 'yaml' }),
      /TYPE-NAME is required/,
    );
  });
});

function res(
  plural: string,
  group: string,
  kind: string,
  extra: Partial<ApiResourceInfo> = {},
): ApiResourceInfo {
  return {
    group,
    version: 'v1',
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    namespaced: true,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    ...extra,
  };
}

describe('--contents: which resource types', () => {
  const discovered = [
    res('configmaps', '', 'ConfigMap', { shortNames: ['cm'] }),
    res('endpoints', '', 'Endpoints', { shortNames: ['ep'] }),
    res('events', '', 'Event', { shortNames: ['ev'] }),
    res('namespaces', '', 'Namespace', { namespaced: false }),
    res('bindings', '', 'Binding', { verbs: ['create'] }),
    res('secrets', '', 'Secret'),
    res('deployments', 'apps', 'Deployment', { shortNames: ['deploy'] }),
    res('replicasets', 'apps', 'ReplicaSet', { shortNames: ['rs'] }),
    res('events', 'events.k8s.io', 'Event', { shortNames: ['ev'] }),
    res('ingresses', 'extensions', 'Ingress', { version: 'v1beta1' }),
    res('ingresses', 'networking.k8s.io', 'Ingress', { shortNames: ['ing'] }),
    res('federateddeployments', 'types.kubefed.io', 'FederatedDeployment', { version: 'v1beta1' }),
    res('federatedtypeconfigs', 'core.kubefed.io', 'FederatedTypeConfig', { version: 'v1beta1' }),
    res('propagatedversions', 'core.kubefed.io', 'PropagatedVersion', { version: 'v1alpha1' }),
    res('roles', 'rbac.authorization.k8s.io', 'Role'),
    res('rolebindings', 'rbac.authorization.k8s.io', 'RoleBinding'),
  ];
  const names = (skip: string[] = []) =>
    contentResourceTypes(discovered, skip).map((r) => (r.group ? `${r.plural}.${r.group}` : r.plural));

  test('skips cluster-scoped, unlistable, extensions, Federated* types and controller-created resources', () => {
    assert.deepEqual(names(), [
      'configmaps',
      'deployments.apps',
      // Not Federated* in types.kubefed.io, so KubeFed federates it too.
      'federatedtypeconfigs.core.kubefed.io',
      'ingresses.networking.k8s.io',
      'replicasets.apps',
      'rolebindings.rbac.authorization.k8s.io',
      'roles.rbac.authorization.k8s.io',
      'secrets',
    ]);
  });

  test('user skips match short names, kinds, plurals, plural.group and whole groups', () => {
    assert.deepEqual(
      names(['cm', 'Secret', 'rs', 'ingresses.networking.k8s.io', 'rbac.authorization.k8s.io', '']),
      ['deployments.apps', 'federatedtypeconfigs.core.kubefed.io'],
    );
    assert.deepEqual(names(['apps', 'core.kubefed.io']), [
      'configmaps',
      'ingresses.networking.k8s.io',
      'rolebindings.rbac.authorization.k8s.io',
      'roles.rbac.authorization.k8s.io',
      'secrets',
    ]);
  });
});

describe('--contents: generated objects are left out', () => {
  const cm = { group: '', plural: 'configmaps' };
  const obj = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
    metadata: { name },
    ...extra,
  });

  test('objects with a controller owner', () => {
    const owned = obj('web-5d4f', {
      metadata: {
        name: 'web-5d4f',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u', controller: true },
        ],
      },
    });
    assert.equal(isGeneratedObject({ group: 'apps', plural: 'replicasets' }, owned), true);
    const merelyOwned = obj('x', {
      metadata: {
        name: 'x',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'y', uid: 'u' }],
      },
    });
    assert.equal(isGeneratedObject(cm, merelyOwned), false);
  });

  test('kube-root-ca.crt, the default ServiceAccount and token Secrets', () => {
    assert.equal(isGeneratedObject(cm, obj('kube-root-ca.crt')), true);
    assert.equal(isGeneratedObject(cm, obj('settings')), false);
    assert.equal(isGeneratedObject({ group: '', plural: 'serviceaccounts' }, obj('default')), true);
    assert.equal(isGeneratedObject({ group: '', plural: 'serviceaccounts' }, obj('builder')), false);
    const secrets = { group: '', plural: 'secrets' };
    assert.equal(
      isGeneratedObject(secrets, obj('builder-token', { type: 'kubernetes.io/service-account-token' })),
      true,
    );
    assert.equal(isGeneratedObject(secrets, obj('creds', { type: 'Opaque' })), false);
    // The same names in another group are ordinary objects.
    assert.equal(
      isGeneratedObject({ group: 'example.com', plural: 'configmaps' }, obj('kube-root-ca.crt')),
      false,
    );
  });
});

describe('federate -f (offline, no cluster)', () => {
  const input =
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: demo, annotations: {a: b}}\ndata: {k: v}\n';

  test('prints the federated objects as YAML and warns about annotations', async () => {
    const out: string[] = [];
    const warns: string[] = [];
    const res = await federate({
      kubefedNamespace: 'kube-federation-system',
      namespace: 'default',
      filename: '-',
      readInput: () => input,
      out: (l) => out.push(l),
      warn: (l) => warns.push(l),
    });
    assert.equal(res.objects.length, 1);
    assert.equal(
      out.join(''),
      [
        '---',
        'apiVersion: types.kubefed.io/v1beta1',
        'kind: FederatedConfigMap',
        'metadata:',
        '  name: cfg',
        '  namespace: demo',
        'spec:',
        '  template:',
        '    data:',
        '      k: v',
        '  placement:',
        '    clusterSelector:',
        '      matchLabels: {}',
        '',
      ].join('\n'),
    );
    assert.deepEqual(warns, [
      'Annotations defined for ConfigMap "demo/cfg" will not appear in the template of the federated resource: a',
    ]);
  });

  test("unreadable input fails with KubeFed's prefix", async () => {
    await assert.rejects(
      federate({
        kubefedNamespace: 'kube-federation-system',
        namespace: 'default',
        filename: 'nope.yaml',
        readInput: () => {
          throw new Error('ENOENT: no such file or directory');
        },
      }),
      new CommandError('Failed to load yaml from file "nope.yaml": ENOENT: no such file or directory'),
    );
  });
});
