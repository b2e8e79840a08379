import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultFederatedTypes } from '../../../src/federation-types/default-types.ts';
import type { FederatedTypeConfigObject } from '../../../src/federation-types/federated-crd.ts';
import { CoreTypes } from '../../../src/kube/client/index.ts';
import { memberPlan } from '../../../src/kubefedctl/join.ts';
import { PROPAGATION_VERBS, sameRules, scopedRbacRules } from '../../../src/kubefedctl/scoped-rbac.ts';

const NS = 'kube-federation-system';
const defaults = () => defaultFederatedTypes(NS).ftcs;
const only = (...names: string[]) => defaults().filter((f) => names.includes(f.metadata.name));
const HEALTH = [
  { nonResourceURLs: ['/healthz', '/version'], verbs: ['get'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list'] },
];
const SLICES = { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] };
const PODS = { apiGroups: [''], resources: ['pods'], verbs: ['list'] };

describe('scoped member RBAC rules from FTCs', () => {
  test('cluster scope: the propagation verbs on each enabled target, one rule per group, sorted', () => {
    const { rules, healthCheckRules } = scopedRbacRules(defaults(), 'Cluster');
    assert.equal(healthCheckRules, undefined);
    assert.deepEqual(rules, [
      {
        apiGroups: [''],
        resources: ['configmaps', 'namespaces', 'secrets', 'serviceaccounts', 'services'],
        verbs: PROPAGATION_VERBS,
      },
      { apiGroups: ['apps'], resources: ['deployments', 'replicasets'], verbs: PROPAGATION_VERBS },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: PROPAGATION_VERBS },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: PROPAGATION_VERBS },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: PROPAGATION_VERBS },
      SLICES,
      PODS,
      ...HEALTH,
    ]);
    assert.deepEqual(PROPAGATION_VERBS, ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']);
  });

  test('no wildcard anywhere, and nothing for secrets unless the secrets type is enabled', () => {
    const { rules } = scopedRbacRules(only('configmaps', 'namespaces'), 'Cluster');
    assert.deepEqual(rules, [
      { apiGroups: [''], resources: ['configmaps', 'namespaces'], verbs: PROPAGATION_VERBS },
      SLICES,
      ...HEALTH,
    ]);
    const all = JSON.stringify(scopedRbacRules(defaults(), 'Cluster'));
    assert.ok(!all.includes('*'), all);
  });

  test('pods are readable only while Deployments or ReplicaSets are federated (replica scheduling)', () => {
    const has = (ftcs: FederatedTypeConfigObject[]) =>
      scopedRbacRules(ftcs, 'Cluster').rules.some((r) => r.resources?.includes('pods'));
    assert.equal(has(only('configmaps')), false);
    assert.equal(has(only('deployments.apps')), true);
    assert.equal(has(only('replicasets.apps')), true);
  });

  test('disabled, deleting and malformed FTCs grant nothing; duplicates collapse', () => {
    const [cm] = only('configmaps') as [FederatedTypeConfigObject];
    const disabled = {
      ...cm,
      metadata: { ...cm.metadata, name: 'x' },
      spec: { ...cm.spec, propagation: 'Disabled' },
    };
    const deleting = {
      ...only('secrets')[0],
      metadata: { name: 'secrets', deletionTimestamp: '2026-01-01T00:00:00Z' },
    } as FederatedTypeConfigObject;
    const noSpec = {
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'FederatedTypeConfig',
      metadata: { name: 'y' },
    };
    const { rules } = scopedRbacRules(
      [disabled as FederatedTypeConfigObject, deleting, noSpec as FederatedTypeConfigObject, cm, cm],
      'Cluster',
    );
    assert.deepEqual(rules[0], { apiGroups: [''], resources: ['configmaps'], verbs: PROPAGATION_VERBS });
    assert.equal(rules.length, 1 + 1 + HEALTH.length);
  });

  test("an FTC that leaves the target's group empty gets it from its name, as the FTC controller does", () => {
    const [d] = only('deployments.apps') as [FederatedTypeConfigObject];
    const bare = structuredClone(d);
    delete bare.spec.targetType.group;
    assert.deepEqual(scopedRbacRules([bare], 'Cluster').rules[0], {
      apiGroups: ['apps'],
      resources: ['deployments'],
      verbs: PROPAGATION_VERBS,
    });
  });

  test('a CRD target is granted in its own group', () => {
    const [cm] = only('configmaps') as [FederatedTypeConfigObject];
    const crd = structuredClone(cm);
    crd.metadata.name = 'widgets.example.com';
    crd.spec.targetType = {
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      pluralName: 'widgets',
      scope: 'Cluster',
    };
    assert.deepEqual(scopedRbacRules([crd], 'Cluster').rules[0], {
      apiGroups: ['example.com'],
      resources: ['widgets'],
      verbs: PROPAGATION_VERBS,
    });
  });

  test('namespaced scope: namespaced targets only (as the FTC controller), cluster reads in the health role', () => {
    const { rules, healthCheckRules } = scopedRbacRules(defaults(), 'Namespaced');
    assert.deepEqual(rules, [
      {
        apiGroups: [''],
        resources: ['configmaps', 'secrets', 'serviceaccounts', 'services'],
        verbs: PROPAGATION_VERBS,
      },
      { apiGroups: ['apps'], resources: ['deployments', 'replicasets'], verbs: PROPAGATION_VERBS },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: PROPAGATION_VERBS },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: PROPAGATION_VERBS },
      SLICES,
      PODS,
    ]);
    assert.deepEqual(healthCheckRules, HEALTH);
  });

  test('sameRules ignores the field order and empty lists the API server returns', () => {
    const mine = scopedRbacRules(only('configmaps'), 'Cluster').rules;
    // The API server's order (verbs first) and an empty list where none was sent.
    const served = mine.map(({ verbs, ...rest }) => ({ verbs, resourceNames: [], ...rest }));
    assert.notEqual(JSON.stringify(served), JSON.stringify(mine));
    assert.ok(sameRules(served, mine));
    assert.ok(!sameRules(scopedRbacRules(only('secrets'), 'Cluster').rules, mine));
    assert.ok(!sameRules([...mine].reverse(), mine));
  });
});

