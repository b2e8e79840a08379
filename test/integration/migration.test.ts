// Migration in place from a running KubeFed v0.10.0 (docs/migrating-from-kubefed.md), with KubeFed's own
// controller-manager built from its Go module (hack/install-kubefed.sh) and its chart's CRDs and FTCs.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { kubefedGo, type RunningController } from '../../bench/systems.ts';
import {
  FederatedTypeConfigType,
  KubeFedClusterType,
  KubeFedConfigType,
} from '../../src/api/core/v1beta1/index.ts';
import { ReplicaSchedulingPreferenceType } from '../../src/api/scheduling/v1alpha1/index.ts';
import {
  CoreTypes,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { helmBinary, kubefedDir } from '../../src/testing/binaries.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  createFederatedNamespace,
  eventually,
  FED_GROUP,
  FED_VERSION,
  type FedObject,
  federatedConfigMap,
  getOrUndefined,
  propagation,
  T,
} from './federation-helpers.ts';
import { type CliResult, kubefedctl, NS, waitForCluster } from './helpers.ts';
import { WriteLog } from './write-log.ts';

const NSX = 'migration';
const MEMBERS = ['cluster1', 'cluster2'];
const LEASE_MS = 4000;
/** Longer than kubefed-ts's full resync after it starts (availableDelay) plus the members' event delay. */
const SETTLE_MS = 10_000;
const VALIDATING_WEBHOOKS: ResourceType = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  plural: 'validatingwebhookconfigurations',
  namespaced: false,
};
const MUTATING_WEBHOOKS: ResourceType = { ...VALIDATING_WEBHOOKS, plural: 'mutatingwebhookconfigurations' };
const RSP_CRD = 'replicaschedulingpreferences.scheduling.kubefed.io';
const PV: ResourceType = {
  group: 'core.kubefed.io',
  version: 'v1alpha1',
  plural: 'propagatedversions',
  namespaced: true,
  kind: 'PropagatedVersion',
};

type Crd = KubeObject & {
  spec: { versions: Array<{ name: string; storage: boolean; subresources?: { status?: object } }> };
  status?: { storedVersions?: string[] };
};
type Rsp = KubeObject & { status?: { totalScheduled?: number; replicas?: Record<string, number> } };
type Deploy = KubeObject & {
  spec: { replicas?: number; template: { spec: { containers: Array<{ image: string }> } } };
};
type ConfigMap = KubeObject & { data?: Record<string, string> };

const fdeploy = {
  apiVersion: `${FED_GROUP}/${FED_VERSION}`,
  kind: 'FederatedDeployment',
  metadata: { name: 'web', namespace: NSX },
  spec: {
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] },
        },
      },
    },
    placement: { clusters: MEMBERS.map((name) => ({ name })) },
    overrides: [
      {
        clusterName: 'cluster2',
        clusterOverrides: [{ path: '/spec/template/spec/containers/0/image', value: 'nginx:1.25-alpine' }],
      },
    ],
  },
};

const rsp = {
  apiVersion: 'scheduling.kubefed.io/v1alpha1',
  kind: 'ReplicaSchedulingPreference',
  metadata: { name: 'web', namespace: NSX },
  spec: {
    targetKind: 'FederatedDeployment',
    totalReplicas: 6,
    clusters: { cluster1: { weight: 1 }, cluster2: { weight: 2 } },
  },
};

type KubeFedConfigObject = KubeObject & { spec?: { leaderElect?: { resourceLock?: string } } };

