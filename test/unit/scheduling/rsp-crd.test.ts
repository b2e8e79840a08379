import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { CustomResourceDefinition, JsonSchemaProps } from '../../../src/api/crd.ts';
import { allCrds } from '../../../src/api/crds.ts';
import {
  API_VERSION,
  GROUP,
  ReplicaSchedulingPreferenceType,
  RSP_KIND,
  VERSION,
} from '../../../src/api/scheduling/v1alpha1/index.ts';
import { CRD_DIR } from '../../../src/install/manifests.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const crd = parse(
  readFileSync(join(root, CRD_DIR, 'scheduling.kubefed.io_replicaschedulingpreferences.yaml'), 'utf8'),
) as CustomResourceDefinition;
const v = crd.spec.versions[0]!;

describe('ReplicaSchedulingPreference CRD', () => {
  test('group, version and REST location', () => {
    assert.equal(GROUP, 'scheduling.kubefed.io');
    assert.equal(VERSION, 'v1alpha1');
    assert.equal(API_VERSION, 'scheduling.kubefed.io/v1alpha1');
    assert.deepEqual(ReplicaSchedulingPreferenceType, {
      group: 'scheduling.kubefed.io',
      version: 'v1alpha1',
      plural: 'replicaschedulingpreferences',
      namespaced: true,
      kind: RSP_KIND,
    });
  });

  test('is one of allCrds(), namespaced, short name rsp, status subresource', () => {
    assert.ok(
      allCrds().some((c) => c.metadata.name === 'replicaschedulingpreferences.scheduling.kubefed.io'),
    );
    assert.deepEqual(crd.spec.names, {
      kind: 'ReplicaSchedulingPreference',
      listKind: 'ReplicaSchedulingPreferenceList',
      plural: 'replicaschedulingpreferences',
      singular: 'replicaschedulingpreference',
      shortNames: ['rsp'],
    });
    assert.equal(crd.spec.scope, 'Namespaced');
    assert.equal(v.name, 'v1alpha1');
    assert.deepEqual(v.subresources, { status: {} });
  });

  test('kubectl get rsp columns: TARGET TOTAL SCHEDULED CLUSTERS STATUS AGE', () => {
    assert.deepEqual(v.additionalPrinterColumns, [
      { name: 'Target', type: 'string', jsonPath: '.spec.targetKind' },
      { name: 'Total', type: 'integer', jsonPath: '.spec.totalReplicas' },
      { name: 'Scheduled', type: 'integer', jsonPath: '.status.totalScheduled' },
      { name: 'Clusters', type: 'string', jsonPath: '.status.clusters' },
      { name: 'Status', type: 'string', jsonPath: ".status.conditions[?(@.type=='Scheduled')].status" },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ]);
  });

  test("spec fields and types match KubeFed's CRD (targetKind and totalReplicas required)", () => {
    const spec = v.schema.openAPIV3Schema.properties!['spec']!;
    assert.deepEqual(spec.required, ['targetKind', 'totalReplicas']);
    const p = spec.properties!;
    assert.equal(p['targetKind']!.type, 'string');
    assert.deepEqual([p['totalReplicas']!.type, p['totalReplicas']!.format], ['integer', 'int32']);
    assert.equal(p['rebalance']!.type, 'boolean');
    assert.equal(p['intersectWithClusterSelector']!.type, 'boolean');
    const pref = p['clusters']!.additionalProperties!;
    for (const f of ['minReplicas', 'maxReplicas', 'weight'])
      assert.deepEqual([pref.properties![f]!.type, pref.properties![f]!.format], ['integer', 'int64']);
  });

  test('the spec is permissive: no enum, minimum, maximum or pattern, so the controller reports bad values', () => {
    const constraints = (node: JsonSchemaProps, path: string): string[] => {
      const found = (['enum', 'minimum', 'maximum', 'pattern', 'x-kubernetes-validations'] as const)
        .filter((k) => node[k] !== undefined)
        .map((k) => `${path}: ${k}`);
      for (const [name, child] of Object.entries(node.properties ?? {}))
        found.push(...constraints(child, `${path}.${name}`));
      if (node.additionalProperties) found.push(...constraints(node.additionalProperties, `${path}.*`));
      if (node.items) found.push(...constraints(node.items, `${path}[*]`));
      return found;
    };
    assert.deepEqual(constraints(v.schema.openAPIV3Schema.properties!['spec']!, 'spec'), []);
  });

  test('status holds the plan: clusters, replicas, overflow, totals, conditions', () => {
    const status = v.schema.openAPIV3Schema.properties!['status']!;
    assert.deepEqual(Object.keys(status.properties!), [
      'observedGeneration',
      'scheduledAt',
      'clusters',
      'replicas',
      'overflow',
      'totalScheduled',
      'conditions',
    ]);
    assert.equal(status.properties!['scheduledAt']!.format, 'date-time');
    assert.equal(status.properties!['clusters']!.items!.type, 'string');
    assert.equal(status.properties!['replicas']!.additionalProperties!.type, 'integer');
    assert.deepEqual(status.properties!['conditions']!.items!.required, ['type', 'status']);
  });
});
