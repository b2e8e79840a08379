import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import {
  AGENT_EXECUTION_ROLE,
  agentInstallPlan,
  DEFAULT_EXECUTION_RULES,
  HUB_AGENT_RULES,
  hubKubeconfig,
  hubPlan,
} from '../../../src/kubefedctl/agent-install.ts';
import { pullHubCleanup, pullMemberCleanup } from '../../../src/kubefedctl/join-pull.ts';

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };

describe('join --mode pull: the hub side', () => {
  const plan = hubPlan({
    cluster: 'c1',
    kubefedNamespace: 'kube-federation-system',
    apiEndpoint: 'https://m:6443',
    leaseDurationSeconds: 60,
  });

  test('namespace, service account, Role and RoleBinding in it, Lease, token Secret, then the KubeFedCluster', () => {
    assert.deepEqual(plan.namespace.object.metadata.name, 'c1');
    assert.deepEqual(
      plan.objects.map((o) => `${o.object.kind} ${o.object.metadata.namespace}/${o.object.metadata.name}`),
      [
        'ServiceAccount c1/c1-agent',
        'Role c1/kubefed-agent:work',
        'RoleBinding c1/kubefed-agent:work',
        'Lease c1/managed-cluster-lease',
        'Secret c1/c1-agent-token',
        'KubeFedCluster kube-federation-system/c1',
      ],
    );
    const secret = plan.objects[4]?.object;
    assert.equal(secret?.type, 'kubernetes.io/service-account-token');
    assert.equal(secret?.metadata.annotations?.['kubernetes.io/service-account.name'], 'c1-agent');
    // No renewTime: not Ready before the agent renews once.
    assert.deepEqual(plan.objects[3]?.object.spec, { leaseDurationSeconds: 60 });
  });

  test('the KubeFedCluster is Pull, with no secretRef and no member credential', () => {
    assert.deepEqual(plan.kubefedCluster.spec, { apiEndpoint: 'https://m:6443', syncMode: 'Pull' });
  });

  test("the Role is OCM's work role in the cluster namespace plus the lease by name; no secrets, no create on leases", () => {
    const rules = HUB_AGENT_RULES as Rule[];
    const can = (resource: string, verb: string) =>
      rules.some((r) => r.resources.includes(resource) && r.verbs.includes(verb));
    for (const v of ['get', 'list', 'watch', 'update', 'patch']) assert.ok(can('manifestworks', v), v);
    assert.ok(!can('manifestworks', 'create') && !can('manifestworks', 'delete'));
    assert.ok(can('manifestworks/status', 'patch') && can('manifestworks/status', 'update'));
    assert.ok(can('events', 'create'));
    assert.ok(!can('leases', 'create') && !can('secrets', 'get'));
    assert.deepEqual(rules.find((r) => r.resources.includes('leases'))?.resourceNames, [
      'managed-cluster-lease',
    ]);
  });

  test('unjoin removes the same objects, last created first (the KubeFedCluster and namespace on their own)', () => {
    assert.deepEqual(
      pullHubCleanup('c1').map(([t, n]) => `${t.kind} ${n}`),
      [
        'Secret c1-agent-token',
        'Lease managed-cluster-lease',
        'RoleBinding kubefed-agent:work',
        'Role kubefed-agent:work',
        'ServiceAccount c1-agent',
      ],
    );
  });
});

describe('join --mode pull: the agent install in the member', () => {
  const kubeconfig = hubKubeconfig({
    cluster: 'c1',
    hubUrl: 'https://hub:6443',
    caData: Buffer.from('CA'),
    token: 'tok',
  });

  test('the hub kubeconfig holds the hub URL, its CA and the token', () => {
    const k = parse(kubeconfig) as {
      clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
      users: Array<{ user: { token: string } }>;
    };
    assert.equal(k.clusters[0]?.cluster.server, 'https://hub:6443');
    assert.equal(k.clusters[0]?.cluster['certificate-authority-data'], Buffer.from('CA').toString('base64'));
    assert.equal(k.users[0]?.user.token, 'tok');
  });

  test('namespace, AMW CRD, RBAC, the hub kubeconfig Secret, then the Deployment', () => {
    const plan = agentInstallPlan({ cluster: 'c1', kubeconfig, leaseDurationSeconds: 60 });
    assert.deepEqual(
      plan.map((o) => `${o.object.kind} ${o.object.metadata.name}`),
      [
        'Namespace kubefed-agent',
        'CustomResourceDefinition appliedmanifestworks.work.open-cluster-management.io',
        'ServiceAccount kubefed-agent',
        'ClusterRole kubefed-agent',
        'ClusterRoleBinding kubefed-agent',
        'ClusterRole kubefed-agent:execution',
        'ClusterRoleBinding kubefed-agent:execution',
        'Secret hub-kubeconfig-secret',
        'Deployment kubefed-agent',
      ],
    );
    const secret = plan.find((o) => o.object.kind === 'Secret')?.object;
    assert.deepEqual(Object.keys((secret?.stringData as Record<string, string>) ?? {}), [
      'kubeconfig',
      'cluster-name',
      'agent-name',
    ]);
    const deployment = plan.at(-1)?.object as unknown as {
      spec: { template: { spec: { containers: Array<{ command: string[]; args: string[] }> } } };
    };
    const container = deployment.spec.template.spec.containers[0];
    assert.deepEqual(container?.command, ['node', '/app/src/cmd/agent.ts']);
    assert.ok(container?.args.includes('--hub-kubeconfig=/spoke/hub-kubeconfig/kubeconfig'));
    assert.ok(container?.args.includes('--cluster-name=c1'));
  });

  test('the default execution role grants workload kinds only: no RBAC, CRDs, webhooks or wildcards', () => {
    const rules = DEFAULT_EXECUTION_RULES as Rule[];
    for (const r of rules) {
      assert.ok(!r.apiGroups.includes('*') && !r.resources.includes('*') && !r.verbs.includes('*'));
      assert.ok(!r.apiGroups.includes('rbac.authorization.k8s.io'));
      assert.ok(!r.apiGroups.includes('apiextensions.k8s.io'));
      assert.ok(!r.apiGroups.includes('admissionregistration.k8s.io'));
    }
  });

  test('--agent-execution-role binds an existing ClusterRole and creates none', () => {
    const plan = agentInstallPlan({
      cluster: 'c1',
      kubeconfig,
      leaseDurationSeconds: 60,
      executionRole: 'admin',
    });
    assert.ok(
      !plan.some((o) => o.object.kind === 'ClusterRole' && o.object.metadata.name === AGENT_EXECUTION_ROLE),
    );
    const binding = plan.find((o) => o.object.metadata.name === AGENT_EXECUTION_ROLE)?.object;
    assert.deepEqual((binding?.roleRef as { name?: string } | undefined)?.name, 'admin');
  });

  test('unjoin removes the agent first and keeps the CRD (its AppliedManifestWorks own what was applied)', () => {
    const steps = pullMemberCleanup().map(([t, n]) => `${t.kind} ${n}`);
    assert.equal(steps[0], 'Deployment kubefed-agent');
    assert.equal(steps.at(-1), 'Namespace kubefed-agent');
    assert.ok(!steps.some((s) => s.startsWith('CustomResourceDefinition')));
  });
});
