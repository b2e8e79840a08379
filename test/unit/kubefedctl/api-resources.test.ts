import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { KubeClient } from '../../../src/kube/client/index.ts';
import { type ApiResourceInfo, discoverApiResources } from '../../../src/kube/discovery.ts';
import {
  findApiResource,
  lookupApiResource,
  targetSchemaInfo,
} from '../../../src/kubefedctl/api-resources.ts';
import { CommandError } from '../../../src/kubefedctl/errors.ts';

function res(
  group: string,
  plural: string,
  kind: string,
  shortNames: string[] = [],
  extra: Partial<ApiResourceInfo> = {},
): ApiResourceInfo {
  return {
    group,
    version: 'v1',
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames,
    namespaced: true,
    verbs: ['get', 'list'],
    subresources: [],
    ...extra,
  };
}

const resources: ApiResourceInfo[] = [
  res('', 'configmaps', 'ConfigMap', ['cm']),
  res('', 'events', 'Event', ['ev']),
  res('', 'services', 'Service', ['svc']),
  res('apps', 'deployments', 'Deployment', ['deploy']),
  res('events.k8s.io', 'events', 'Event', ['ev']),
  res('etcd.database.coreos.com', 'etcdclusters', 'EtcdCluster', ['etcd']),
  res('example.com', 'widgets', 'Widget'),
  res('other.example.com', 'widgets', 'Widget', ['wd']),
  res('third.example.com', 'gadgets', 'Gadget', ['wd']),
];

const lookup = (name: string) => {
  const r = lookupApiResource(resources, name);
  return r.group ? `${r.plural}.${r.group}` : r.plural;
};

describe('lookupApiResource (KubeFed LookupAPIResource)', () => {
  test('matches plural, singular, kind (any case), short name and plural.group', () => {
    assert.equal(lookup('deployments'), 'deployments.apps');
    assert.equal(lookup('deployment'), 'deployments.apps');
    assert.equal(lookup('Deployment'), 'deployments.apps');
    assert.equal(lookup('DEPLOY'), 'deployments.apps');
    assert.equal(lookup('deployments.apps'), 'deployments.apps');
    assert.equal(lookup('EtcdCluster'), 'etcdclusters.etcd.database.coreos.com');
    assert.equal(lookup('etcd'), 'etcdclusters.etcd.database.coreos.com');
    assert.equal(lookup('etcdclusters.etcd.database.coreos.com'), 'etcdclusters.etcd.database.coreos.com');
    assert.equal(lookup('cm'), 'configmaps');
  });

  test('the core group wins over another group with the same name', () => {
    assert.equal(lookup('events'), 'events');
    assert.equal(lookup('ev'), 'events');
    // Order does not matter: a core match wins even when listed after the other group.
    assert.equal(lookupApiResource([...resources].reverse(), 'events').group, '');
    assert.equal(lookup('events.events.k8s.io'), 'events.events.k8s.io');
  });

  test('several non-core matches are an error naming each, group-qualified and sorted', () => {
    assert.throws(
      () => lookupApiResource(resources, 'widgets'),
      new CommandError(
        'Multiple resources are matched by "widgets": widgets.example.com, widgets.other.example.com. A group-qualified plural name must be provided.',
      ),
    );
    assert.throws(
      () => lookupApiResource(resources, 'wd'),
      /^CommandError: Multiple resources are matched by "wd": gadgets\.third\.example\.com, widgets\.other\.example\.com\./,
    );
    assert.equal(lookup('widgets.other.example.com'), 'widgets.other.example.com');
  });

  test('no match', () => {
    assert.throws(
      () => lookupApiResource(resources, 'nosuchthing'),
      new CommandError('Unable to find api resource named "nosuchthing".'),
    );
  });
});

/** A fake API server for discovery edge cases a real one will not produce: a broken group, legacy fields. */
let server: Server;
let client: KubeClient;
let openApiBroken = false;

