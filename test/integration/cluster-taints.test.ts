// Cluster taints end to end on real apiservers: kubefedctl cordon/uncordon/taint, the health controller's
// NoSchedule taint on a member whose apiserver is stopped, and a ClusterTaintPolicy's NoExecute taint.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KubeFedClusterType, type Taint } from '../../src/api/core/v1beta1/index.ts';
import { ClusterTaintPolicyType } from '../../src/controllers/clustertaintpolicy/controller.ts';
import type { KubeClient } from '../../src/kube/client/index.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  type ClusterObject,
  condition,
  kubefedctl,
  NS,
  startControlPlane,
  waitForCluster,
} from './helpers.ts';

const UNSCHEDULABLE = 'cluster.karmada.io/unschedulable';
const UNREACHABLE = 'cluster.karmada.io/unreachable';
const NOT_READY = 'cluster.karmada.io/not-ready';
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** key=value:effect of each taint, in order. */
const taintsOf = (c: ClusterObject | undefined): string[] =>
  (c?.spec.taints ?? []).map((t: Taint) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`);

describe('cluster taints against real apiservers', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  const kc = ['--kubeconfig', '', '--host-cluster-context', 'host'];
  const cli = (...args: string[]) => kubefedctl([...args, ...kc]);
  const get = (name: string) => host.get<ClusterObject>(KubeFedClusterType, name, NS);

  before(async () => {
    fed = await startFederation({ members: ['m1', 'm2'] });
    kc[1] = fed.kubeconfigPath;
    ({ host, cm } = await startControlPlane(fed));
    for (const m of ['m1', 'm2']) {
      const r = await cli('join', m);
      assert.equal(r.code, 0, r.stderr);
    }
    for (const m of ['m1', 'm2'])
      await waitForCluster(host, m, 'Ready', (c) => condition(c, 'Ready')?.status === 'True');
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('cordon and uncordon: the unschedulable NoSchedule taint, idempotent, in karmadactl wording', async () => {
    let r = await cli('cordon', 'm1');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'm1 cluster cordoned\n');
    assert.deepEqual((await get('m1')).spec.taints, [{ key: UNSCHEDULABLE, effect: 'NoSchedule' }]);
    r = await cli('cordon', 'm1');
    assert.equal(r.stdout, 'm1 cluster already cordoned\n');
    assert.deepEqual(taintsOf(await get('m1')), [`${UNSCHEDULABLE}:NoSchedule`]);

    r = await cli('uncordon', 'm1');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'm1 cluster uncordoned\n');
    assert.equal((await get('m1')).spec.taints, undefined);
    r = await cli('uncordon', 'm1');
    assert.equal(r.stdout, 'm1 cluster already uncordoned\n');

    r = await cli('cordon', 'nope');
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `Error: kubefedclusters.core.kubefed.io "nope" not found in namespace "${NS}"\n`);
  });

  test('taint clusters: add, refuse an overwrite without --overwrite, modify, remove; errors one line', async () => {
    let r = await cli('taint', 'clusters', 'm1', 'dedicated=gpu:NoSchedule', 'maintenance:NoExecute');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'kubefedcluster.core.kubefed.io/m1 tainted\n');
    let m1 = await get('m1');
    assert.deepEqual(taintsOf(m1), ['dedicated=gpu:NoSchedule', 'maintenance:NoExecute']);
    assert.equal(m1.spec.taints?.[0]?.timeAdded, undefined, 'kubectl stamps only NoExecute taints');
    assert.match(m1.spec.taints?.[1]?.timeAdded ?? '', RFC3339);

    r = await cli('taint', 'clusters', 'm1', 'dedicated=cpu:NoSchedule');
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'Error: cluster m1 already has dedicated taint(s) with same effect(s) and --overwrite is false\n',
    );
    assert.deepEqual(taintsOf(await get('m1')), ['dedicated=gpu:NoSchedule', 'maintenance:NoExecute']);

    r = await cli('taint', 'clusters', 'm1', 'dedicated=cpu:NoSchedule', '--overwrite');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'kubefedcluster.core.kubefed.io/m1 modified\n');
    assert.deepEqual(taintsOf(await get('m1')), ['dedicated=cpu:NoSchedule', 'maintenance:NoExecute']);

    r = await cli('taint', 'clusters', 'm1', 'maintenance-', 'dedicated:NoSchedule-');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'kubefedcluster.core.kubefed.io/m1 untainted\n');
    m1 = await get('m1');
    assert.equal(m1.spec.taints, undefined);

    r = await cli('taint', 'clusters', 'm1', 'dedicated-');
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: taint "dedicated" not found\n');
    r = await cli('taint', 'clusters', 'm1', 'dedicated=x:Always');
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: invalid taint effect: Always, unsupported taint effect\n');
  });

  test('a stopped member gets the unreachable NoSchedule taint and loses it when back; a user taint stays', async () => {
    const r = await cli('taint', 'clusters', 'm2', 'team=a:NoSchedule');
    assert.equal(r.code, 0, r.stderr);
    const m2 = fed.cluster('m2');
    await m2.stopApiServer();
    try {
      const tainted = await waitForCluster(host, 'm2', 'tainted unreachable', (c) =>
        taintsOf(c).includes(`${UNREACHABLE}:NoSchedule`),
      );
      assert.deepEqual(taintsOf(tainted), ['team=a:NoSchedule', `${UNREACHABLE}:NoSchedule`]);
      assert.match(tainted.spec.taints?.[1]?.timeAdded ?? '', RFC3339);
      assert.equal(condition(tainted, 'Offline')?.status, 'True');
      assert.deepEqual(taintsOf(await get('m1')), [], 'the ready member is not tainted');
    } finally {
      await m2.startApiServer();
    }
    const back = await waitForCluster(
      host,
      'm2',
      'untainted when Ready',
      (c) => condition(c, 'Ready')?.status === 'True' && !taintsOf(c).includes(`${UNREACHABLE}:NoSchedule`),
    );
    assert.deepEqual(taintsOf(back), ['team=a:NoSchedule']);
  });

  test('a ClusterTaintPolicy adds NoExecute to the stopped member and removes it on its return', async () => {
    await host.create(ClusterTaintPolicyType, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'ClusterTaintPolicy',
      metadata: { name: 'not-ready-no-execute' },
      spec: {
        targetClusters: { clusterNames: ['m2'] },
        // A stopped member has only Offline=True: a missing Ready matches neither In nor NotIn.
        addOnConditions: [{ conditionType: 'Offline', operator: 'In', statusValues: ['True'] }],
        removeOnConditions: [{ conditionType: 'Ready', operator: 'In', statusValues: ['True'] }],
        taints: [{ key: NOT_READY, effect: 'NoExecute' }],
      },
    });
    const m2 = fed.cluster('m2');
    await m2.stopApiServer();
    try {
      const tainted = await waitForCluster(host, 'm2', 'tainted NoExecute', (c) =>
        taintsOf(c).includes(`${NOT_READY}:NoExecute`),
      );
      const added = tainted.spec.taints?.find((t) => t.key === NOT_READY);
      assert.match(added?.timeAdded ?? '', RFC3339);
      assert.ok(taintsOf(tainted).includes('team=a:NoSchedule'), 'the user taint stays');
      assert.deepEqual(taintsOf(await get('m1')), [], 'm1 is ready, and not a target anyway');
    } finally {
      await m2.startApiServer();
    }
    const back = await waitForCluster(
      host,
      'm2',
      'NoExecute removed when Ready',
      (c) => condition(c, 'Ready')?.status === 'True' && taintsOf(c).length === 1,
    );
    assert.deepEqual(taintsOf(back), ['team=a:NoSchedule']);
  });
  test('plan --policy --live: the cordoned member is no candidate, the tolerated taint lets the policy through', async () => {
    const r0 = await cli('cordon', 'm1');
    assert.equal(r0.code, 0, r0.stderr);
    const dir = mkdtempSync(join(tmpdir(), 'plan-policy-'));
    try {
      writeFileSync(
        join(dir, 'deploy.yaml'),
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: demo}\nspec: {replicas: 4}\n',
      );
      const policy = (tolerations: string) =>
        'apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: demo}\n' +
        'spec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n' +
        `  placement:\n    replicaScheduling: {replicaSchedulingType: Divided}\n    clusterTolerations: ${tolerations}\n`;
      writeFileSync(join(dir, 'strict.yaml'), policy('[]'));
      writeFileSync(join(dir, 'tolerant.yaml'), policy('[{key: team, operator: Exists}]'));
      const plan = (file: string) =>
        cli('plan', '-f', join(dir, 'deploy.yaml'), '--policy', join(dir, file), '--live', '-o', 'json');

      let r = await plan('strict.yaml');
      assert.equal(r.code, 0, r.stderr);
      let out = JSON.parse(r.stdout) as {
        result: { ok: boolean; message?: string };
        clusters: Array<{ cluster: string; candidate: boolean; reason?: string; replicas: number }>;
      };
      assert.equal(out.result.ok, false);
      assert.match(out.result.message ?? '', /^0\/2 clusters are available: /);
      assert.deepEqual(
        out.clusters.map((c) => [c.cluster, c.candidate, c.reason]),
        [
          ['m1', false, `cluster(s) had untolerated taint {${UNSCHEDULABLE}:NoSchedule}`],
          ['m2', false, 'cluster(s) had untolerated taint {team=a:NoSchedule}'],
        ],
      );

      r = await plan('tolerant.yaml');
      assert.equal(r.code, 0, r.stderr);
      out = JSON.parse(r.stdout);
      assert.equal(out.result.ok, true);
      assert.deepEqual(
        out.clusters.map((c) => [c.cluster, c.candidate, c.replicas]),
        [
          ['m1', false, 0],
          ['m2', true, 4],
        ],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await cli('uncordon', 'm1');
    }
  });
});