const helmHome = mkdtempSync(join(tmpdir(), 'kubefed-ts-migration-helm-'));
function helm(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      helmBinary(),
      args,
      {
        env: {
          ...process.env,
          HELM_CACHE_HOME: join(helmHome, 'cache'),
          HELM_CONFIG_HOME: join(helmHome, 'config'),
          HELM_DATA_HOME: join(helmHome, 'data'),
        },
        timeout: 120_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('migration in place from a running KubeFed v0.10.0', () => {
  let fed: Federation;
  let host: KubeClient;
  const members: Record<string, KubeClient> = {};
  let kubefed: RunningController | undefined;
  let ours: ControllerManagerProcess | undefined;
  const logs: WriteLog[] = [];
  const logsByCluster: Record<string, { cm: WriteLog; deploy: WriteLog; ns: WriteLog }> = {};

  const startOurs = (name: string, waitReady = true) =>
    startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      name,
      logFile: join(fed.dir, `${name}.log`),
      waitReady,
    });
  const migrate = (...args: string[]) =>
    kubefedctl([
      'migrate-from-kubefed',
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
      ...args,
    ]);
  /** uid and resourceVersion of everything the migration must keep. */
  const snapshot = async () => {
    const out: Record<string, string> = {};
    const add = (what: string, items: KubeObject[], withRv: boolean) => {
      for (const o of items)
        out[`${what}/${o.metadata.namespace ?? ''}/${o.metadata.name}`] =
          `${o.metadata.uid}${withRv ? `@${o.metadata.resourceVersion}` : ''}`;
    };
    // Host objects: the same objects (uid); their status may be written.
    for (const [what, type, ns] of [
      ['fns', T.fns, NSX],
      ['fcm', T.fcm, NSX],
      ['fdeploy', T.fdeploy, NSX],
      ['rsp', ReplicaSchedulingPreferenceType, NSX],
      ['pv', PV, NSX],
      ['ftc', FederatedTypeConfigType, NS],
      ['kubefedcluster', KubeFedClusterType, NS],
      ['kubefedconfig', KubeFedConfigType, NS],
    ] as const)
      add(what, (await host.list(type, { namespace: ns })).items, false);
    // The member credentials (Helm's release Secrets come and go with each revision).
    const secrets = (await host.list(CoreTypes.secrets, { namespace: NS })).items;
    add(
      'secret',
      secrets.filter((x) => !x.metadata.name?.startsWith('sh.helm.release.')),
      false,
    );
    // Member copies: untouched, so the same resourceVersion too.
    for (const m of MEMBERS) {
      const c = members[m] as KubeClient;
      add(`${m}/configmap`, (await c.list(T.configmaps, { namespace: NSX })).items, true);
      add(`${m}/deployment`, (await c.list(T.deployments, { namespace: NSX })).items, true);
      add(`${m}/namespace`, [await c.get(T.namespaces, NSX)], true);
    }
    return out;
  };
  const memberWrites = () =>
    MEMBERS.flatMap((m) => {
      const l = logsByCluster[m];
      return l
        ? [...l.cm.events, ...l.deploy.events, ...l.ns.events.filter((e) => e.name === NSX)].map((e) => ({
            m,
            ...e,
          }))
        : [];
    });

  /** Values both charts share (KubeFed's names), for fast timings; KubeFed's chart's lock stays a ConfigMap. */
  const helmCommon = () => [
    '--kubeconfig',
    fed.kubeconfigPath,
    '--kube-context',
    'host',
    '--namespace',
    NS,
    '--set',
    [
      'controllermanager.clusterHealthCheckPeriod=1s',
      'controllermanager.clusterHealthCheckTimeout=1s',
      'controllermanager.leaderElectLeaseDuration=4s',
      'controllermanager.leaderElectRenewDeadline=3s',
      'controllermanager.leaderElectRetryPeriod=1s',
    ].join(','),
  ];
  /**
   * The harness runs no pods, so no webhook serves the charts' webhook configurations (which fail closed): they
   * go (the guide deletes KubeFed's before the upgrade anyway), and the controller managers run as processes
   * instead of the charts' Deployments.
   */
  const dropWebhookConfigurations = async () => {
    for (const [type, name] of [
      [VALIDATING_WEBHOOKS, 'validations.core.kubefed.io'],
      [MUTATING_WEBHOOKS, 'mutation.core.kubefed.io'],
    ] as const)
      await host.delete(type, name);
  };

  before(async () => {
    fed = await startFederation({ members: MEMBERS });
    host = fed.host.client();
    for (const m of fed.members) members[m.name] = m.client();
    // KubeFed installed as its users do: `helm install` of its own chart (its CRDs, FTCs, KubeFedConfig with a
    // ConfigMap lock), fast timings. No hooks: its post-install Job needs a kubelet, like its pods.
    const install = await helm([
      'install',
      'kubefed',
      join(kubefedDir(), 'chart'),
      '--create-namespace',
      '--no-hooks',
      ...helmCommon(),
    ]);
    assert.equal(install.code, 0, install.stderr);
    await dropWebhookConfigurations();
    assert.equal(
      (await host.get<KubeFedConfigObject>(KubeFedConfigType, 'kubefed', NS)).spec?.leaderElect?.resourceLock,
      'configmaps',
    );
    kubefed = await kubefedGo.start({ kubeconfig: fed.kubeconfigPath, dir: fed.dir, args: [] });
    for (const m of MEMBERS) {
      const r = await kubefedctl([
        'join',
        m,
        '--kubeconfig',
        fed.kubeconfigPath,
        '--host-cluster-context',
        'host',
      ]);
      assert.equal(r.code, 0, r.stderr);
    }
    for (const m of MEMBERS)
      await waitForCluster(host, m, 'Ready (by KubeFed)', (c) =>
        Boolean(c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')),
      );
    await createFederatedNamespace(host, NSX, MEMBERS);
    await host.create(T.fcm, {
      ...federatedConfigMap('settings', NSX, { a: '1', b: 'base' }, MEMBERS),
      spec: {
        template: { data: { a: '1', b: 'base' } },
        placement: { clusters: MEMBERS.map((name) => ({ name })) },
        overrides: [{ clusterName: 'cluster1', clusterOverrides: [{ path: '/data/b', value: 'one' }] }],
      },
    });
    await host.create(T.fdeploy, fdeploy);
    await host.create(ReplicaSchedulingPreferenceType, rsp);
  });

  after(async () => {
    await Promise.all(logs.map((l) => l.stop()));
    await ours?.process.stop();
    await kubefed?.stop();
    await fed?.stop();
    rmSync(helmHome, { recursive: true, force: true });
  });

  test('KubeFed propagates the federated objects, overrides and RSP replicas', async () => {
    const read = async () =>
      Promise.all(
        MEMBERS.map(async (m) => ({
          cm: await getOrUndefined<ConfigMap>(members[m] as KubeClient, T.configmaps, 'settings', NSX),
          deploy: await getOrUndefined<Deploy>(members[m] as KubeClient, T.deployments, 'web', NSX),
        })),
      );
    const [one, two] = await eventually(
      'KubeFed to propagate into both members',
      read,
      ([a, b]) => a?.deploy?.spec.replicas === 2 && b?.deploy?.spec.replicas === 4 && Boolean(a?.cm && b?.cm),
      60_000,
    );
    assert.deepEqual(one?.cm?.data, { a: '1', b: 'one' });
    assert.deepEqual(two?.cm?.data, { a: '1', b: 'base' });
    assert.equal(one?.deploy?.spec.template.spec.containers[0]?.image, 'nginx:1.25');
    assert.equal(two?.deploy?.spec.template.spec.containers[0]?.image, 'nginx:1.25-alpine');
    assert.equal(one?.cm?.metadata.labels?.['kubefed.io/managed'], 'true');
    // KubeFed's PropagatedVersions are there for kubefed-ts to take over.
    await eventually(
      'PropagatedVersions written by KubeFed',
      async () => (await host.list(PV, { namespace: NSX })).items.map((p) => p.metadata.name).sort(),
      (names) =>
        ['configmap-settings', 'deployment-web', 'namespace-migration'].every((n) => names.includes(n)),
    );
    // KubeFed's RSP CRD has no status subresource; the RSP has no status.
    const crd = await host.get<Crd>(CoreTypes.crds, RSP_CRD);
    assert.equal(crd.spec.versions[0]?.subresources?.status, undefined);
  });

  test('while KubeFed holds its lock, kubefed-ts refuses to start and the migration refuses to run', async () => {
    const lock = await host.get(CoreTypes.configMaps, 'kubefed-controller-manager', NS);
    assert.match(
      lock.metadata.annotations?.['control-plane.alpha.kubernetes.io/leader'] ?? '',
      /holderIdentity/,
    );

    const refused = await startOurs('kubefed-ts-refused', false);
    const code = await refused.process.exited;
    assert.equal(code, 1);
    const log = readFileSync(refused.logFile, 'utf8');
    assert.match(
      log,
      /Error: KubeFed's controller manager is running: it holds its leader lock ConfigMap kube-federation-system\/kubefed-controller-manager .*kubectl -n kube-federation-system scale deployment kubefed-controller-manager --replicas=0/,
    );
    // It never led: no Lease of ours.
    assert.equal(await getOrUndefined(host, CoreTypes.leases, 'kubefed-controller-manager', NS), undefined);

    // --dry-run shows the plan anyway, with the warning.
    const dry = await migrate('--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(
      dry.stderr,
      /^Warning: KubeFed's controller manager is running: .*\(a real run refuses until then\)$/m,
    );
    assert.match(dry.stdout, new RegExp(`${RSP_CRD} replaced .*\\(dry run\\)`));

    const r = await migrate();
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /^Error: KubeFed's controller manager is running: .*holder "/m);
    assert.equal(
      (await host.get<Crd>(CoreTypes.crds, RSP_CRD)).spec.versions[0]?.subresources?.status,
      undefined,
    );
  });

  test('the documented steps switch to kubefed-ts without a single member write', async () => {
    for (const m of MEMBERS) {
      const c = members[m] as KubeClient;
      const l = { cm: new WriteLog(), deploy: new WriteLog(), ns: new WriteLog() };
      await l.cm.start(c, T.configmaps, NSX);
      await l.deploy.start(c, T.deployments, NSX);
      await l.ns.start(c, T.namespaces, '');
      logsByCluster[m] = l;
      logs.push(l.cm, l.deploy, l.ns);
    }
    const before = await snapshot();

    // Step 1: stop KubeFed's controller manager (in a cluster: scale its Deployment to 0).
    await kubefed?.stop();
    kubefed = undefined;

    // Step 2: kubefedctl migrate-from-kubefed --dry-run shows the plan and changes nothing.
    const crdRv = (await host.get<Crd>(CoreTypes.crds, RSP_CRD)).metadata.resourceVersion;
    const dry = await migrate('--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(
      dry.stdout,
      new RegExp(`${RSP_CRD} replaced \\(v1alpha1: adds the status subresource.*\\(dry run\\)`),
    );
    assert.match(dry.stdout, /federateddeployments\.types\.kubefed\.io replaced .*\(dry run\)/);
    assert.match(dry.stdout, /dnsendpoints\.multiclusterdns\.kubefed\.io created \(dry run\)/);
    assert.match(dry.stdout, /Dry run: nothing changed/);
    assert.equal((await host.get<Crd>(CoreTypes.crds, RSP_CRD)).metadata.resourceVersion, crdRv);

    // Step 3: the same for real (it waits out the stopped KubeFed's lease).
    const run = await migrate();
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`${RSP_CRD} replaced`));
    const crd = await host.get<Crd>(CoreTypes.crds, RSP_CRD);
    assert.deepEqual(crd.spec.versions[0]?.subresources?.status, {});
    assert.deepEqual(crd.status?.storedVersions, ['v1alpha1']);
    // A second run has nothing left to do.
    const again = await migrate();
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stdout, / (replaced|created)/);

    // Step 4: helm upgrade of KubeFed's release to kubefed-ts's chart, then its controller manager (the
    // harness runs it as a process, as it ran KubeFed's); it adopts everything as KubeFed left it. The stopped
    // KubeFed's lock is still there, expired: it must not block.
    const stale = await host.get(CoreTypes.configMaps, 'kubefed-controller-manager', NS);
    assert.match(
      stale.metadata.annotations?.['control-plane.alpha.kubernetes.io/leader'] ?? '',
      /"holderIdentity":"[^"]/,
    );
    const upgrade = await helm(['upgrade', 'kubefed', join(REPO_ROOT, 'charts/kubefed-ts'), ...helmCommon()]);
    assert.equal(upgrade.code, 0, upgrade.stderr);
    await dropWebhookConfigurations();
    const deploy = await host.get<Deploy>(T.deployments, 'kubefed-controller-manager', NS);
    assert.match(JSON.stringify(deploy.spec.template.spec), /src\/cmd\/controller-manager\.ts/);
    ours = await startOurs('kubefed-ts');
    const rspObj = await eventually(
      'RSP status written by kubefed-ts',
      () => host.get<Rsp>(ReplicaSchedulingPreferenceType, 'web', NSX),
      (o) => o.status?.totalScheduled === 6,
    );
    assert.deepEqual(rspObj.status?.replicas, { cluster1: 2, cluster2: 4 });
    await eventually(
      'FederatedDeployment propagated by kubefed-ts',
      () => host.get<FedObject>(T.fdeploy, 'web', NSX),
      (o) => propagation(o)?.status === 'True' && o.status?.clusters?.length === 2,
    );
    await new Promise((r) => setTimeout(r, SETTLE_MS));

    assert.deepEqual(memberWrites(), [], 'no member object written during the switch');
    const afterSwitch = await snapshot();
    assert.deepEqual(
      afterSwitch,
      before,
      'every object kept: host objects by uid, member copies by resourceVersion',
    );

    const log = readFileSync(ours.logFile, 'utf8');
    assert.match(
      log,
      /^I\d{4} [\d:.]+ +\d+ \S+\] Using valid KubeFedConfig "kube-federation-system\/kubefed"$/m,
    );
    assert.match(log, /^I\d{4} [\d:.]+ +\d+ \S+\] Starting cluster controller$/m);
  });

  test('kubefed-ts propagates afterwards: an update reaches each member with one write', async () => {
    const obj = await host.get<KubeObject & { spec: { template: { data: Record<string, string> } } }>(
      T.fcm,
      'settings',
      NSX,
    );
    obj.spec.template.data = { a: '2', b: 'base' };
    await host.update(T.fcm, obj);
    const [one, two] = await eventually(
      'the update in both members',
      () =>
        Promise.all(
          MEMBERS.map((m) =>
            getOrUndefined<ConfigMap>(members[m] as KubeClient, T.configmaps, 'settings', NSX),
          ),
        ),
      (v) => v.every((c) => c?.data?.a === '2'),
    );
    assert.deepEqual(one?.data, { a: '2', b: 'one' });
    assert.deepEqual(two?.data, { a: '2', b: 'base' });
    await new Promise((r) => setTimeout(r, 3000));
    assert.deepEqual(
      memberWrites().map((w) => `${w.m}/${w.name}/${w.type}`),
      ['cluster1/settings/MODIFIED', 'cluster2/settings/MODIFIED'],
    );
  });

  test("rollback: helm rollback to KubeFed's release, KubeFed beside kubefed-ts stops it, and propagates on kubefed-ts's CRDs", async () => {
    // KubeFed refuses kubefed-ts's KubeFedConfig (its resourceLock is `leases`): the rollback brings its own back.
    const rollback = await helm(['rollback', 'kubefed', '1', '--no-hooks', ...helmCommon().slice(0, 6)]);
    assert.equal(rollback.code, 0, rollback.stderr);
    await dropWebhookConfigurations();
    assert.equal(
      (await host.get<KubeFedConfigObject>(KubeFedConfigType, 'kubefed', NS)).spec?.leaderElect?.resourceLock,
      'configmaps',
    );
    // Started beside a running kubefed-ts (the guide says to stop kubefed-ts first): kubefed-ts stops.
    kubefed = await kubefedGo.start({ kubeconfig: fed.kubeconfigPath, dir: fed.dir, args: [] });
    const code = await Promise.race([
      ours?.process.exited,
      new Promise<string>((r) => setTimeout(() => r('still running'), 4 * LEASE_MS + 10_000)),
    ]);
    assert.equal(code, 1);
    assert.match(readFileSync(ours?.logFile ?? '', 'utf8'), /Error: KubeFed's controller manager is running/);
    ours = undefined;

    const obj = await host.get<KubeObject & { spec: { template: { data: Record<string, string> } } }>(
      T.fcm,
      'settings',
      NSX,
    );
    obj.spec.template.data = { a: '3', b: 'base' };
    await host.update(T.fcm, obj);
    const [one, two] = await eventually(
      'KubeFed to propagate the update',
      () =>
        Promise.all(
          MEMBERS.map((m) =>
            getOrUndefined<ConfigMap>(members[m] as KubeClient, T.configmaps, 'settings', NSX),
          ),
        ),
      (v) => v.every((c) => c?.data?.a === '3'),
      60_000,
    );
    assert.deepEqual(one?.data, { a: '3', b: 'one' });
    assert.deepEqual(two?.data, { a: '3', b: 'base' });
    assert.ok(
      kubefed?.pid && (await host.get<Crd>(CoreTypes.crds, RSP_CRD)).spec.versions[0]?.subresources?.status,
    );
  });
});