const json = (body: unknown) => JSON.stringify(body);
const routes: Record<string, unknown> = {
  '/api': { kind: 'APIVersions', versions: ['v1'] },
  '/api/v1': {
    resources: [
      {
        name: 'configmaps',
        singularName: 'configmap',
        namespaced: true,
        kind: 'ConfigMap',
        verbs: ['get'],
        shortNames: ['cm'],
      },
      {
        name: 'replicationcontrollers',
        singularName: '',
        namespaced: true,
        kind: 'ReplicationController',
        verbs: ['get'],
      },
      {
        name: 'replicationcontrollers/scale',
        singularName: '',
        namespaced: true,
        kind: 'Scale',
        verbs: ['get'],
      },
      {
        name: 'replicationcontrollers/status',
        singularName: '',
        namespaced: true,
        kind: 'ReplicationController',
        verbs: ['get'],
      },
    ],
  },
  '/apis': {
    groups: [
      {
        name: 'autoscaling',
        versions: [{ version: 'v2' }, { version: 'v1' }],
        preferredVersion: { version: 'v2' },
      },
      { name: 'broken.example.com', versions: [{ version: 'v1' }], preferredVersion: { version: 'v1' } },
      {
        name: 'stable.example.com',
        versions: [{ version: 'v1' }, { version: 'v1beta1' }],
        preferredVersion: { version: 'v1' },
      },
    ],
  },
  '/apis/autoscaling/v2': {
    resources: [
      {
        name: 'horizontalpodautoscalers',
        singularName: 'horizontalpodautoscaler',
        namespaced: true,
        kind: 'HorizontalPodAutoscaler',
        verbs: ['get'],
        shortNames: ['hpa'],
      },
    ],
  },
  '/apis/autoscaling/v1': {
    resources: [
      {
        name: 'horizontalpodautoscalers',
        singularName: 'horizontalpodautoscaler',
        namespaced: true,
        kind: 'HorizontalPodAutoscaler',
        verbs: ['get'],
        shortNames: ['hpa'],
      },
    ],
  },
  '/apis/stable.example.com/v1': {
    resources: [
      { name: 'crontabs', singularName: 'crontab', namespaced: true, kind: 'CronTab', verbs: ['get'] },
    ],
  },
  // Only served by the non-preferred version: still discovered, from that version.
  '/apis/stable.example.com/v1beta1': {
    resources: [
      { name: 'crontabs', singularName: 'crontab', namespaced: true, kind: 'CronTab', verbs: ['get'] },
      { name: 'oldtabs', singularName: 'oldtab', namespaced: false, kind: 'OldTab', verbs: ['get'] },
    ],
  },
  '/openapi/v3': { paths: { 'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=X' } } },
  '/openapi/v3/api/v1': {
    components: {
      schemas: {
        'io.k8s.api.core.v1.ReplicationController': {
          type: 'object',
          properties: {
            spec: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.ReplicationControllerSpec' }] },
          },
          'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'ReplicationController' }],
        },
        'io.k8s.api.core.v1.ReplicationControllerSpec': {
          type: 'object',
          properties: { replicas: { type: 'integer', format: 'int32' } },
        },
        'io.k8s.api.core.v1.ConfigMap': {
          type: 'object',
          properties: { data: { type: 'object' } },
          'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'ConfigMap' }],
        },
      },
    },
  },
  '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com': {
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      versions: [
        {
          name: 'v1',
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' } } },
              },
            },
          },
        },
        {
          name: 'v1beta1',
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } },
          subresources: {
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
          },
        },
      ],
    },
  },
};

