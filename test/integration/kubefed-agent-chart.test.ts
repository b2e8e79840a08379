// charts/kubefed-agent: what `helm template` renders is the member side of `kubefedctl join --mode pull`
// (src/kubefedctl/agent-install.ts), in the release namespace: the same RBAC, the hub kubeconfig Secret when
// given, and the Deployment running kubefed-agent with the chart's flags.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { memberCrds } from '../../src/api/crds.ts';
import { loadCrds } from '../../src/install/control-plane.ts';
import { AGENT_CHART_CRD_DIR } from '../../src/install/manifests.ts';
import type { KubeObject } from '../../src/kube/client/index.ts';
import { agentInstallPlan } from '../../src/kubefedctl/agent-install.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { helmBinary } from '../../src/testing/binaries.ts';

const CHART = join(REPO_ROOT, 'charts/kubefed-agent');
type Obj = KubeObject & Record<string, unknown>;

function helmTemplate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      helmBinary(),
      ['template', 'agent', CHART, '--namespace', 'agents', ...args],
      { timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
    );
  });
}

async function render(args: string[]): Promise<Obj[]> {
  const r = await helmTemplate(args);
  assert.equal(r.code, 0, r.stderr);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

const find = (objs: Obj[], kind: string, name: string) =>
  objs.find((o) => o.kind === kind && o.metadata.name === name);

describe('charts/kubefed-agent (helm template)', () => {
  test("renders join's member objects in the release namespace, with the same RBAC", async () => {
    const objs = await render(['--set', 'clusterName=cluster1', '--set', 'hub.kubeconfig=KUBECONFIG-TEXT']);
    const plan = agentInstallPlan({
      cluster: 'cluster1',
      kubeconfig: 'KUBECONFIG-TEXT',
      leaseDurationSeconds: 60,
    });
    for (const { object } of plan) {
      if (object.kind === 'Namespace' || object.kind === 'CustomResourceDefinition') continue;
      const rendered = find(objs, object.kind ?? '', object.metadata.name ?? '');
      assert.ok(rendered, `${object.kind} ${object.metadata.name} is rendered`);
      if (object.metadata.namespace) assert.equal(rendered.metadata.namespace, 'agents');
      if ('rules' in object)
        assert.deepEqual(rendered['rules'], object['rules'], `${object.metadata.name} rules`);
      if ('roleRef' in object) assert.deepEqual(rendered['roleRef'], object['roleRef']);
    }
    const secret = find(objs, 'Secret', 'hub-kubeconfig-secret');
    assert.deepEqual(secret?.['stringData'], {
      kubeconfig: 'KUBECONFIG-TEXT',
      'cluster-name': 'cluster1',
      'agent-name': 'cluster1',
    });
    const d = find(objs, 'Deployment', 'kubefed-agent') as unknown as {
      spec: {
        strategy: { type: string };
        template: { spec: { containers: Array<{ image: string; command: string[]; args: string[] }> } };
      };
    };
    const c = d.spec.template.spec.containers[0];
    assert.equal(d.spec.strategy.type, 'Recreate');
    assert.equal(c?.image, 'ghcr.io/kubefed-ts/kubefed-ts:0.1.0');
    assert.deepEqual(c?.command, ['node', '/app/src/cmd/agent.ts']);
    for (const flag of [
      '--hub-kubeconfig=/spoke/hub-kubeconfig/kubeconfig',
      '--cluster-name=cluster1',
      '--status-sync-interval=10s',
      '--lease-duration=60s',
      '--eviction-grace-period=60m',
    ])
      assert.ok(c?.args.includes(flag), flag);
  });

  test('crds/ holds the AppliedManifestWork CRD, as npm run crds generates it', () => {
    assert.deepEqual(
      loadCrds(join(REPO_ROOT, AGENT_CHART_CRD_DIR)).map((c) => c.metadata.name),
      memberCrds().map((c) => c.metadata.name),
    );
  });

  test('executionRole binds an existing ClusterRole; without hub.kubeconfig the Secret is expected to exist', async () => {
    const objs = await render(['--set', 'clusterName=cluster1', '--set', 'executionRole=admin']);
    assert.equal(find(objs, 'ClusterRole', 'kubefed-agent:execution'), undefined);
    assert.deepEqual(
      (find(objs, 'ClusterRoleBinding', 'kubefed-agent:execution')?.['roleRef'] as { name?: string })?.name,
      'admin',
    );
    assert.equal(find(objs, 'Secret', 'hub-kubeconfig-secret'), undefined);
  });

  test('a missing or invalid clusterName fails with one readable line', async () => {
    const missing = await helmTemplate([]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /clusterName is required/);
    const bad = await helmTemplate(['--set', 'clusterName=Bad_Name']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /clusterName "Bad_Name" is not a valid namespace name/);
  });
});