describe('join plan', () => {
  const roleOf = (plan: ReturnType<typeof memberPlan>, type: unknown) =>
    plan.find((o) => o.type === type)?.object;

  test("without scoped rules, KubeFed's roles", () => {
    const plan = memberPlan(NS, 'c1-host', 'Cluster');
    assert.deepEqual(roleOf(plan, CoreTypes.clusterRoles)?.rules, [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['get'] },
    ]);
  });

  test('with scoped rules, the same objects and names carrying those rules, in both scopes', () => {
    const scoped = scopedRbacRules(only('configmaps'), 'Cluster');
    const plan = memberPlan(NS, 'c1-host', 'Cluster', scoped);
    assert.deepEqual(
      plan.map((o) => o.object.metadata.name),
      memberPlan(NS, 'c1-host', 'Cluster').map((o) => o.object.metadata.name),
    );
    assert.deepEqual(roleOf(plan, CoreTypes.clusterRoles)?.rules, scoped.rules);

    const nsScoped = scopedRbacRules(only('configmaps'), 'Namespaced');
    const nsPlan = memberPlan(NS, 'c1-host', 'Namespaced', nsScoped);
    assert.deepEqual(roleOf(nsPlan, CoreTypes.roles)?.rules, nsScoped.rules);
    assert.equal(roleOf(nsPlan, CoreTypes.roles)?.metadata.namespace, NS);
    assert.deepEqual(roleOf(nsPlan, CoreTypes.clusterRoles)?.rules, nsScoped.healthCheckRules);
    assert.equal(
      roleOf(nsPlan, CoreTypes.clusterRoles)?.metadata.name,
      `kubefed-controller-manager:${NS}:healthcheck-c1-host`,
    );
  });
});