before(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    res.setHeader('content-type', 'application/json');
    const body = routes[path];
    if (path === '/apis/broken.example.com/v1' || (openApiBroken && path.startsWith('/openapi'))) {
      res.writeHead(503);
      res.end(
        json({
          kind: 'Status',
          reason: 'ServiceUnavailable',
          message: 'the server is currently unable to handle the request',
          code: 503,
        }),
      );
      return;
    }
    if (body === undefined) {
      res.writeHead(404);
      res.end(json({ kind: 'Status', reason: 'NotFound', message: `${path} not found`, code: 404 }));
      return;
    }
    res.end(json(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const server_ = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new KubeClient(
    {
      contextName: 'fake',
      clusterName: 'fake',
      userName: 'fake',
      server: server_,
      insecureSkipTLSVerify: false,
    },
    { name: 'fake' },
  );
});
after(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('discoverApiResources', () => {
  test('preferred version per resource, else the first version serving it; subresources folded in', async () => {
    const { resources: found, failures } = await discoverApiResources(client);
    assert.deepEqual(
      found.map((r) => `${r.plural}.${r.group}/${r.version}`),
      [
        'configmaps./v1',
        'replicationcontrollers./v1',
        'horizontalpodautoscalers.autoscaling/v2',
        'crontabs.stable.example.com/v1',
        'oldtabs.stable.example.com/v1beta1',
      ],
    );
    const rc = found.find((r) => r.plural === 'replicationcontrollers');
    assert.deepEqual(rc?.subresources, ['scale', 'status']);
    assert.equal(
      rc?.singular,
      'replicationcontroller',
      'an empty singularName falls back to the lower-cased kind',
    );
    assert.deepEqual(
      failures.map((f) => f.groupVersion),
      ['broken.example.com/v1'],
    );
  });

  test('with a version, that version of every group that has it', async () => {
    const { resources: found } = await discoverApiResources(client, { version: 'v1' });
    assert.deepEqual(
      found.map((r) => `${r.plural}.${r.group}/${r.version}`),
      [
        'configmaps./v1',
        'replicationcontrollers./v1',
        'horizontalpodautoscalers.autoscaling/v1',
        'crontabs.stable.example.com/v1',
      ],
    );
    const beta = await discoverApiResources(client, { version: 'v1beta1' });
    assert.deepEqual(
      beta.resources.map((r) => `${r.plural}/${r.version}`),
      ['crontabs/v1beta1', 'oldtabs/v1beta1'],
    );
  });

  test('findApiResource warns about broken groups only when a match is found', async () => {
    const warnings: string[] = [];
    const r = await findApiResource(client, 'hpa', { warn: (l) => warnings.push(l) });
    assert.equal(r.plural, 'horizontalpodautoscalers');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /broken\.example\.com\/v1/);
    await assert.rejects(
      findApiResource(client, 'nosuch', { warn: (l) => warnings.push(l) }),
      /^CommandError: Unable to find api resource named "nosuch"\. Discovery failed for broken\.example\.com\/v1: /,
    );
    assert.equal(warnings.length, 1);
  });
});

describe('targetSchemaInfo', () => {
  const find = async (name: string, version?: string) =>
    lookupApiResource((await discoverApiResources(client, { version })).resources, name);

  test('built-in types: spec.replicas int32 found through $ref/allOf in OpenAPI v3', async () => {
    assert.deepEqual(await targetSchemaInfo(client, await find('replicationcontrollers')), {
      hasSchema: true,
      scalable: true,
    });
    assert.deepEqual(await targetSchemaInfo(client, await find('configmaps')), {
      hasSchema: true,
      scalable: false,
    });
  });

  test('CRD targets: their own schema of that version, or a scale subresource on .spec.replicas', async () => {
    assert.deepEqual(await targetSchemaInfo(client, await find('crontabs')), {
      hasSchema: true,
      scalable: true,
    });
    assert.deepEqual(await targetSchemaInfo(client, await find('crontabs', 'v1beta1')), {
      hasSchema: true,
      scalable: true,
    });
  });

  test('without OpenAPI: a schema is assumed and scalability comes from the scale subresource', async () => {
    openApiBroken = true;
    try {
      assert.deepEqual(await targetSchemaInfo(client, await find('replicationcontrollers')), {
        hasSchema: true,
        scalable: true,
      });
      // Not a CRD (404) and no OpenAPI: no scale subresource, so not scalable.
      assert.deepEqual(await targetSchemaInfo(client, await find('hpa')), {
        hasSchema: true,
        scalable: false,
      });
    } finally {
      openApiBroken = false;
    }
  });
});
