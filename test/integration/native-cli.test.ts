// kubefedctl promote and explain against a real federation: a Deployment running in cluster1 becomes a
// template plus a PropagationPolicy and is adopted in place (same uid), explain --live says why and where,
// explain offline reads Karmada's documented samples. One federation for the file.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PP_PERMANENT_ID_LABEL } from '../../src/api/policy/v1alpha1/index.ts';
import { OWNER_ANNOTATION } from '../../src/engine/ownership.ts';
import { CoreTypes, type KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import type { TemplateReport } from '../../src/kubefedctl/explain-report.ts';
import { PolicyTypes } from '../../src/sources/policy/policies.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { eventually, getOrUndefined, startPropagation, T } from './federation-helpers.ts';
import { kubefedctl } from './helpers.ts';

const NSA = 'legacy';
type Obj = KubeObject & { spec?: Record<string, unknown> };

function deployment(name: string): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NSA, labels: { app: name } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.example/legacy:1.0' }] },
      },
    },
  };
}

describe('kubefedctl promote and explain', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let c1: KubeClient;
  let c2: KubeClient;
  let flags: string[];

  before(async () => {
    fed = await startFederation({
      members: ['cluster1', 'cluster2'],
      workloads: true,
      hostControllers: 'tokens',
    });
    ({ host, cm } = await startPropagation(fed));
    c1 = fed.cluster('cluster1').client();
    c2 = fed.cluster('cluster2').client();
    flags = ['--kubeconfig', fed.kubeconfigPath, '--host-cluster-context', 'host'];
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NSA } };
    await c1.create(CoreTypes.namespaces, ns);
    await host.create(CoreTypes.namespaces, ns);
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('promote: the running Deployment becomes a template and a policy, and its member copy is adopted in place', async () => {
    const running = await c1.create(T.deployments, deployment('legacy-web'));
    const uid = running.metadata.uid;
    assert.ok(uid);

    const dry = await kubefedctl([
      'promote',
      'deployment',
      'legacy-web',
      '-n',
      NSA,
      '-C',
      'cluster1',
      '-o',
      'yaml',
      ...flags,
    ]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /kind: PropagationPolicy/);
    assert.match(dry.stdout, /conflictResolution: Overwrite/);
    assert.doesNotMatch(dry.stdout, /resourceVersion|uid:/);
    const templateOnly = await kubefedctl([
      'promote',
      'deployment',
      'legacy-web',
      '-n',
      NSA,
      '-C',
      'cluster1',
      '-o',
      'json',
      '--auto-create-policy=false',
      ...flags,
    ]);
    assert.equal(templateOnly.code, 0, templateOnly.stderr);
    assert.doesNotMatch(templateOnly.stdout, /PropagationPolicy/);
    const dryRun = await kubefedctl([
      'promote',
      'deploy',
      'legacy-web',
      '-n',
      NSA,
      '-C',
      'cluster1',
      '--dry-run',
      ...flags,
    ]);
    assert.equal(dryRun.code, 0, dryRun.stderr);
    assert.match(dryRun.stdout, /would be promoted/);
    assert.equal(
      await getOrUndefined(host, T.deployments, 'legacy-web', NSA),
      undefined,
      '-o and --dry-run write nothing',
    );

    const r = await kubefedctl([
      'promote',
      'deployment',
      'legacy-web',
      '-n',
      NSA,
      '--cluster',
      'cluster1',
      '--policy-name',
      'legacy-web',
      ...flags,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /promoted from cluster "cluster1"/);
    const template = await host.get<Obj>(T.deployments, 'legacy-web', NSA);
    assert.equal(template.spec?.replicas, 2);
    const policy = await host.get<Obj>(PolicyTypes.PropagationPolicy, 'legacy-web', NSA);
    assert.deepEqual(policy.spec?.placement, { clusterAffinity: { clusterNames: ['cluster1'] } });
    assert.equal(policy.spec?.conflictResolution, 'Overwrite');

    const adopted = await eventually(
      'the member copy claimed by the policy source',
      () => getOrUndefined<Obj>(c1, T.deployments, 'legacy-web', NSA),
      (o) =>
        Boolean(o?.metadata.labels?.[PP_PERMANENT_ID_LABEL]) &&
        Boolean(o?.metadata.annotations?.[OWNER_ANNOTATION]),
      60_000,
    );
    assert.equal(adopted?.metadata.uid, uid, 'the running copy is updated, not recreated');
    assert.equal(await getOrUndefined(c2, T.deployments, 'legacy-web', NSA), undefined);

    const again = await kubefedctl([
      'promote',
      'deployment',
      'legacy-web',
      '-n',
      NSA,
      '-C',
      'cluster1',
      ...flags,
    ]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists on the federation API server/);
    const missing = await kubefedctl([
      'promote',
      'deployment',
      'nowhere',
      '-n',
      NSA,
      '-C',
      'cluster1',
      ...flags,
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Deployment legacy\/nowhere does not exist in cluster "cluster1"/);
    assert.equal(await getOrUndefined(host, T.deployments, 'nowhere', NSA), undefined);
  });

  test('promote: a failed policy create leaves no template behind', async () => {
    await c1.create(T.deployments, deployment('half'));
    // The policy's name is taken by a policy created here, so the create would fail: refused before any write.
    await host.create(PolicyTypes.PropagationPolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'taken', namespace: NSA },
      spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'unrelated' }] },
    });
    const r = await kubefedctl([
      'promote',
      'deployment',
      'half',
      '-n',
      NSA,
      '-C',
      'cluster1',
      '--policy-name',
      'taken',
      ...flags,
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /PropagationPolicy legacy\/taken already exists/);
    assert.equal(await getOrUndefined(host, T.deployments, 'half', NSA), undefined);
    // An invalid policy name gets past the checks and fails at create: the template goes again.
    const bad = await kubefedctl([
      'promote',
      'deployment',
      'half',
      '-n',
      NSA,
      '-C',
      'cluster1',
      '--policy-name',
      'Not_A_Name',
      ...flags,
    ]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /the template was removed again/);
    assert.equal(await getOrUndefined(host, T.deployments, 'half', NSA), undefined);
  });

  test('promote -d: the ConfigMap the Deployment references is promoted too and adopted in place', async () => {
    const cmap = await c1.create<Obj>(CoreTypes.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'with-deps-config', namespace: NSA },
      data: { mode: 'legacy' },
    });
    const d = deployment('with-deps');
    d.spec = {
      ...d.spec,
      template: {
        metadata: { labels: { app: 'with-deps' } },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'registry.example/legacy:1.0',
              envFrom: [{ configMapRef: { name: 'with-deps-config' } }],
            },
          ],
        },
      },
    };
    await c1.create(T.deployments, d);
    const r = await kubefedctl([
      'promote',
      'deployment',
      'with-deps',
      '-n',
      NSA,
      '-C',
      'cluster1',
      '-d',
      '--policy-name',
      'with-deps',
      ...flags,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /with ConfigMap legacy\/with-deps-config/);
    const policy = await host.get<Obj>(PolicyTypes.PropagationPolicy, 'with-deps', NSA);
    assert.equal(policy.spec?.propagateDeps, true);
    assert.equal(
      (await host.get<Obj & { data?: Record<string, string> }>(CoreTypes.configMaps, 'with-deps-config', NSA))
        .data?.mode,
      'legacy',
    );
    const adopted = await eventually(
      'the member ConfigMap adopted',
      () => getOrUndefined<Obj>(c1, CoreTypes.configMaps, 'with-deps-config', NSA),
      (o) => Boolean(o?.metadata.annotations?.[OWNER_ANNOTATION]),
      60_000,
    );
    assert.equal(adopted?.metadata.uid, cmap.metadata.uid);
  });

  test('explain --live: the promoted template, its policy and where it lands', async () => {
    const r = await kubefedctl([
      'explain',
      '--live',
      'deployment',
      'legacy-web',
      '-n',
      NSA,
      '-o',
      'json',
      ...flags,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const [report] = (JSON.parse(r.stdout) as { templates: TemplateReport[] }).templates;
    assert.equal(report?.claimedBy?.name, 'legacy-web');
    assert.equal(report?.claimedBy?.how, 'current claim');
    assert.deepEqual(report?.placement, { ok: true, clusters: [{ name: 'cluster1', replicas: 2 }] });
    assert.equal(report?.members[0]?.cluster, 'cluster1');
    assert.equal((report?.members[0]?.object as Obj | undefined)?.spec?.replicas, 2);

    const text = await kubefedctl(['explain', '--live', 'deployment', 'legacy-web', '-n', NSA, ...flags]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /\* PropagationPolicy legacy\/legacy-web {2}priority 0, name match/);
    assert.match(text.stdout, /placement: cluster1 \(2\)/);
  });

  test('explain offline: Karmada’s documented samples', async () => {
    const r = await kubefedctl([
      'explain',
      '-f',
      'config/samples/karmada/propagationpolicy-cluster-affinity.yaml',
      '--clusters',
      'member1,member2',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /claimed by: PropagationPolicy default\/example-policy/);
    assert.match(r.stdout, /placement: member1 \(1\)/);
    // No policy selects the page's myapp Deployment: a normal answer, not an error.
    const none = await kubefedctl([
      'explain',
      '-f',
      'config/samples/karmada/overridepolicy-workload-overriders.yaml',
      '--clusters',
      'member1',
    ]);
    assert.equal(none.code, 0, none.stderr);
    assert.match(
      none.stdout,
      /Deployment default\/myapp .*\n {2}no PropagationPolicy or ClusterPropagationPolicy selects it/,
    );
  });
});
