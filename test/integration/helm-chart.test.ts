// charts/kubefed-ts: what `helm template` renders (scopes, certificates, webhooks, RBAC), that it applies
// to a real kube-apiserver, that the controller manager runs under nothing but the chart's RBAC (its own
// ServiceAccount's token) and federates to a member without one `forbidden`, and a real `helm install`,
// `upgrade` and `uninstall`. Helm is built from its Go module (hack/install-helm.sh).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { PropagatedVersionType } from '../../src/api/core/v1alpha1/index.ts';
import type { KubeFedConfigSpec } from '../../src/api/core/v1beta1/index.ts';
import {
  FEDERATED_TYPE_CONFIG_FINALIZER,
  FederatedTypeConfigType,
  KubeFedClusterType,
  KubeFedConfigType,
} from '../../src/api/core/v1beta1/index.ts';
import { DNSEndpointType, IngressDNSRecordType } from '../../src/api/multiclusterdns/v1alpha1/index.ts';
import { ReplicaSchedulingPreferenceType } from '../../src/api/scheduling/v1alpha1/index.ts';
import { defaultKubeFedConfigSpec, resolveKubeFedConfig } from '../../src/config/index.ts';
import { defaultFederatedTypes } from '../../src/federation-types/default-types.ts';
import { applyCrds, loadCrds } from '../../src/install/control-plane.ts';
import {
  FEDERATION_APISERVER_CONTROLLERS,
  workloadControllersEnabled,
} from '../../src/install/federation-apiserver.ts';
import { CHART_CRD_DIR, renderChartFiles } from '../../src/install/manifests.ts';
import { CoreTypes, KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import {
  loadKubeconfig,
  renderKubeconfig,
  restConfigForContext,
  writeKubeconfigFile,
} from '../../src/kube/kubeconfig/index.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { withoutProxy } from '../../src/testing/apiserver.ts';
import { binary, helmBinary } from '../../src/testing/binaries.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { freePort, waitFor } from '../../src/testing/ports.ts';
import { ManagedProcess } from '../../src/testing/process.ts';
import { parsePrometheusText, value } from '../../src/testing/prometheus.ts';
import { webhookConfigurations } from '../../src/webhook/index.ts';
import {
  eventually,
  FED_GROUP,
  FED_VERSION,
  federatedConfigMap,
  getOrUndefined,
  T,
} from './federation-helpers.ts';
import { kubefedctl } from './helpers.ts';

const CHART = join(REPO_ROOT, 'charts/kubefed-ts');
const RELEASE = 'kubefed';
const CLUSTER_NS = 'kube-federation-system';

type Obj = KubeObject & Record<string, unknown>;
interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
}
interface Container {
  name: string;
  image: string;
  command: string[];
  args?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  livenessProbe?: { httpGet?: { path: string; port: number; scheme?: string } };
  readinessProbe?: { httpGet?: { path: string; port: number; scheme?: string } };
  securityContext?: Record<string, unknown>;
  resources?: Record<string, Record<string, string>>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  env?: Array<{ name: string; value?: string }>;
}
interface PodSpec {
  serviceAccountName: string;
  automountServiceAccountToken?: boolean;
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes?: Array<{ name: string; secret?: { secretName: string; defaultMode?: number } }>;
}
interface DeploymentObj extends Obj {
  spec: { replicas: number; selector: { matchLabels: Record<string, string> }; template: { spec: PodSpec } };
}
interface WebhookObj {
  name: string;
  clientConfig: {
    caBundle?: string;
    service: { name: string; namespace: string; path: string; port?: number };
  };
  rules: Array<{
    operations: string[];
    apiGroups: string[];
    apiVersions: string[];
    resources: string[];
    scope?: string;
  }>;
  failurePolicy: string;
  sideEffects: string;
  admissionReviewVersions: string[];
  timeoutSeconds?: number;
  namespaceSelector?: { matchLabels?: Record<string, string> };
  reinvocationPolicy?: string;
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { env: { ...process.env, ...env }, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

// Helm keeps its config, cache and data under these; nothing of the user's is touched.
const helmHome = mkdtempSync(join(tmpdir(), 'kubefed-ts-helm-'));
const helmEnv = {
  HELM_CACHE_HOME: join(helmHome, 'cache'),
  HELM_CONFIG_HOME: join(helmHome, 'config'),
  HELM_DATA_HOME: join(helmHome, 'data'),
};

async function helm(args: string[]): Promise<RunResult> {
  return run(helmBinary(), args, helmEnv);
}

/** `helm template` of the chart, as objects in Helm's install order; values files first, then `--set`s. */
async function render(namespace: string, set: string[] = [], valuesFiles: string[] = []): Promise<Obj[]> {
  const r = await helm([
    'template',
    RELEASE,
    CHART,
    '--namespace',
    namespace,
    ...valuesFiles.flatMap((f) => ['--values', f]),
    ...set.flatMap((s) => ['--set', s]),
  ]);
  assert.equal(r.code, 0, `helm template failed: ${r.stderr}`);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

function find<T extends Obj = Obj>(objs: Obj[], kind: string, name: string): T {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  assert.ok(
    o,
    `no ${kind} ${name} rendered; have ${objs.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`,
  );
  return o as T;
}

function rulesOf(objs: Obj[], kind: string, name: string): PolicyRule[] {
  return find<Obj & { rules: PolicyRule[] }>(objs, kind, name).rules;
}

function webhooksOf(objs: Obj[], kind: string, name: string): WebhookObj[] {
  return find<Obj & { webhooks: WebhookObj[] }>(objs, kind, name).webhooks;
}

/** The controller's permissions (Cluster scope), in one place: a change to them must change this test. */
/** The policy source's rules (nativeResources, on by default): Karmada's kinds and the default template kinds. */
const NATIVE_TEMPLATE_KINDS: Array<[string, string[]]> = [
  ['', ['configmaps', 'services', 'serviceaccounts', 'persistentvolumeclaims', 'namespaces']],
  ['apps', ['deployments', 'statefulsets', 'replicasets', 'daemonsets']],
  ['batch', ['jobs', 'cronjobs']],
  ['networking.k8s.io', ['ingresses']],
  ['policy', ['poddisruptionbudgets']],
  ['autoscaling', ['horizontalpodautoscalers']],
];
const NATIVE_RESOURCE_RULES: PolicyRule[] = [
  {
    apiGroups: ['policy.karmada.io'],
    resources: [
      'propagationpolicies',
      'clusterpropagationpolicies',
      'overridepolicies',
      'clusteroverridepolicies',
    ],
    verbs: ['get', 'list', 'watch', 'update', 'patch'],
  },
  {
    apiGroups: ['policy.karmada.io'],
    resources: [
      'propagationpolicies/status',
      'clusterpropagationpolicies/status',
      'overridepolicies/status',
      'clusteroverridepolicies/status',
    ],
    verbs: ['update'],
  },
  {
    apiGroups: ['work.karmada.io'],
    resources: ['resourcebindings', 'clusterresourcebindings'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
  },
  {
    apiGroups: ['work.karmada.io'],
    resources: ['resourcebindings/status', 'clusterresourcebindings/status'],
    verbs: ['update'],
  },
  { apiGroups: ['policy.karmada.io'], resources: ['clustertaintpolicies'], verbs: ['get', 'list', 'watch'] },
  {
    apiGroups: ['apps.karmada.io'],
    resources: ['workloadrebalancers'],
    verbs: ['get', 'list', 'watch', 'update', 'delete'],
  },
  { apiGroups: ['apps.karmada.io'], resources: ['workloadrebalancers/status'], verbs: ['update'] },
  {
    apiGroups: ['admissionregistration.k8s.io'],
    resources: ['mutatingwebhookconfigurations'],
    resourceNames: ['mutation.core.kubefed.io'],
    verbs: ['get', 'list', 'watch', 'update'],
  },
  ...NATIVE_TEMPLATE_KINDS.flatMap(([group, resources]): PolicyRule[] => [
    { apiGroups: [group], resources, verbs: ['get', 'list', 'watch', 'update', 'patch'] },
    { apiGroups: [group], resources: resources.map((r) => `${r}/status`), verbs: ['update'] },
  ]),
];
/** OCM's hub controllers (src/sources/manifestwork): Placement decisions, MWRS, completed-work TTL. */
const OCM_HUB_RULES: PolicyRule[] = [
  {
    apiGroups: ['cluster.open-cluster-management.io'],
    resources: ['placements'],
    verbs: ['get', 'list', 'watch'],
  },
  {
    apiGroups: ['cluster.open-cluster-management.io'],
    resources: ['placements/status', 'placements/finalizers', 'placementdecisions/status'],
    verbs: ['update'],
  },
  {
    apiGroups: ['cluster.open-cluster-management.io'],
    resources: ['placementdecisions'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
  },
  {
    apiGroups: ['work.open-cluster-management.io'],
    resources: ['manifestworkreplicasets'],
    verbs: ['get', 'list', 'watch', 'patch'],
  },
  {
    apiGroups: ['work.open-cluster-management.io'],
    resources: ['manifestworkreplicasets/status', 'manifestworkreplicasets/finalizers'],
    verbs: ['update'],
  },
  {
    apiGroups: ['work.open-cluster-management.io'],
    resources: ['manifestworks'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  { apiGroups: ['work.open-cluster-management.io'], resources: ['manifestworks/status'], verbs: ['update'] },
  { apiGroups: [''], resources: ['namespaces'], verbs: ['create'] },
];
/** The admission webhook's namespaced grant: what decides whether a create gets the sync finalizer. */
const WEBHOOK_ROLE_RULES: PolicyRule[] = [
  {
    apiGroups: ['core.kubefed.io'],
    resources: ['federatedtypeconfigs', 'kubefedconfigs'],
    verbs: ['get', 'list', 'watch'],
  },
  // The controller manager's leader Lease, that one only: whether a controller manager is alive.
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: ['kubefed-controller-manager'],
    verbs: ['get', 'list', 'watch'],
  },
];
const CLUSTER_ROLE_RULES: PolicyRule[] = [
  { apiGroups: ['types.kubefed.io'], resources: ['*'], verbs: ['get', 'list', 'watch', 'patch'] },
  { apiGroups: ['types.kubefed.io'], resources: ['*/status'], verbs: ['update'] },
  {
    apiGroups: ['core.kubefed.io'],
    resources: ['propagatedversions', 'clusterpropagatedversions'],
    verbs: ['get', 'list', 'create'],
  },
  {
    apiGroups: ['core.kubefed.io'],
    resources: ['propagatedversions/status', 'clusterpropagatedversions/status'],
    verbs: ['update'],
  },
  {
    apiGroups: ['scheduling.kubefed.io'],
    resources: ['replicaschedulingpreferences'],
    verbs: ['get', 'list', 'watch'],
  },
  {
    apiGroups: ['scheduling.kubefed.io'],
    resources: ['replicaschedulingpreferences/status'],
    verbs: ['update'],
  },
  {
    apiGroups: ['multiclusterdns.kubefed.io'],
    resources: ['servicednsrecords', 'ingressdnsrecords'],
    verbs: ['get', 'list', 'watch'],
  },
  {
    apiGroups: ['multiclusterdns.kubefed.io'],
    resources: ['servicednsrecords/status', 'ingressdnsrecords/status'],
    verbs: ['update'],
  },
  {
    apiGroups: ['multiclusterdns.kubefed.io'],
    resources: ['dnsendpoints'],
    verbs: ['get', 'create', 'update'],
  },
  { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: ['managed-cluster-lease'],
    verbs: ['get'],
  },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  ...OCM_HUB_RULES,
  ...NATIVE_RESOURCE_RULES,
];
const CONFIG_ROLE_RULES: PolicyRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: ['kubefed-controller-manager'],
    verbs: ['get', 'update'],
  },
  {
    apiGroups: [''],
    resources: ['configmaps', 'endpoints'],
    resourceNames: ['kubefed-controller-manager'],
    verbs: ['get'],
  },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
  {
    apiGroups: ['core.kubefed.io'],
    resources: ['kubefedconfigs'],
    resourceNames: ['kubefed'],
    verbs: ['get'],
  },
  { apiGroups: ['core.kubefed.io'], resources: ['kubefedconfigs'], verbs: ['create'] },
  {
    apiGroups: ['core.kubefed.io'],
    resources: ['kubefedclusters', 'federatedtypeconfigs'],
    verbs: ['get', 'list', 'watch'],
  },
  { apiGroups: ['core.kubefed.io'], resources: ['federatedtypeconfigs'], verbs: ['patch'] },
  { apiGroups: ['core.kubefed.io'], resources: ['kubefedclusters'], verbs: ['update', 'patch'] },
  {
    apiGroups: ['core.kubefed.io'],
    resources: ['kubefedclusters/status', 'federatedtypeconfigs/status'],
    verbs: ['update'],
  },
  { apiGroups: ['multiclusterdns.kubefed.io'], resources: ['domains'], verbs: ['get', 'list', 'watch'] },
];

after(() => rmSync(helmHome, { recursive: true, force: true }));

describe('charts/kubefed-ts rendered by helm template', () => {
  let objs: Obj[];
  let namespaced: Obj[];
  before(async () => {
    objs = await render(CLUSTER_NS);
    namespaced = await render('team-a', ['global.scope=Namespaced']);
  });

  test('the chart passes helm lint in both scopes', async () => {
    for (const set of [
      [],
      ['--set', 'global.scope=Namespaced'],
      ['--set', 'controllermanager.certManager.enabled=true'],
    ]) {
      const r = await helm(['lint', CHART, '--strict', ...set]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
    }
  });

  test('crds/ and the FTC template are what `npm run crds` generates (no drift)', () => {
    for (const [rel, content] of renderChartFiles()) {
      assert.equal(readFileSync(join(REPO_ROOT, rel), 'utf8'), content, `${rel} is stale; run npm run crds`);
    }
    const names = loadCrds(join(REPO_ROOT, CHART_CRD_DIR)).map((c) => c.metadata.name);
    for (const crd of [...loadCrds(), ...defaultFederatedTypes(CLUSTER_NS).crds]) {
      assert.ok(names.includes(crd.metadata.name), `${crd.metadata.name} missing from the chart's crds/`);
    }
    assert.equal(names.length, loadCrds().length + 10);
  });

  test('the ten default FederatedTypeConfigs, in the release namespace, exactly as local-up creates them', () => {
    const ftcs = objs.filter((o) => o.kind === 'FederatedTypeConfig');
    assert.deepEqual(ftcs, defaultFederatedTypes(CLUSTER_NS).ftcs);
  });

  test('the KubeFedConfig has every field, valid, and the defaults (scope Cluster, Lease lock)', () => {
    const cfg = find<Obj & { spec: KubeFedConfigSpec }>(objs, 'KubeFedConfig', 'kubefed');
    assert.equal(cfg.metadata.namespace, CLUSTER_NS);
    // Complete: defaulting (what the mutating webhook would do) changes nothing.
    assert.deepEqual(defaultKubeFedConfigSpec(cfg.spec, 'Namespaced'), cfg.spec);
    const resolved = resolveKubeFedConfig(cfg.spec);
    // KubeFed's defaults, except the lock: kubefed-ts always locks on a Lease, and the chart says so.
    const defaults = resolveKubeFedConfig(
      defaultKubeFedConfigSpec({ scope: 'Cluster', leaderElect: { resourceLock: 'leases' } }),
    );
    assert.deepEqual(resolved, defaults);
    assert.equal(cfg.spec['scope'], 'Cluster');
    const ns = find<Obj & { spec: { scope: string } }>(namespaced, 'KubeFedConfig', 'kubefed');
    assert.equal(ns.spec.scope, 'Namespaced');
    assert.equal(ns.metadata.namespace, 'team-a');
  });

  test('values reach the KubeFedConfig; a bad scope or gate fails the render', async () => {
    const o = await render(CLUSTER_NS, [
      'controllermanager.clusterHealthCheckPeriod=1s',
      'controllermanager.featureGates.SchedulerPreferences=Disabled',
      'controllermanager.featureGates.RawResourceStatusCollection=false',
      'controllermanager.syncController.maxConcurrentReconciles=7',
    ]);
    const spec = find<Obj & { spec: KubeFedConfigSpec }>(o, 'KubeFedConfig', 'kubefed').spec;
    const r = resolveKubeFedConfig(spec);
    assert.equal(r.clusterHealthCheck.periodMs, 1000);
    assert.equal(r.featureGates.SchedulerPreferences, false);
    assert.equal(r.featureGates.RawResourceStatusCollection, false);
    assert.equal(r.featureGates.PushReconciler, true);
    assert.equal(r.syncController.maxConcurrentReconciles, 7);
    for (const bad of ['global.scope=Clustered', 'controllermanager.featureGates.PushReconciler=On']) {
      const res = await helm(['template', RELEASE, CHART, '--set', bad]);
      assert.notEqual(res.code, 0, bad);
    }
  });

  test('the controller manager: 2 replicas, command, ports, probes, hardened, PDB', () => {
    const d = find<DeploymentObj>(objs, 'Deployment', 'kubefed-controller-manager');
    assert.equal(d.spec.replicas, 2);
    const pod = d.spec.template.spec;
    assert.equal(pod.serviceAccountName, 'kubefed-controller');
    assert.deepEqual(pod.securityContext, {
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      fsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const [c] = pod.containers;
    assert.ok(c);
    assert.equal(c.image, 'ghcr.io/kubefed-ts/kubefed-ts:0.1.0');
    assert.deepEqual(c.command, ['node', '/app/src/cmd/controller-manager.ts', '--v=0']);
    // A deleted KubeFedConfig is recreated with the release's scope, not KubeFed's implicit Cluster.
    assert.equal(c.env?.find((e) => e.name === 'DEFAULT_KUBEFED_SCOPE')?.value, 'Cluster');
    assert.deepEqual(
      c.ports?.find((p) => p.name === 'metrics'),
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
    );
    assert.deepEqual(c.livenessProbe?.httpGet, { path: '/healthz', port: 8080 });
    assert.deepEqual(c.readinessProbe?.httpGet, { path: '/readyz', port: 8080 });
    assert.deepEqual(c.securityContext, {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    assert.deepEqual(c.resources, {
      limits: { cpu: '500m', memory: '512Mi' },
      requests: { cpu: '100m', memory: '64Mi' },
    });
    const pdb = find<Obj & { spec: Record<string, unknown> }>(
      objs,
      'PodDisruptionBudget',
      'kubefed-controller-manager',
    );
    assert.deepEqual(pdb.spec, { maxUnavailable: 1, selector: { matchLabels: d.spec.selector.matchLabels } });
    const svc = find<Obj & { spec: { ports: unknown[]; selector: unknown } }>(
      objs,
      'Service',
      'kubefed-controller-manager-metrics-service',
    );
    assert.deepEqual(svc.spec.ports, [
      { name: 'metrics', port: 9090, targetPort: 'metrics', protocol: 'TCP' },
    ]);
    assert.deepEqual(svc.spec.selector, d.spec.selector.matchLabels);
    assert.equal(svc.metadata.annotations?.['prometheus.io/scrape'], 'true');
    assert.equal(svc.metadata.annotations?.['prometheus.io/port'], '9090');
  });

  test('the admission webhook: command, HTTPS readiness, serving cert, only its read and SubjectAccessReview grants, hardened', () => {
    const d = find<DeploymentObj>(objs, 'Deployment', 'kubefed-admission-webhook');
    // The webhooks fail closed: two replicas, so one can be down without blocking writes.
    assert.equal(d.spec.replicas, 2);
    const pod = d.spec.template.spec;
    assert.equal(pod.serviceAccountName, 'kubefed-admission-webhook');
    // It reads FTCs and the KubeFedConfig (the sync finalizer at admission) and asks SubjectAccessReviews.
    assert.equal(pod.automountServiceAccountToken, true);
    assert.equal(pod.securityContext['runAsNonRoot'], true);
    const [c] = pod.containers;
    assert.ok(c);
    assert.deepEqual(c.command, [
      'node',
      '/app/src/cmd/webhook.ts',
      '--secure-port=8443',
      '--cert-dir=/var/serving-cert',
      '--v=0',
    ]);
    assert.deepEqual(c.readinessProbe?.httpGet, { path: '/readyz', port: 8443, scheme: 'HTTPS' });
    assert.equal(c.securityContext?.['readOnlyRootFilesystem'], true);
    assert.deepEqual(
      c.volumeMounts?.find((m) => m.name === 'serving-cert'),
      {
        name: 'serving-cert',
        mountPath: '/var/serving-cert',
        readOnly: true,
      },
    );
    const servingCert = pod.volumes?.find((v) => v.name === 'serving-cert')?.secret;
    assert.equal(servingCert?.secretName, 'kubefed-admission-webhook-serving-cert');
    // Readable by the pod's group (fsGroup) only, whichever YAML version reads the manifest.
    assert.equal(servingCert?.defaultMode, 0o440);
    const svc = find<Obj & { spec: { ports: unknown[]; selector: unknown } }>(
      objs,
      'Service',
      'kubefed-admission-webhook',
    );
    assert.deepEqual(svc.spec.ports, [{ name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' }]);
    assert.deepEqual(svc.spec.selector, d.spec.selector.matchLabels);
    // The webhook's account is bound to two roles: create SubjectAccessReviews and read the propagation
    // policies (cluster-wide), and read the FTCs and KubeFedConfig of the release namespace.
    const bindings = objs
      .filter((o) => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding')
      .map((b) => b as Obj & { subjects: Array<{ name: string }>; roleRef: { kind: string; name: string } })
      .filter((b) => b.subjects.some((s) => s.name === 'kubefed-admission-webhook'))
      .map((b) => [b.kind, b.metadata.namespace, b.roleRef.kind, b.roleRef.name]);
    assert.deepEqual(bindings.sort(), [
      ['ClusterRoleBinding', undefined, 'ClusterRole', 'kubefed-admission-webhook'],
      ['RoleBinding', CLUSTER_NS, 'Role', 'kubefed-admission-webhook'],
    ]);
    assert.deepEqual(rulesOf(objs, 'ClusterRole', 'kubefed-admission-webhook'), [
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      {
        apiGroups: ['policy.karmada.io'],
        resources: ['propagationpolicies', 'clusterpropagationpolicies'],
        verbs: ['get', 'list', 'watch'],
      },
    ]);
    assert.deepEqual(rulesOf(objs, 'Role', 'kubefed-admission-webhook'), WEBHOOK_ROLE_RULES);
  });

  test('the entry points the chart runs exist in the repository (the image copies src/ to /app/src)', () => {
    for (const name of ['kubefed-controller-manager', 'kubefed-admission-webhook']) {
      const script =
        find<DeploymentObj>(objs, 'Deployment', name).spec.template.spec.containers[0]?.command[1] ?? '';
      assert.match(script, /^\/app\/src\//);
      assert.ok(readFileSync(join(REPO_ROOT, script.replace(/^\/app\//, '')), 'utf8').length > 0, script);
    }
  });

  test('webhook configurations: names, paths and rules of src/webhook, fail closed, explicit timeout', () => {
    const expected = webhookConfigurations({
      caBundle: 'x',
      service: { namespace: CLUSTER_NS, name: 'kubefed-admission-webhook', port: 443 },
    });
    for (const [kind, want] of [
      ['ValidatingWebhookConfiguration', expected.validating],
      ['MutatingWebhookConfiguration', expected.mutating],
    ] as const) {
      const got = webhooksOf(objs, kind, want.metadata.name);
      assert.deepEqual(
        got.map((w) => [
          w.name,
          w.clientConfig.service.path,
          w.clientConfig.service.name,
          w.clientConfig.service.namespace,
        ]),
        want.webhooks.map((w) => [
          w.name,
          w.clientConfig.service?.path,
          w.clientConfig.service?.name,
          w.clientConfig.service?.namespace,
        ]),
      );
      for (const [i, w] of got.entries()) {
        // Rules as src/webhook has them (the chart may add a scope).
        assert.deepEqual(
          w.rules.map(({ scope: _, ...r }) => r),
          want.webhooks[i]?.rules.map(({ scope: _, ...r }) => r),
          w.name,
        );
        // Fail closed with the chart's timeout, but for the template claim, which refuses nothing.
        assert.equal(w.failurePolicy, want.webhooks[i]?.failurePolicy, w.name);
        assert.equal(w.sideEffects, 'None');
        assert.deepEqual(w.admissionReviewVersions, ['v1']);
        assert.equal(w.timeoutSeconds, want.webhooks[i]?.timeoutSeconds ?? 10, w.name);
        assert.equal(w.namespaceSelector, undefined);
        if (kind === 'MutatingWebhookConfiguration') {
          assert.equal(w.reinvocationPolicy, want.webhooks[i]?.reinvocationPolicy ?? 'Never', w.name);
        }
      }
    }
    assert.deepEqual(
      webhooksOf(objs, 'ValidatingWebhookConfiguration', 'validations.core.kubefed.io').map(
        (w) => w.clientConfig.service.path,
      ),
      [
        '/validate-federatedtypeconfigs',
        '/validate-kubefedcluster',
        '/validate-kubefedconfig',
        '/validate-federated',
        '/validate-propagationpolicy',
        '/validate-clusterpropagationpolicy',
        '/validate-overridepolicy',
        '/validate-clusteroverridepolicy',
        '/validate-work-open-cluster-management-io-v1-manifestwork',
        '/validate-work-open-cluster-management-io-v1alpha1-manifestworkreplicaset',
      ],
    );
    assert.deepEqual(
      webhooksOf(objs, 'MutatingWebhookConfiguration', 'mutation.core.kubefed.io').map((w) => [
        w.name,
        w.clientConfig.service.path,
      ]),
      [
        ['kubefedconfigs.core.kubefed.io', '/default-kubefedconfig'],
        ['federated.types.kubefed.io', '/mutate-federated'],
        ['propagationpolicy.karmada.io', '/mutate-propagationpolicy'],
        ['clusterpropagationpolicy.karmada.io', '/mutate-clusterpropagationpolicy'],
        ['resourcetemplates.policy.kubefed.io', '/claim-resource-template'],
      ],
    );
  });

  test("the serving certificate: Helm's CA signs it for the Service's names, and is the webhooks' caBundle", () => {
    const secret = find<Obj & { type: string; data: Record<string, string> }>(
      objs,
      'Secret',
      'kubefed-admission-webhook-serving-cert',
    );
    assert.equal(secret.type, 'kubernetes.io/tls');
    const pem = (k: string) => Buffer.from(secret.data[k] ?? '', 'base64');
    const ca = new X509Certificate(pem('ca.crt'));
    const cert = new X509Certificate(pem('tls.crt'));
    assert.ok(ca.ca);
    assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), 'serving cert not signed by the CA');
    assert.ok(cert.checkPrivateKey(createPrivateKey(pem('tls.key'))));
    for (const name of [
      'kubefed-admission-webhook',
      `kubefed-admission-webhook.${CLUSTER_NS}`,
      `kubefed-admission-webhook.${CLUSTER_NS}.svc`,
    ]) {
      assert.ok(cert.checkHost(name), `certificate not valid for ${name}: ${cert.subjectAltName}`);
    }
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      for (const w of objs
        .filter((o) => o.kind === kind)
        .flatMap((o) => (o as Obj & { webhooks: WebhookObj[] }).webhooks)) {
        assert.equal(w.clientConfig.caBundle, secret.data['ca.crt'], w.name);
      }
    }
  });

  test('cert-manager instead: Issuers and Certificates, CA injected into both configurations, no Secret', async () => {
    const o = await render(CLUSTER_NS, ['controllermanager.certManager.enabled=true']);
    assert.ok(!o.some((x) => x.kind === 'Secret'));
    const serving = find<
      Obj & { spec: { secretName: string; dnsNames: string[]; issuerRef: { name: string } } }
    >(o, 'Certificate', `${RELEASE}-certificate`);
    assert.equal(serving.spec.secretName, 'kubefed-admission-webhook-serving-cert');
    assert.ok(serving.spec.dnsNames.includes(`kubefed-admission-webhook.${CLUSTER_NS}.svc`));
    find(o, 'Issuer', serving.spec.issuerRef.name);
    const root = find<Obj & { spec: { isCA: boolean; issuerRef: { name: string } } }>(
      o,
      'Certificate',
      `${RELEASE}-root-certificate`,
    );
    assert.equal(root.spec.isCA, true);
    find(o, 'Issuer', root.spec.issuerRef.name);
    for (const [kind, name] of [
      ['ValidatingWebhookConfiguration', 'validations.core.kubefed.io'],
      ['MutatingWebhookConfiguration', 'mutation.core.kubefed.io'],
    ] as const) {
      const cfg = find(o, kind, name);
      assert.equal(
        cfg.metadata.annotations?.['cert-manager.io/inject-ca-from'],
        `${CLUSTER_NS}/${RELEASE}-root-certificate`,
      );
      for (const w of webhooksOf(o, kind, name)) assert.equal(w.clientConfig.caBundle, undefined);
    }
  });

  test('install order: the FTCs and the KubeFedConfig come before any webhook configuration', () => {
    const idx = (pred: (o: Obj) => boolean) => objs.map((o, i) => (pred(o) ? i : -1)).filter((i) => i >= 0);
    const customResources = idx((o) => o.kind === 'FederatedTypeConfig' || o.kind === 'KubeFedConfig');
    const webhooks = idx((o) => (o.kind ?? '').endsWith('WebhookConfiguration'));
    assert.equal(customResources.length, 11);
    assert.ok(
      Math.max(...customResources) < Math.min(...webhooks),
      'a webhook would be registered before its pods',
    );
  });

  test('Cluster scope RBAC: exactly the rules the controller uses, secrets only in its namespace', () => {
    assert.deepEqual(rulesOf(objs, 'ClusterRole', 'kubefed-role'), CLUSTER_ROLE_RULES);
    assert.deepEqual(rulesOf(objs, 'Role', 'kubefed-config-role'), CONFIG_ROLE_RULES);
    assert.equal(find(objs, 'Role', 'kubefed-config-role').metadata.namespace, CLUSTER_NS);
    const binding = find<Obj & { roleRef: { kind: string; name: string }; subjects: unknown[] }>(
      objs,
      'ClusterRoleBinding',
      'kubefed-rolebinding',
    );
    assert.deepEqual(binding.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'kubefed-role',
    });
    assert.deepEqual(binding.subjects, [
      { kind: 'ServiceAccount', name: 'kubefed-controller', namespace: CLUSTER_NS },
    ]);
    // The only deletions: the pending member-deletion ConfigMaps, in the release namespace (a Role),
    // WorkloadRebalancers whose ttlSecondsAfterFinished ran out (Karmada's rebalancer controller does so),
    // and OCM's hub objects below.
    for (const rule of [...CLUSTER_ROLE_RULES, ...CONFIG_ROLE_RULES]) {
      const pendingDeletions = CONFIG_ROLE_RULES.includes(rule) && rule.resources?.join() === 'configmaps';
      const finishedRebalancers =
        rule.apiGroups?.join() === 'apps.karmada.io' && rule.resources?.join() === 'workloadrebalancers';
      // OCM's hub: works of clusters a MWRS no longer selects, completed works past their TTL, and the
      // PlacementDecisions a Placement no longer needs.
      const ocmHub = OCM_HUB_RULES.includes(rule);
      assert.ok(
        !rule.verbs.includes('*') &&
          (!rule.verbs.includes('delete') || pendingDeletions || finishedRebalancers || ocmHub),
        JSON.stringify(rule),
      );
    }
  });

  test('the aggregated admin/edit/view roles extend the built-in ones and are bound by nothing', () => {
    for (const [name, label] of [
      ['kubefed-admin', 'aggregate-to-admin'],
      ['kubefed-edit', 'aggregate-to-edit'],
      ['kubefed-view', 'aggregate-to-view'],
    ]) {
      const role = find(objs, 'ClusterRole', name ?? '');
      assert.equal(role.metadata.labels?.[`rbac.authorization.k8s.io/${label}`], 'true');
    }
    for (const b of objs.filter((o) => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding')) {
      const ref = (b as Obj & { roleRef: { name: string } }).roleRef.name;
      assert.ok(!/^kubefed-(admin|edit|view)/.test(ref), `${b.metadata.name} binds ${ref}`);
    }
    for (const r of rulesOf(objs, 'ClusterRole', 'kubefed-view'))
      assert.deepEqual(r.verbs, ['get', 'list', 'watch']);
    for (const r of rulesOf(objs, 'ClusterRole', 'kubefed-edit').filter((x) =>
      x.apiGroups?.includes('core.kubefed.io'),
    )) {
      assert.deepEqual(r.verbs, ['get', 'list', 'watch']);
    }
  });

  test('Namespaced scope: no cluster-wide grant, suffixed webhooks limited to the release namespace', () => {
    assert.ok(
      !namespaced.some((o) => o.kind === 'ClusterRoleBinding'),
      'a ClusterRoleBinding in Namespaced scope',
    );
    // Only the aggregated roles are ClusterRoles; they are bound by nothing here (admins bind admin/edit/view
    // per namespace).
    assert.deepEqual(
      namespaced.filter((o) => o.kind === 'ClusterRole').map((o) => o.metadata.name),
      ['kubefed-admin-team-a', 'kubefed-edit-team-a', 'kubefed-view-team-a'],
    );
    const role = find(namespaced, 'Role', 'kubefed-role');
    assert.equal(role.metadata.namespace, 'team-a');
    const manager = find<DeploymentObj>(namespaced, 'Deployment', 'kubefed-controller-manager');
    assert.equal(
      manager.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'DEFAULT_KUBEFED_SCOPE')?.value,
      'Namespaced',
    );
    const rules = rulesOf(namespaced, 'Role', 'kubefed-role');
    assert.ok(rules.some((r) => r.apiGroups?.includes('types.kubefed.io')));
    assert.ok(
      !rules.some((r) =>
        r.resources?.some((x) => x.startsWith('clusterpropagatedversions') || x === 'namespaces'),
      ),
    );
    const binding = find<Obj & { roleRef: { kind: string } }>(
      namespaced,
      'RoleBinding',
      'kubefed-rolebinding',
    );
    assert.equal(binding.roleRef.kind, 'Role');
    assert.deepEqual(rulesOf(namespaced, 'Role', 'kubefed-config-role'), CONFIG_ROLE_RULES);
    // The webhook reads its namespace's FTCs and KubeFedConfig there too, so it mounts a token.
    assert.deepEqual(rulesOf(namespaced, 'Role', 'kubefed-admission-webhook'), WEBHOOK_ROLE_RULES);
    assert.equal(find(namespaced, 'Role', 'kubefed-admission-webhook').metadata.namespace, 'team-a');
    assert.equal(
      find<DeploymentObj>(namespaced, 'Deployment', 'kubefed-admission-webhook').spec.template.spec
        .automountServiceAccountToken,
      true,
    );

    const expected = webhookConfigurations({
      caBundle: 'x',
      service: { namespace: 'team-a', name: 'kubefed-admission-webhook' },
      nameSuffix: 'team-a',
    });
    for (const [kind, want] of [
      ['ValidatingWebhookConfiguration', expected.validating],
      ['MutatingWebhookConfiguration', expected.mutating],
    ] as const) {
      assert.match(want.metadata.name, /-team-a$/);
      for (const w of webhooksOf(namespaced, kind, want.metadata.name)) {
        assert.deepEqual(w.namespaceSelector, { matchLabels: { 'kubernetes.io/metadata.name': 'team-a' } });
        for (const r of w.rules) assert.equal(r.scope, 'Namespaced', `${w.name} would see other namespaces`);
        assert.equal(w.clientConfig.service.namespace, 'team-a');
      }
    }
  });

  test('dnsEndpointApi externaldns.k8s.io moves the DNSEndpoint grant to that group; anything else fails', async () => {
    const o = await render(CLUSTER_NS, ['controllermanager.controller.dnsEndpointApi=externaldns.k8s.io']);
    const rules = rulesOf(o, 'ClusterRole', 'kubefed-role').filter((r) =>
      r.resources?.includes('dnsendpoints'),
    );
    assert.deepEqual(rules, [
      { apiGroups: ['externaldns.k8s.io'], resources: ['dnsendpoints'], verbs: ['get', 'create', 'update'] },
    ]);
    const c = find<DeploymentObj>(o, 'Deployment', 'kubefed-controller-manager').spec.template.spec
      .containers[0];
    assert.ok(c?.args?.includes('--dns-endpoint-api=externaldns.k8s.io'));
    const bad = await helm([
      'template',
      RELEASE,
      CHART,
      '--set',
      'controllermanager.controller.dnsEndpointApi=example.com',
    ]);
    assert.notEqual(bad.code, 0);
  });
});

const FIXTURES = join(REPO_ROOT, 'test/fixtures/helm');
/** KubeFed v0.10.0's charts/kubefed/values.yaml, verbatim. */
const KUBEFED_VALUES = join(FIXTURES, 'kubefed-v0.10.0-values.yaml');
/** The same keys as users leave them: null, "", {}. */
const EMPTY_KEYS_VALUES = join(FIXTURES, 'kubefed-values-empty-keys.yaml');

/**
 * A render with what legitimately differs between two renders taken out: the generated CA and serving
 * certificate (new ones on every render) and so the webhooks' caBundle.
 */
function comparable(objs: Obj[]): Obj[] {
  return objs.map((o) => {
    const c = structuredClone(o) as Obj & { data?: unknown; webhooks?: WebhookObj[] };
    if (c.kind === 'Secret') c.data = '<generated>';
    for (const w of c.webhooks ?? []) w.clientConfig.caBundle = '<generated>';
    return c;
  });
}

function container(objs: Obj[], deployment: string): Container {
  const c = find<DeploymentObj>(objs, 'Deployment', deployment).spec.template.spec.containers[0];
  assert.ok(c);
  return c;
}

describe("a values file written for KubeFed v0.10's chart", () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubefed-ts-values-'));
  const valuesFile = (name: string, yaml: string) => {
    const file = join(dir, name);
    writeFileSync(file, yaml);
    return file;
  };
  let defaults: Obj[];
  before(async () => {
    defaults = await render(CLUSTER_NS);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("KubeFed's own values.yaml: KubeFed's meaning, key by key", async () => {
    const objs = await render(CLUSTER_NS, [], [KUBEFED_VALUES]);
    // Its empty keys are KubeFed's defaults, which are the chart's: the KubeFedConfig is the default one.
    const cfg = find<Obj & { spec: KubeFedConfigSpec }>(objs, 'KubeFedConfig', 'kubefed');
    assert.deepEqual(
      cfg.spec,
      find<Obj & { spec: KubeFedConfigSpec }>(defaults, 'KubeFedConfig', 'kubefed').spec,
    );
    const resolved = resolveKubeFedConfig(cfg.spec);
    assert.equal(resolved.scope, 'Cluster');
    assert.deepEqual(resolved.featureGates, {
      PushReconciler: true,
      SchedulerPreferences: true,
      RawResourceStatusCollection: true,
    });
    assert.equal(resolved.controllerDuration.availableDelayMs, 20_000);
    assert.equal(resolved.clusterHealthCheck.periodMs, 10_000);
    assert.equal(resolved.syncController.adoptResources, true);
    // What it does set, it gets: 2 controller replicas, 1 webhook replica, klog levels 2 and 8, resources.
    const manager = find<DeploymentObj>(objs, 'Deployment', 'kubefed-controller-manager');
    const webhook = find<DeploymentObj>(objs, 'Deployment', 'kubefed-admission-webhook');
    assert.equal(manager.spec.replicas, 2);
    assert.equal(webhook.spec.replicas, 1);
    assert.ok(container(objs, 'kubefed-controller-manager').command.includes('--v=2'));
    assert.ok(container(objs, 'kubefed-admission-webhook').command.includes('--v=8'));
    assert.deepEqual(container(objs, 'kubefed-admission-webhook').resources, {
      limits: { cpu: '100m', memory: '256Mi' },
      requests: { cpu: '100m', memory: '64Mi' },
    });
    // quay.io/kubernetes-multicluster/kubefed:canary cannot run kubefed-ts: kubefed-ts's image instead.
    for (const d of ['kubefed-controller-manager', 'kubefed-admission-webhook']) {
      assert.equal(container(objs, d).image, 'ghcr.io/kubefed-ts/kubefed-ts:0.1.0', d);
    }
    // KubeFed's post-install kubectl Job (postInstallJob.*) is not needed: the gates are in the KubeFedConfig.
    assert.ok(!objs.some((o) => o.kind === 'Job' || o.kind === 'ConfigMap'));
    // Everything else is what the chart renders without values.
    const normalise = (list: Obj[]) =>
      comparable(list).map((o) => {
        if (o.kind !== 'Deployment') return o;
        const d = structuredClone(o) as DeploymentObj;
        d.spec.replicas = 0;
        for (const c of d.spec.template.spec.containers)
          c.command = c.command.filter((f) => !f.startsWith('--v='));
        return d as Obj;
      });
    assert.deepEqual(normalise(objs), normalise(defaults));
  });

  test('empty, null and {} keys render exactly what no values render', async () => {
    const files = [
      EMPTY_KEYS_VALUES,
      valuesFile('empty-block.yaml', 'controllermanager: {}\n'),
      valuesFile('null-block.yaml', 'controllermanager:\nglobal:\n'),
      valuesFile('null-gates.yaml', 'controllermanager:\n  featureGates:\n  controller:\n  webhook:\n'),
    ];
    for (const file of files) {
      const objs = await render(CLUSTER_NS, [], [file]);
      assert.deepEqual(comparable(objs), comparable(defaults), file);
    }
    const lint = await helm(['lint', CHART, '--strict', '--values', EMPTY_KEYS_VALUES]);
    assert.equal(lint.code, 0, lint.stdout + lint.stderr);
  });

  test('set keys keep their KubeFed meaning: gates, durations, images, scheduling, RBAC scope', async () => {
    const file = valuesFile(
      'set.yaml',
      `controllermanager:
  clusterAvailableDelay: 30s
  clusterHealthCheckFailureThreshold: 5
  leaderElectResourceLock: configmaps
  syncController:
    maxConcurrentReconciles: 8
    adoptResources: Disabled
  statusController:
    maxConcurrentReconciles: 2
  featureGates:
    PushReconciler: Disabled
    SchedulerPreferences: false
    RawResourceStatusCollection:
  commonNodeSelector: {pool: control}
  commonTolerations: [{key: dedicated, operator: Equal, value: control, effect: NoSchedule}]
  imagePullSecrets: [{name: regcred}]
  controller:
    replicaCount: 3
    repository: registry.example.com/mirror
    image: kubefed-ts
    tag: v0.1.0
    imagePullPolicy: Always
    podAnnotations: {team: fed}
    env: {NODE_OPTIONS: --max-old-space-size=400}
    resources: {limits: {cpu: "1", memory: 1Gi}}
  webhook:
    replicaCount: 0
    repository: registry.example.com/mirror
    tag: ""
  service:
    labels: {team: fed}
  postInstallJob:
    repository: bitnami
    image: kubectl
    tag: 1.17.16
global:
  scope: Namespaced
`,
    );
    const objs = await render('team-v', [], [file]);
    const spec = find<Obj & { spec: KubeFedConfigSpec }>(objs, 'KubeFedConfig', 'kubefed').spec;
    const r = resolveKubeFedConfig(spec);
    assert.equal(r.scope, 'Namespaced');
    assert.equal(r.controllerDuration.availableDelayMs, 30_000);
    assert.equal(r.controllerDuration.unavailableDelayMs, 60_000);
    assert.equal(r.clusterHealthCheck.failureThreshold, 5);
    assert.equal(spec.leaderElect?.resourceLock, 'configmaps');
    assert.equal(r.syncController.maxConcurrentReconciles, 8);
    assert.equal(r.syncController.adoptResources, false);
    assert.equal(r.statusController.maxConcurrentReconciles, 2);
    // false is Disabled (KubeFed's `default "Enabled"` turned it into Enabled); null is the default.
    assert.deepEqual(r.featureGates, {
      PushReconciler: false,
      SchedulerPreferences: false,
      RawResourceStatusCollection: true,
    });
    const manager = find<DeploymentObj>(objs, 'Deployment', 'kubefed-controller-manager');
    assert.equal(manager.spec.replicas, 3);
    const pod = manager.spec.template.spec as PodSpec & Record<string, unknown>;
    assert.deepEqual(pod['nodeSelector'], { pool: 'control' });
    assert.deepEqual(pod['tolerations'], [
      { key: 'dedicated', operator: 'Equal', value: 'control', effect: 'NoSchedule' },
    ]);
    assert.deepEqual(pod['imagePullSecrets'], [{ name: 'regcred' }]);
    const c = container(objs, 'kubefed-controller-manager');
    assert.equal(c.image, 'registry.example.com/mirror/kubefed-ts:v0.1.0');
    assert.equal((c as Container & { imagePullPolicy: string }).imagePullPolicy, 'Always');
    assert.equal(c.env?.find((e) => e.name === 'NODE_OPTIONS')?.value, '--max-old-space-size=400');
    // Helm merges a partial map into the default one, as in KubeFed.
    assert.deepEqual(c.resources, {
      limits: { cpu: '1', memory: '1Gi' },
      requests: { cpu: '100m', memory: '64Mi' },
    });
    const webhook = find<DeploymentObj>(objs, 'Deployment', 'kubefed-admission-webhook');
    assert.equal(webhook.spec.replicas, 0, 'replicaCount 0 is a value, not "the default"');
    assert.deepEqual((webhook.spec.template.spec as PodSpec & Record<string, unknown>)['nodeSelector'], {
      pool: 'control',
    });
    assert.equal(
      container(objs, 'kubefed-admission-webhook').image,
      'registry.example.com/mirror/kubefed-ts:0.1.0',
    );
    assert.equal(find(objs, 'Service', 'kubefed-admission-webhook').metadata.labels?.['team'], 'fed');
    assert.ok(!objs.some((o) => o.kind === 'ClusterRoleBinding'));
  });

  test('extraFederatedGroups: the rules of types.kubefed.io cover those groups too, and nothing else changes', async () => {
    const o = await render(CLUSTER_NS, [
      'controllermanager.controller.extraFederatedGroups={kubefed.example.com}',
    ]);
    const groups = ['types.kubefed.io', 'kubefed.example.com'];
    assert.deepEqual(rulesOf(o, 'ClusterRole', 'kubefed-role'), [
      { ...CLUSTER_ROLE_RULES[0], apiGroups: groups },
      { ...CLUSTER_ROLE_RULES[1], apiGroups: groups },
      ...CLUSTER_ROLE_RULES.slice(2),
    ]);
  });

  test('controllermanager.enabled false: only the FederatedTypeConfigs (KubeFed without its subchart)', async () => {
    const objs = await render(CLUSTER_NS, ['controllermanager.enabled=false']);
    assert.deepEqual([...new Set(objs.map((o) => o.kind))], ['FederatedTypeConfig']);
    assert.equal(objs.length, 10);
  });
});

/** Timings that keep the live tests short: a 1 s health period and a 4 s lease. */
describe('federationApiServer.enabled: a dedicated federation API server beside the controller manager', () => {
  const FED = ['federationApiServer.enabled=true'];
  let objs: Obj[];
  before(async () => {
    objs = await render(CLUSTER_NS, FED);
  });

  const containerOf = (name: string, kind = 'Deployment') => {
    const c = find<DeploymentObj>(objs, kind, name).spec.template.spec.containers[0];
    assert.ok(c, `${kind} ${name} has a container`);
    return c;
  };
  const flag = (c: Container, name: string) =>
    [...c.command, ...(c.args ?? [])].find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  const secretData = (name: string) =>
    find<Obj & { data: Record<string, string> }>(objs, 'Secret', name).data;
  const decoded = (data: Record<string, string>, key: string) =>
    Buffer.from(data[key] ?? '', 'base64').toString('utf8');
  const configMapDataOf = (list: Obj[], name: string) =>
    find<Obj & { data: Record<string, string> }>(list, 'ConfigMap', name).data;
  const configMapData = (name: string) => configMapDataOf(objs, name);
  /** What a client makes of a kubeconfig (our loader, as the controller manager reads its --kubeconfig). */
  const restConfigOf = (text: string) => {
    const file = join(helmHome, 'federation-apiserver.kubeconfig');
    writeFileSync(file, text);
    return restConfigForContext(loadKubeconfig({ kubeconfig: file }));
  };
  const docsOf = (yaml: string) =>
    parseAllDocuments(yaml)
      .map((d) => d.toJS() as Obj | null)
      .filter((o): o is Obj => o !== null);

  test('off by default: no federation API server object is rendered', async () => {
    const plain = await render(CLUSTER_NS);
    assert.deepEqual(
      plain.filter((o) => o.metadata.name?.startsWith('kubefed-federation-apiserver')).map((o) => o.kind),
      [],
    );
  });

  test("its kube-controller-manager runs Karmada's controllers and no workload controller", async () => {
    const kcm = containerOf('kubefed-federation-apiserver-controller-manager');
    assert.equal(kcm.image, 'registry.k8s.io/kube-controller-manager:v1.36.3');
    const controllers = flag(kcm, '--controllers');
    assert.equal(controllers, FEDERATION_APISERVER_CONTROLLERS.join(','));
    assert.deepEqual(workloadControllersEnabled(controllers), []);
    for (const bad of [
      'deployment-controller',
      'replicaset',
      'statefulset-controller',
      'daemonset',
      'job-controller',
      '*',
    ]) {
      const r = await helm([
        'template',
        RELEASE,
        CHART,
        ...FED.flatMap((s) => ['--set', s]),
        '--set',
        `federationApiServer.controllerManager.controllers={namespace-controller,${bad}}`,
      ]);
      assert.notEqual(r.code, 0, bad);
      assert.match(r.stderr, /must not run/, bad);
    }
    // It signs tokens with the key the API server verifies, and reaches the API server by its Service.
    assert.equal(flag(kcm, '--service-account-private-key-file'), '/etc/kubernetes/pki/sa.key');
    assert.equal(flag(kcm, '--use-service-account-credentials'), 'true');
    assert.equal(
      restConfigOf(decoded(secretData('kubefed-federation-apiserver-pki'), 'controller-manager.kubeconfig'))
        .server,
      `https://kubefed-federation-apiserver.${CLUSTER_NS}.svc:443`,
    );
  });

  test('kube-apiserver: TLS etcd, the tokens, its Service; etcd: a StatefulSet with a claim, or an emptyDir', async () => {
    const api = containerOf('kubefed-federation-apiserver');
    assert.equal(api.image, 'registry.k8s.io/kube-apiserver:v1.36.3');
    assert.equal(
      flag(api, '--etcd-servers'),
      `https://kubefed-federation-apiserver-etcd.${CLUSTER_NS}.svc:2379`,
    );
    assert.equal(flag(api, '--authorization-mode'), 'RBAC');
    assert.equal(flag(api, '--token-auth-file'), '/etc/kubernetes/pki/tokens.csv');
    const pki = secretData('kubefed-federation-apiserver-pki');
    const tokens = decoded(pki, 'tokens.csv').trim().split('\n');
    assert.deepEqual(
      tokens.map((l) => l.split(',').slice(1).join(',')),
      [
        'kubefed-ts-admin,kubefed-ts-admin,"system:masters"',
        'system:kube-controller-manager,system:kube-controller-manager',
      ],
    );
    const svc = find<Obj & { spec: { selector: unknown; ports: unknown[]; type: string } }>(
      objs,
      'Service',
      'kubefed-federation-apiserver',
    );
    assert.deepEqual(svc.spec.selector, { 'kubefed-control-plane': 'federation-apiserver' });
    assert.deepEqual(svc.spec.ports, [{ name: 'https', port: 443, targetPort: 6443, protocol: 'TCP' }]);
    // One CA signs the serving certificates and etcd's only accepted client.
    const pem = (k: string) => Buffer.from(pki[k] ?? '', 'base64');
    const ca = new X509Certificate(pem('ca.crt'));
    for (const [cert, key, hosts] of [
      ['apiserver.crt', 'apiserver.key', [`kubefed-federation-apiserver.${CLUSTER_NS}.svc`, 'localhost']],
      ['etcd-server.crt', 'etcd-server.key', [`kubefed-federation-apiserver-etcd.${CLUSTER_NS}.svc`]],
      ['etcd-client.crt', 'etcd-client.key', []],
    ] as const) {
      const x = new X509Certificate(pem(cert));
      assert.ok(x.checkIssued(ca) && x.verify(ca.publicKey), `${cert} not signed by the CA`);
      assert.ok(x.checkPrivateKey(createPrivateKey(pem(key))), key);
      for (const h of hosts) assert.ok(x.checkHost(h), `${cert} not valid for ${h}: ${x.subjectAltName}`);
    }
    assert.ok(new X509Certificate(pem('apiserver.crt')).checkIP('127.0.0.1'));

    const etcd = find<
      Obj & {
        spec: {
          volumeClaimTemplates?: unknown[];
          template: { spec: PodSpec & { volumes: Array<Record<string, unknown>> } };
        };
      }
    >(objs, 'StatefulSet', 'kubefed-federation-apiserver-etcd');
    assert.equal(etcd.spec.template.spec.containers[0]?.image, 'registry.k8s.io/etcd:3.6.14-0');
    assert.equal(etcd.spec.volumeClaimTemplates?.length, 1);
    assert.ok(!etcd.spec.template.spec.volumes.some((v) => v['name'] === 'data'));
    const ephemeral = find<typeof etcd>(
      await render(CLUSTER_NS, [...FED, 'federationApiServer.etcd.storage.type=emptyDir']),
      'StatefulSet',
      'kubefed-federation-apiserver-etcd',
    );
    assert.equal(ephemeral.spec.volumeClaimTemplates, undefined);
    assert.deepEqual(
      ephemeral.spec.template.spec.volumes.find((v) => v['name'] === 'data'),
      { name: 'data', emptyDir: {} },
    );
    const bad = await helm([
      'template',
      RELEASE,
      CHART,
      '--set',
      FED[0] ?? '',
      '--set',
      'federationApiServer.etcd.storage.type=hostPath',
    ]);
    assert.notEqual(bad.code, 0);
  });

  test('the controller manager serves the federation API server, as kubefed-ts-admin', () => {
    const c = containerOf('kubefed-controller-manager');
    const mountPath = '/etc/kubefed-ts/federation-apiserver';
    assert.equal(flag(c, '--kubeconfig'), `${mountPath}/kubeconfig`);
    const pod = find<DeploymentObj>(objs, 'Deployment', 'kubefed-controller-manager').spec.template.spec;
    const mount = c.volumeMounts?.find((m) => m.mountPath === mountPath);
    assert.ok(mount?.readOnly);
    assert.equal(
      pod.volumes?.find((v) => v.name === mount.name)?.secret?.secretName,
      'kubefed-federation-apiserver-kubeconfig',
    );
    const rest = restConfigOf(decoded(secretData('kubefed-federation-apiserver-kubeconfig'), 'kubeconfig'));
    assert.equal(rest.server, `https://kubefed-federation-apiserver.${CLUSTER_NS}.svc:443`);
    const pki = secretData('kubefed-federation-apiserver-pki');
    assert.equal(rest.caData?.toString('base64'), pki['ca.crt']);
    assert.equal(rest.token, decoded(pki, 'admin.token'));
    // Nothing of this cluster's: no token mounted, no role or binding rendered for it here.
    assert.equal(pod.automountServiceAccountToken, false);
    assert.deepEqual(
      objs.filter((o) => /^(Cluster)?Role(Binding)?$/.test(o.kind ?? '')).map((o) => o.metadata.name),
      [],
    );
  });

  test('FTCs, KubeFedConfig, aggregated roles and webhook configurations go to the federation API server, through the install Job', async () => {
    const plain = await render(CLUSTER_NS);
    for (const kind of [
      'FederatedTypeConfig',
      'KubeFedConfig',
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
    ])
      assert.ok(!objs.some((o) => o.kind === kind), `${kind} rendered for the installing cluster`);
    const objects = configMapData('kubefed-federation-apiserver-objects');
    assert.deepEqual(Object.keys(objects), [
      '00-namespace.yaml',
      '10-kubefedconfig.yaml',
      '20-federatedtypeconfigs.yaml',
      '30-aggregated-clusterroles.yaml',
    ]);
    assert.deepEqual(docsOf(objects['00-namespace.yaml'] ?? ''), [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CLUSTER_NS, labels: { name: CLUSTER_NS } } },
    ]);
    assert.deepEqual(
      docsOf(objects['10-kubefedconfig.yaml'] ?? ''),
      plain.filter((o) => o.kind === 'KubeFedConfig'),
    );
    assert.deepEqual(
      docsOf(objects['20-federatedtypeconfigs.yaml'] ?? ''),
      defaultFederatedTypes(CLUSTER_NS).ftcs,
    );
    assert.deepEqual(
      docsOf(objects['30-aggregated-clusterroles.yaml'] ?? ''),
      plain.filter((o) => /^kubefed-(admin|edit|view)$/.test(o.metadata.name ?? '')),
    );
    const withoutRoles = await render(CLUSTER_NS, [...FED, 'aggregatedClusterRoles.enabled=false']);
    assert.ok(
      !(
        '30-aggregated-clusterroles.yaml' in
        configMapDataOf(withoutRoles, 'kubefed-federation-apiserver-objects')
      ),
    );
    const crds = configMapData('kubefed-federation-apiserver-crds');
    for (const [rel, content] of renderChartFiles()) {
      if (rel.startsWith(`${CHART_CRD_DIR}/`))
        assert.equal(crds[rel.slice(CHART_CRD_DIR.length + 1)], content, rel);
    }
    assert.equal(Object.keys(crds).length, loadCrds(join(REPO_ROOT, CHART_CRD_DIR)).length);
    // The webhooks by URL (the federation API server resolves no Service of this cluster), same paths and CA.
    const configurations = docsOf(
      configMapData('kubefed-federation-apiserver-webhooks')['webhook-configurations.yaml'] ?? '',
    );
    const caBundle = secretData('kubefed-admission-webhook-serving-cert')['ca.crt'];
    const hooks = (list: Obj[]) =>
      list.flatMap(
        (o) => (o as Obj & { webhooks: Array<WebhookObj & { clientConfig: { url?: string } }> }).webhooks,
      );
    // In the file's order (Helm's install order puts the mutating one first in a release). All but the
    // template claim: that webhook reads the policies, which live in the federation API server, out of its reach.
    const want = hooks(
      ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'].flatMap((k) =>
        plain.filter((o) => o.kind === k),
      ),
    ).filter((w) => w.name !== 'resourcetemplates.policy.kubefed.io');
    const got = hooks(configurations);
    assert.deepEqual(
      configurations.map((o) => o.kind),
      ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'],
    );
    assert.deepEqual(
      got.map((w) => [w.name, w.clientConfig.url, w.clientConfig.caBundle, w.clientConfig.service]),
      want.map((w) => [
        w.name,
        `https://kubefed-admission-webhook.${CLUSTER_NS}.svc:443${w.clientConfig.service.path}`,
        caBundle,
        undefined,
      ]),
    );
    assert.deepEqual(
      got.map((w) => w.rules),
      want.map((w) => w.rules),
    );
    // The Job: after install and upgrade, CRDs, then (established) the objects, then the webhooks.
    const job = find<
      Obj & {
        metadata: { annotations: Record<string, string> };
        spec: { template: { spec: PodSpec & { initContainers: Container[] } } };
      }
    >(objs, 'Job', 'kubefed-federation-apiserver-install');
    assert.equal(job.metadata.annotations['helm.sh/hook'], 'post-install,post-upgrade');
    const steps = [...job.spec.template.spec.initContainers, ...job.spec.template.spec.containers];
    assert.deepEqual(
      steps.map((s) => s.command.slice(2, 3).concat(s.command.slice(-1))),
      [
        ['apply', '/manifests/crds'],
        ['wait', '/manifests/crds'],
        ['apply', '/manifests/objects'],
        ['apply', '/manifests/webhooks'],
      ],
    );
    for (const s of steps)
      assert.equal(s.command[1], '--kubeconfig=/etc/kubefed-ts/federation-apiserver/kubeconfig');
  });

  test('needs the controller manager, and Helm-made certificates (cert-manager cannot inject into it)', async () => {
    for (const bad of ['controllermanager.enabled=false', 'controllermanager.certManager.enabled=true']) {
      const r = await helm(['template', RELEASE, CHART, '--set', FED[0] ?? '', '--set', bad]);
      assert.notEqual(r.code, 0, bad);
    }
    const lint = await helm(['lint', CHART, '--strict', '--set', FED[0] ?? '']);
    assert.equal(lint.code, 0, lint.stdout + lint.stderr);
  });
});

describe("federationApiServer: the chart's etcd, kube-apiserver and kube-controller-manager, run from their rendered commands", () => {
  const ns = 'kube-federation-system';
  const dir = mkdtempSync(join(tmpdir(), 'kubefed-ts-chart-fedapi-'));
  const procs: ManagedProcess[] = [];
  let objs: Obj[];
  let client: KubeClient | undefined;
  let kubeconfig = '';
  const ports = new Map<number, number>();

  /** A container's command as it would run in its pod, here: mounted files in dir, loopback, free ports. */
  function localCommand(c: Container): string[] {
    const port = (p: string) => String(ports.get(Number(p)) ?? p);
    return c.command.slice(1).map((a) =>
      a
        .replaceAll(/\/etc\/(etcd|kubernetes)\/pki\//g, `${dir}/pki/`)
        .replace('/var/lib/etcd', join(dir, 'etcd'))
        .replace('$(POD_IP)', '127.0.0.1')
        .replaceAll('0.0.0.0', '127.0.0.1')
        .replace(`kubefed-federation-apiserver-etcd.${ns}.svc`, '127.0.0.1')
        .replaceAll(/:(2379|2380|2381)\b/g, (_, p: string) => `:${port(p)}`)
        .replace(/^--secure-port=(\d+)$/, (_, p: string) => `--secure-port=${port(p)}`),
    );
  }
  const containerOf = (kind: string, name: string) => {
    const c = find<DeploymentObj>(objs, kind, name).spec.template.spec.containers[0];
    assert.ok(c);
    return c;
  };
  /** A kubeconfig of the chart's, pointed at the local API server instead of the in-cluster Service. */
  const localKubeconfig = (text: string) =>
    text.replace(
      `https://kubefed-federation-apiserver.${ns}.svc:443`,
      `https://127.0.0.1:${ports.get(6443)}`,
    );

  before(async () => {
    objs = await render(ns, [
      'federationApiServer.enabled=true',
      'federationApiServer.etcd.storage.type=emptyDir',
    ]);
    for (const p of [2379, 2380, 2381, 6443, 10257]) ports.set(p, await freePort());
    mkdirSync(join(dir, 'pki'), { recursive: true });
    const pki = find<Obj & { data: Record<string, string> }>(
      objs,
      'Secret',
      'kubefed-federation-apiserver-pki',
    ).data;
    for (const [k, v] of Object.entries(pki)) {
      const text = Buffer.from(v, 'base64').toString('utf8');
      writeFileSync(join(dir, 'pki', k), k.endsWith('.kubeconfig') ? localKubeconfig(text) : text, {
        mode: 0o600,
      });
    }
    const admin = find<Obj & { data: Record<string, string> }>(
      objs,
      'Secret',
      'kubefed-federation-apiserver-kubeconfig',
    ).data;
    kubeconfig = join(dir, 'admin.kubeconfig');
    writeFileSync(
      kubeconfig,
      localKubeconfig(Buffer.from(admin['kubeconfig'] ?? '', 'base64').toString('utf8')),
    );
    const etcd = containerOf('StatefulSet', 'kubefed-federation-apiserver-etcd');
    procs.push(
      ManagedProcess.start('fedapi-etcd', binary('etcd'), localCommand(etcd), {
        logFile: join(dir, 'etcd.log'),
      }),
    );
    const api = containerOf('Deployment', 'kubefed-federation-apiserver');
    const apiserver = ManagedProcess.start(
      'fedapi-kube-apiserver',
      binary('kube-apiserver'),
      localCommand(api),
      {
        logFile: join(dir, 'kube-apiserver.log'),
        env: withoutProxy(process.env),
      },
    );
    procs.push(apiserver);
    client = new KubeClient(restConfigForContext(loadKubeconfig({ kubeconfig })), {
      name: 'federation-apiserver',
    });
    const c = client;
    await waitFor(
      'the federation API server to be ready (as kubefed-ts-admin, through its TLS etcd)',
      async () => {
        if (!apiserver.running) throw new Error(`kube-apiserver exited:\n${apiserver.tail()}`);
        const r = await c.requestRaw('GET', '/readyz');
        return r.statusCode === 200 && r.body === 'ok';
      },
      { timeoutMs: 60_000, describe: () => apiserver.tail() },
    );
    const kcm = containerOf('Deployment', 'kubefed-federation-apiserver-controller-manager');
    procs.push(
      ManagedProcess.start(
        'fedapi-kube-controller-manager',
        binary('kube-controller-manager'),
        localCommand(kcm),
        {
          logFile: join(dir, 'kube-controller-manager.log'),
          env: withoutProxy(process.env),
        },
      ),
    );
  });
  after(async () => {
    await client?.close();
    for (const p of procs.reverse()) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the install Job's steps, then the controller manager serves it; templates do not run, namespaces are deleted", async () => {
    assert.ok(client);
    const fedClient = client;
    const kubectlFed = (args: string[]) => run(binary('kubectl'), ['--kubeconfig', kubeconfig, ...args]);
    const manifests = join(dir, 'manifests');
    for (const [volume, configMap] of [
      ['crds', 'kubefed-federation-apiserver-crds'],
      ['objects', 'kubefed-federation-apiserver-objects'],
      ['webhooks', 'kubefed-federation-apiserver-webhooks'],
    ] as const) {
      mkdirSync(join(manifests, volume), { recursive: true });
      const data = find<Obj & { data: Record<string, string> }>(objs, 'ConfigMap', configMap).data;
      for (const [key, content] of Object.entries(data)) writeFileSync(join(manifests, volume, key), content);
    }
    const job = find<Obj & { spec: { template: { spec: PodSpec & { initContainers: Container[] } } } }>(
      objs,
      'Job',
      'kubefed-federation-apiserver-install',
    );
    for (const step of [...job.spec.template.spec.initContainers, ...job.spec.template.spec.containers]) {
      const args = step.command.slice(2).map((a) => a.replace(/^\/manifests\//, `${manifests}/`));
      // No webhook pod answers here, and they fail closed: the webhook configurations only dry-run.
      if (step.name === 'apply-webhook-configurations') args.push('--dry-run=server');
      const r = await kubectlFed(args);
      assert.equal(r.code, 0, `${step.name}: ${r.stderr}`);
    }

    // The controller manager with the chart's flags and kubeconfig: it runs its controllers there.
    const c = containerOf('Deployment', 'kubefed-controller-manager');
    const flags = [...c.command.slice(2), ...(c.args ?? [])].filter(
      (f) => !f.startsWith('--v=') && !f.startsWith('--kubeconfig='),
    );
    const cm = await startKubefedControllerManager({
      kubeconfig,
      context: 'federation-apiserver',
      namespace: ns,
      logFile: join(dir, 'controller-manager.log'),
      args: flags,
    });
    procs.push(cm.process);
    await eventually(
      'the FederatedTypeConfig deployments.apps reconciled by the controller manager',
      () =>
        fedClient.get<Obj & { status?: { observedGeneration?: number } }>(
          FederatedTypeConfigType,
          'deployments.apps',
          ns,
        ),
      (f) => (f?.status?.observedGeneration ?? 0) > 0,
      60_000,
    );

    // A plain Deployment is a template here: no node, no deployment controller. The namespace controller
    // (with its own ServiceAccount's token, minted by this kube-controller-manager) does run: deleting a
    // namespace after the Deployment was created finishes, so the controllers have had their chance.
    assert.deepEqual((await client.list(CoreTypes.nodes)).items, []);
    const template = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    };
    const deployments = {
      group: 'apps',
      version: 'v1',
      plural: 'deployments',
      namespaced: true,
      kind: 'Deployment',
    };
    const replicasets = {
      group: 'apps',
      version: 'v1',
      plural: 'replicasets',
      namespaced: true,
      kind: 'ReplicaSet',
    };
    await client.create(deployments, template);
    await client.create(CoreTypes.namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'doomed' },
    });
    await client.create(CoreTypes.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'doomed' },
    });
    await client.delete(CoreTypes.namespaces, 'doomed');
    await eventually(
      'the namespace doomed deleted by the namespace controller',
      () => getOrUndefined(fedClient, CoreTypes.namespaces, 'doomed'),
      (n) => n === undefined,
      90_000,
    );
    const web = await client.get<Obj & { status?: unknown }>(deployments, 'web', 'default');
    assert.equal(
      web.status === undefined || Object.keys(web.status as object).length === 0,
      true,
      JSON.stringify(web.status),
    );
    assert.deepEqual((await client.list(replicasets, { namespace: 'default' })).items, []);
    // Its clusterrole-aggregation-controller made the chart's roles part of admin.
    await eventually(
      'the admin ClusterRole to aggregate kubefed-admin',
      () => fedClient.get<Obj & { rules?: PolicyRule[] }>(CoreTypes.clusterRoles, 'admin'),
      (r) => Boolean(r.rules?.some((x) => x.apiGroups?.includes('types.kubefed.io'))),
      60_000,
    );
  });
});

const FAST = [
  'controllermanager.clusterHealthCheckPeriod=1s',
  'controllermanager.clusterHealthCheckTimeout=1s',
  'controllermanager.leaderElectLeaseDuration=4s',
  'controllermanager.leaderElectRenewDeadline=3s',
  'controllermanager.leaderElectRetryPeriod=1s',
  'controllermanager.clusterAvailableDelay=1s',
];

describe('charts/kubefed-ts on a real kube-apiserver', () => {
  let fed: Federation;
  let host: KubeClient;
  const dir = mkdtempSync(join(tmpdir(), 'kubefed-ts-chart-'));
  const managers: ControllerManagerProcess[] = [];

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2'] });
    host = fed.host.client();
    // Helm installs crds/ before anything else; so do we, and wait until they are served.
    await applyCrds(host, loadCrds(join(REPO_ROOT, CHART_CRD_DIR)));
  });
  after(async () => {
    await Promise.all(managers.map((m) => m.process.stop()));
    await fed?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function kubectl(args: string[]): Promise<RunResult> {
    return run(binary('kubectl'), ['--kubeconfig', fed.kubeconfigPath, '--context', 'host', ...args]);
  }

  async function ensureNamespace(name: string): Promise<void> {
    try {
      await host.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch {
      // already there
    }
  }

  /**
   * `helm template` applied for real, except the webhook configurations, which only go through a
   * server-side dry run: no webhook pod can run here, and they fail closed.
   */
  async function applyChart(namespace: string, set: string[]): Promise<Obj[]> {
    await ensureNamespace(namespace);
    const objs = await render(namespace, set);
    const isWebhook = (o: Obj) => (o.kind ?? '').endsWith('WebhookConfiguration');
    const write = (name: string, list: Obj[]) => {
      const file = join(dir, `${namespace}-${name}.yaml`);
      writeFileSync(file, list.map((o) => `---\n${JSON.stringify(o)}\n`).join(''));
      return file;
    };
    const real = await kubectl([
      'apply',
      '--server-side',
      '--field-manager=chart-test',
      '-f',
      write(
        'real',
        objs.filter((o) => !isWebhook(o)),
      ),
    ]);
    assert.equal(real.code, 0, `kubectl apply: ${real.stderr}`);
    const dry = await kubectl([
      'apply',
      '--server-side',
      '--dry-run=server',
      '--field-manager=chart-test',
      '-f',
      write('webhooks', objs.filter(isWebhook)),
    ]);
    assert.equal(dry.code, 0, `kubectl apply --dry-run=server: ${dry.stderr}`);
    assert.equal((dry.stdout.match(/serverside-applied \(server dry run\)/g) ?? []).length, 2, dry.stdout);
    return objs;
  }

  /** A kubeconfig for the host whose only credential is a token of the chart's controller ServiceAccount. */
  async function controllerKubeconfig(namespace: string): Promise<string> {
    const res = await host.request<{ status: { token: string } }>(
      'POST',
      `/api/v1/namespaces/${namespace}/serviceaccounts/kubefed-controller/token`,
      {
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { expirationSeconds: 3600 },
        },
      },
    );
    const file = join(dir, `${namespace}.kubeconfig`);
    await writeKubeconfigFile(
      file,
      renderKubeconfig(
        [{ name: 'host', server: fed.host.server, caData: fed.host.api.caData, token: res.status.token }],
        'host',
      ),
    );
    return file;
  }

  /** The controller manager as the chart's Deployment runs it (its flags), with the ServiceAccount's token. */
  async function startAsChart(namespace: string, objs: Obj[]): Promise<ControllerManagerProcess> {
    const c = find<DeploymentObj>(objs, 'Deployment', 'kubefed-controller-manager').spec.template.spec
      .containers[0];
    assert.ok(c);
    const flags = [...c.command.slice(2).filter((f) => !f.startsWith('--v=')), ...(c.args ?? [])];
    const cm = await startKubefedControllerManager({
      kubeconfig: await controllerKubeconfig(namespace),
      context: 'host',
      namespace,
      logFile: join(dir, `controller-manager-${namespace}.log`),
      // Debug logs show the failures that are otherwise quiet (events, status writes).
      args: [...flags, '--v=1'],
    });
    managers.push(cm);
    return cm;
  }

  async function joinMember(cluster: string, namespace: string): Promise<void> {
    const r = await kubefedctl([
      'join',
      cluster,
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
      '--kubefed-namespace',
      namespace,
    ]);
    assert.equal(r.code, 0, r.stderr);
    await eventually(
      `KubeFedCluster ${cluster} Ready`,
      () =>
        host.get<Obj & { status?: { conditions?: Array<{ type: string; status: string }> } }>(
          KubeFedClusterType,
          cluster,
          namespace,
        ),
      (c) => Boolean(c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')),
      60_000,
    );
  }

  /** Every line of the controller's log that mentions a denial (run with --v=1, so quiet ones show too). */
  function forbidden(cm: ControllerManagerProcess): string[] {
    return readFileSync(cm.logFile, 'utf8')
      .split('\n')
      .filter((l) => /forbidden/i.test(l));
  }

  async function allowed(namespace: string, attrs: Record<string, string>): Promise<boolean> {
    const res = await host.request<{ status: { allowed: boolean } }>(
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: `system:serviceaccount:${namespace}:kubefed-controller`, resourceAttributes: attrs },
        },
      },
    );
    return res.status.allowed;
  }

  const fcm = (name: string, namespace: string, cluster: string) =>
    federatedConfigMap(name, namespace, { from: 'chart' }, [cluster]);

  test('Cluster scope: the controller federates to a member with nothing but the chart RBAC', async () => {
    const objs = await applyChart(CLUSTER_NS, FAST);
    const cm = await startAsChart(CLUSTER_NS, objs);
    await joinMember('cluster1', CLUSTER_NS);
    const c1 = fed.cluster('cluster1').client();
    const ns = 'chart-test';
    await ensureNamespace(ns);
    await host.create(T.fns, {
      apiVersion: `${FED_GROUP}/${FED_VERSION}`,
      kind: 'FederatedNamespace',
      metadata: { name: ns, namespace: ns },
      spec: { placement: { clusters: [{ name: 'cluster1' }] } },
    });
    await host.create(T.fcm, fcm('settings', ns, 'cluster1'));
    const copy = await eventually(
      'the ConfigMap in cluster1',
      () => getOrUndefined<Obj & { data?: Record<string, string> }>(c1, T.configmaps, 'settings', ns),
      (o) => o?.data?.['from'] === 'chart',
      90_000,
    );
    assert.equal(copy?.metadata.labels?.['kubefed.io/managed'], 'true');
    // By default the member versions are recorded in the status, no PropagatedVersion written.
    await eventually(
      'the versions of the FederatedConfigMap in its status',
      () =>
        host.get<Obj & { status?: { propagatedVersion?: { clusterVersions?: unknown[] } } }>(
          T.fcm,
          'settings',
          ns,
        ),
      (o) => (o.status?.propagatedVersion?.clusterVersions?.length ?? 0) > 0,
    );
    assert.equal(await getOrUndefined(host, PropagatedVersionType, 'configmap-settings', ns), undefined);
    const ftc = await host.get<Obj & { status?: { propagationController?: string } }>(
      FederatedTypeConfigType,
      'configmaps',
      CLUSTER_NS,
    );
    assert.equal(ftc.status?.propagationController, 'Running');
    assert.ok(ftc.metadata.finalizers?.includes(FEDERATED_TYPE_CONFIG_FINALIZER));

    // Multi-cluster DNS: an IngressDNSRecord gets its DNSEndpoint and a status.
    await host.create(IngressDNSRecordType, {
      apiVersion: 'multiclusterdns.kubefed.io/v1alpha1',
      kind: 'IngressDNSRecord',
      metadata: { name: 'web', namespace: ns },
      spec: { hosts: ['web.example.test'] },
    });
    await eventually(
      'the DNSEndpoint of the IngressDNSRecord',
      () => getOrUndefined(host, DNSEndpointType, 'ingress-web', ns),
      (o) => o !== undefined,
    );
    await eventually(
      'the IngressDNSRecord status',
      () => host.get<Obj & { status?: { conditions?: unknown[] } }>(IngressDNSRecordType, 'web', ns),
      (o) => (o.status?.conditions?.length ?? 0) > 0,
    );

    // Replica scheduling: the RSP patches the FederatedDeployment and records its plan.
    await host.create(T.fdeploy, {
      apiVersion: `${FED_GROUP}/${FED_VERSION}`,
      kind: 'FederatedDeployment',
      metadata: { name: 'web', namespace: ns },
      spec: {
        template: {
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'c', image: 'nginx' }] },
            },
          },
        },
        placement: { clusterSelector: {} },
      },
    });
    await host.create(ReplicaSchedulingPreferenceType, {
      apiVersion: 'scheduling.kubefed.io/v1alpha1',
      kind: 'ReplicaSchedulingPreference',
      metadata: { name: 'web', namespace: ns },
      spec: { targetKind: 'FederatedDeployment', totalReplicas: 3, clusters: { '*': { weight: 1 } } },
    });
    await eventually(
      'the RSP status',
      () =>
        host.get<Obj & { status?: { totalScheduled?: number } }>(ReplicaSchedulingPreferenceType, 'web', ns),
      (o) => o.status?.totalScheduled === 3,
    );
    await eventually(
      'the scheduled Deployment in cluster1',
      () => getOrUndefined<Obj & { spec?: { replicas?: number } }>(c1, T.deployments, 'web', ns),
      (o) => o?.spec?.replicas === 3,
    );

    assert.deepEqual(forbidden(cm), []);
    // What it was not given, it does not have.
    assert.equal(
      await allowed(CLUSTER_NS, { verb: 'list', resource: 'secrets', namespace: 'default' }),
      false,
    );
    assert.equal(
      await allowed(CLUSTER_NS, {
        verb: 'delete',
        group: FED_GROUP,
        resource: 'federatedconfigmaps',
        namespace: ns,
      }),
      false,
    );
    assert.equal(await allowed(CLUSTER_NS, { verb: 'create', resource: 'configmaps', namespace: ns }), false);
    await cm.process.stop();
  });

  test('Namespaced scope: the same with a Role in the release namespace only', async () => {
    const team = 'team-a';
    // With KubeFed's PropagatedVersions (controllermanager.controller.propagatedVersions), to use their grant.
    const objs = await applyChart(team, [
      ...FAST,
      'global.scope=Namespaced',
      'controllermanager.controller.propagatedVersions=true',
    ]);
    const cm = await startAsChart(team, objs);
    await joinMember('cluster2', team);
    const c2 = fed.cluster('cluster2').client();
    await host.create(T.fcm, fcm('settings', team, 'cluster2'));
    await eventually(
      'the ConfigMap in cluster2',
      () => getOrUndefined<Obj & { data?: Record<string, string> }>(c2, T.configmaps, 'settings', team),
      (o) => o?.data?.['from'] === 'chart',
      90_000,
    );
    // Written through the PropagatedVersion grant (a denial there is only logged, so look at the object).
    await eventually(
      'the PropagatedVersion',
      () =>
        getOrUndefined<Obj & { status?: { clusterVersions?: unknown[] } }>(
          host,
          PropagatedVersionType,
          'configmap-settings',
          team,
        ),
      (v) => (v?.status?.clusterVersions?.length ?? 0) > 0,
    );
    const ns = await host.get<Obj & { status?: { propagationController?: string } }>(
      FederatedTypeConfigType,
      'namespaces',
      team,
    );
    assert.equal(ns.status?.propagationController, 'NotRunning');
    assert.deepEqual(forbidden(cm), []);
    // Nothing outside its namespace.
    const outside: Array<Record<string, string>> = [
      { verb: 'list', group: FED_GROUP, resource: 'federatedconfigmaps', namespace: 'default' },
      { verb: 'list', group: FED_GROUP, resource: 'federatedconfigmaps' },
      { verb: 'list', resource: 'namespaces' },
      { verb: 'create', resource: 'events', namespace: 'default' },
      { verb: 'list', group: 'core.kubefed.io', resource: 'clusterpropagatedversions' },
    ];
    for (const attrs of outside) {
      assert.equal(await allowed(team, attrs), false, JSON.stringify(attrs));
    }
    assert.equal(
      await allowed(team, {
        verb: 'list',
        group: FED_GROUP,
        resource: 'federatedconfigmaps',
        namespace: team,
      }),
      true,
    );
    await cm.process.stop();

    // A scope that differs from the stored one would mean deleting the KubeFedConfig (KubeFed's rule), which
    // the chart does not grant: a one-line fatal error saying what to do, not a retry loop.
    const mismatched = await startKubefedControllerManager({
      kubeconfig: await controllerKubeconfig(team),
      context: 'host',
      namespace: team,
      logFile: join(dir, 'controller-manager-scope-mismatch.log'),
      env: { DEFAULT_KUBEFED_SCOPE: 'Cluster' },
      waitReady: false,
    });
    managers.push(mismatched);
    assert.equal(await mismatched.process.exited, 1);
    assert.match(
      mismatched.process.tail(),
      /^Error: KubeFedConfig team-a\/kubefed has scope Namespaced but DEFAULT_KUBEFED_SCOPE is Cluster, and deleting it to change the scope is forbidden/m,
    );
    assert.equal(
      (await host.get<Obj & { spec: { scope: string } }>(KubeFedConfigType, 'kubefed', team)).spec.scope,
      'Namespaced',
    );
  });

  test('helm install (no webhook call: they come last), upgrade keeping the serving certificate, uninstall', async () => {
    const ns = 'team-helm';
    const kube = ['--kubeconfig', fed.kubeconfigPath, '--kube-context', 'host', '--namespace', ns];
    const install = await helm([
      'install',
      RELEASE,
      CHART,
      ...kube,
      '--create-namespace',
      '--set',
      'global.scope=Namespaced',
    ]);
    assert.equal(install.code, 0, install.stderr);
    assert.match(
      install.stdout,
      /kubefed-ts 0\.1\.0 is installed in namespace team-helm with scope Namespaced/,
    );
    const cfg = await host.get<Obj & { spec: { scope: string } }>(KubeFedConfigType, 'kubefed', ns);
    assert.equal(cfg.spec.scope, 'Namespaced');
    const ftcs = await host.list(FederatedTypeConfigType, { namespace: ns });
    assert.equal(ftcs.items.length, 10);
    const secret = await host.get<Obj & { data: Record<string, string> }>(
      CoreTypes.secrets,
      'kubefed-admission-webhook-serving-cert',
      ns,
    );
    const vwc = {
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      plural: 'validatingwebhookconfigurations',
      namespaced: false,
    };
    const caBundles = async () =>
      (
        await host.get<Obj & { webhooks: WebhookObj[] }>(vwc, `validations.core.kubefed.io-${ns}`)
      ).webhooks.map((w) => w.clientConfig.caBundle);
    // KubeFed's four, Namespaced the PropagationPolicy and OverridePolicy webhooks, and OCM's two work ones.
    assert.deepEqual(await caBundles(), Array(8).fill(secret.data['ca.crt']));

    // An upgrade, rendered against the live release (lookup works with --dry-run=server). Not applied:
    // Helm patches the FTCs and the KubeFedConfig on upgrade, which goes through the (fail-closed)
    // webhooks, and no webhook pod runs here.
    const upgrade = await helm([
      'upgrade',
      RELEASE,
      CHART,
      ...kube,
      '--reuse-values',
      '--set',
      'controllermanager.controller.replicaCount=3',
      '--dry-run=server',
      '--output',
      'json',
    ]);
    assert.equal(upgrade.code, 0, upgrade.stderr);
    const manifest = parseAllDocuments((JSON.parse(upgrade.stdout) as { manifest: string }).manifest)
      .map((d) => d.toJS() as Obj | null)
      .filter((o): o is Obj => o !== null);
    assert.equal(find<DeploymentObj>(manifest, 'Deployment', 'kubefed-controller-manager').spec.replicas, 3);
    const next = find<Obj & { data: Record<string, string> }>(
      manifest,
      'Secret',
      'kubefed-admission-webhook-serving-cert',
    );
    assert.deepEqual(next.data, secret.data, 'the upgrade would replace the serving certificate');
    for (const w of webhooksOf(
      manifest,
      'ValidatingWebhookConfiguration',
      `validations.core.kubefed.io-${ns}`,
    )) {
      assert.equal(w.clientConfig.caBundle, secret.data['ca.crt'], w.name);
    }

    const uninstall = await helm(['uninstall', RELEASE, ...kube, '--wait', '--timeout', '2m']);
    assert.equal(uninstall.code, 0, uninstall.stderr);
    for (const [type, name, namespace] of [
      [vwc, `validations.core.kubefed.io-${ns}`, undefined],
      [KubeFedConfigType, 'kubefed', ns],
      [CoreTypes.secrets, 'kubefed-admission-webhook-serving-cert', ns],
    ] as const) {
      await eventually(
        `${name} deleted`,
        () => getOrUndefined(host, type, name, namespace),
        (o) => o === undefined,
      );
    }
  });
  test("KubeFed's values file through a real helm install; PushReconciler Disabled: nothing propagates, health runs", async () => {
    const ns = 'kubefed-values';
    const kube = ['--kubeconfig', fed.kubeconfigPath, '--kube-context', 'host', '--namespace', ns];
    // Namespaced, so that the release's webhooks (which fail closed, and have no pod here) only see its namespace.
    const set = [
      ...FAST,
      'global.scope=Namespaced',
      'controllermanager.featureGates.PushReconciler=Disabled',
    ];
    const install = await helm([
      'install',
      RELEASE,
      CHART,
      ...kube,
      '--create-namespace',
      '--values',
      KUBEFED_VALUES,
      ...set.flatMap((x) => ['--set', x]),
    ]);
    assert.equal(install.code, 0, install.stderr);
    // Helm's notes say what became of KubeFed's image.
    assert.match(install.stdout, /controllermanager\.controller names KubeFed's image/);
    assert.match(install.stdout, /controllermanager\.webhook names KubeFed's image/);
    // Installed as rendered: the KubeFedConfig (with the gate), the images, KubeFed's webhook replica count.
    const rendered = await render(ns, set, [KUBEFED_VALUES]);
    const cfg = await host.get<Obj & { spec: KubeFedConfigSpec }>(KubeFedConfigType, 'kubefed', ns);
    assert.deepEqual(
      cfg.spec,
      find<Obj & { spec: KubeFedConfigSpec }>(rendered, 'KubeFedConfig', 'kubefed').spec,
    );
    assert.equal(resolveKubeFedConfig(cfg.spec).featureGates.PushReconciler, false);
    for (const [name, replicas] of [
      ['kubefed-controller-manager', 2],
      ['kubefed-admission-webhook', 1],
    ] as const) {
      const d = await host.get<DeploymentObj>(T.deployments, name, ns);
      assert.equal(d.spec.replicas, replicas, name);
      assert.equal(d.spec.template.spec.containers[0]?.image, 'ghcr.io/kubefed-ts/kubefed-ts:0.1.0', name);
    }
    assert.equal((await host.list(FederatedTypeConfigType, { namespace: ns })).items.length, 10);

    // The release's webhook configurations fail closed and no webhook pod runs here: out of the way first.
    for (const [kind, prefix] of [
      ['validatingwebhookconfiguration', 'validations'],
      ['mutatingwebhookconfiguration', 'mutation'],
    ] as const) {
      const r = await kubectl(['delete', kind, `${prefix}.core.kubefed.io-${ns}`]);
      assert.equal(r.code, 0, r.stderr);
    }

    // The controller manager as the Deployment runs it: cluster health works, nothing is propagated.
    let cm = await startAsChart(ns, rendered);
    await joinMember('cluster1', ns);
    const c1 = fed.cluster('cluster1').client();
    await host.create(T.fcm, fcm('settings', ns, 'cluster1'));
    // Witness that the manager keeps working meanwhile (propagation takes about a second when enabled,
    // below): the health controller probes cluster1 three more times (a 1 s period).
    const probes = async () =>
      value(
        parsePrometheusText(await (await fetch(`${cm.metricsUrl}/metrics`)).text()),
        'cluster_health_status_duration_seconds_count',
      ) ?? 0;
    const before = await probes();
    await eventually('three more health probes', probes, (n) => n >= before + 3, 30_000);
    assert.equal(await getOrUndefined(c1, T.configmaps, 'settings', ns), undefined);
    // No FederatedTypeConfig controller at all: no finalizer, no status on the FTCs or the federated object.
    const ftc = await host.get<Obj & { status?: unknown }>(FederatedTypeConfigType, 'configmaps', ns);
    assert.equal(ftc.metadata.finalizers, undefined);
    assert.equal(ftc.status, undefined);
    const fcmObj = await host.get<Obj & { status?: unknown }>(T.fcm, 'settings', ns);
    assert.equal(fcmObj.metadata.finalizers, undefined);
    assert.equal(fcmObj.status, undefined);
    assert.match(
      readFileSync(cm.logFile, 'utf8'),
      /PushReconciler is Disabled: no FederatedTypeConfig or sync controller runs/,
    );
    assert.deepEqual(forbidden(cm), []);
    await cm.process.stop();

    // The gate was the only thing missing: Enabled, the same manager propagates.
    await host.patch(
      KubeFedConfigType,
      'kubefed',
      {
        spec: {
          featureGates: (cfg.spec.featureGates ?? []).map((g) =>
            g.name === 'PushReconciler' ? { ...g, configuration: 'Enabled' } : g,
          ),
        },
      },
      { namespace: ns, patchType: 'merge' },
    );
    cm = await startAsChart(ns, rendered);
    await eventually(
      'the ConfigMap in cluster1 once PushReconciler is Enabled',
      () => getOrUndefined<Obj & { data?: Record<string, string> }>(c1, T.configmaps, 'settings', ns),
      (o) => o?.data?.['from'] === 'chart',
      90_000,
    );
    await cm.process.stop();
    const uninstall = await helm(['uninstall', RELEASE, ...kube]);
    assert.equal(uninstall.code, 0, uninstall.stderr);
  });

  test("KubeFed's RBAC recipe for a non-default federated group, with patch added, is all the chart needs", async () => {
    const group = 'kubefed.example.com';
    const ns = 'chart-test';
    const list = { verb: 'list', group, resource: 'federatedlimitranges' };
    assert.equal(await allowed(CLUSTER_NS, list), false, 'the chart grants types.kubefed.io only');
    // docs/install.md's recipe: KubeFed's user guide (`kubectl patch clusterrole kubefed-role` adding the
    // group at /rules/1) with `patch` among the verbs, which kubefed-ts uses for finalizers.
    const rule = { apiGroups: [group], resources: ['*'], verbs: ['get', 'watch', 'list', 'update', 'patch'] };
    const patched = await kubectl([
      'patch',
      'clusterrole',
      'kubefed-role',
      '--type=json',
      '-p',
      JSON.stringify([{ op: 'add', path: '/rules/1', value: rule }]),
    ]);
    assert.equal(patched.code, 0, patched.stderr);
    assert.equal(await allowed(CLUSTER_NS, list), true);
    const enable = await kubefedctl([
      'enable',
      'limitranges',
      '--federated-group',
      group,
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
      '--kubefed-namespace',
      CLUSTER_NS,
    ]);
    assert.equal(enable.code, 0, enable.stderr);
    const cm = await startAsChart(CLUSTER_NS, await render(CLUSTER_NS, FAST));
    const flr = {
      group,
      version: FED_VERSION,
      plural: 'federatedlimitranges',
      namespaced: true,
      kind: 'FederatedLimitRange',
    };
    await eventually(
      'the FederatedLimitRange CRD served',
      () =>
        host.list(flr, { namespace: ns }).then(
          () => true,
          () => false,
        ),
      (ok) => ok,
    );
    await host.create(flr, {
      apiVersion: `${group}/${FED_VERSION}`,
      kind: 'FederatedLimitRange',
      metadata: { name: 'limits', namespace: ns },
      spec: {
        template: { spec: { limits: [{ type: 'Container', default: { cpu: '100m' } }] } },
        placement: { clusters: [{ name: 'cluster1' }] },
      },
    });
    const limitRanges = {
      group: '',
      version: 'v1',
      plural: 'limitranges',
      namespaced: true,
      kind: 'LimitRange',
    };
    await eventually(
      'the LimitRange in cluster1',
      () => getOrUndefined(fed.cluster('cluster1').client(), limitRanges, 'limits', ns),
      (o) => o !== undefined,
      90_000,
    );
    await eventually(
      'the FederatedLimitRange status',
      () => host.get<Obj & { status?: { clusters?: unknown[] } }>(flr, 'limits', ns),
      (o) => (o.status?.clusters?.length ?? 0) > 0,
    );
    assert.deepEqual(forbidden(cm), []);
    await cm.process.stop();
  });

  test("federationApiServer: its objects pass a server-side dry run; the install Job's steps apply its manifests", async () => {
    const ns = 'kubefed-fedapi';
    await ensureNamespace(ns);
    const objs = await render(ns, ['federationApiServer.enabled=true']);
    const file = join(dir, 'fedapi.yaml');
    writeFileSync(file, objs.map((o) => `---\n${JSON.stringify(o)}\n`).join(''));
    // Forced: earlier tests patched the chart's cluster-wide roles (a dry run changes nothing anyway).
    const dry = await kubectl([
      'apply',
      '--server-side',
      '--force-conflicts',
      '--dry-run=server',
      '--field-manager=chart-test',
      '-f',
      file,
    ]);
    assert.equal(dry.code, 0, `kubectl apply --dry-run=server: ${dry.stderr}`);
    assert.equal(
      (dry.stdout.match(/serverside-applied \(server dry run\)/g) ?? []).length,
      objs.length,
      dry.stdout,
    );
    for (const name of [
      'statefulset.apps/kubefed-federation-apiserver-etcd',
      'deployment.apps/kubefed-federation-apiserver',
      'deployment.apps/kubefed-federation-apiserver-controller-manager',
      'job.batch/kubefed-federation-apiserver-install',
    ])
      assert.match(dry.stdout, new RegExp(`^${name} serverside-applied`, 'm'));

    // The Job's kubectl commands, verbatim but for the kubeconfig and the mount paths, with this API server
    // as the federation API server (the webhooks only dry-run: no webhook pod answers here).
    const manifests = join(dir, 'fedapi-manifests');
    for (const [volume, configMap] of [
      ['crds', 'kubefed-federation-apiserver-crds'],
      ['objects', 'kubefed-federation-apiserver-objects'],
      ['webhooks', 'kubefed-federation-apiserver-webhooks'],
    ] as const) {
      mkdirSync(join(manifests, volume), { recursive: true });
      const data = find<Obj & { data: Record<string, string> }>(objs, 'ConfigMap', configMap).data;
      for (const [key, content] of Object.entries(data)) writeFileSync(join(manifests, volume, key), content);
    }
    const job = find<Obj & { spec: { template: { spec: PodSpec & { initContainers: Container[] } } } }>(
      objs,
      'Job',
      'kubefed-federation-apiserver-install',
    );
    for (const step of [...job.spec.template.spec.initContainers, ...job.spec.template.spec.containers]) {
      const args = step.command.slice(2).map((a) => a.replace(/^\/manifests\//, `${manifests}/`));
      if (step.name === 'apply-webhook-configurations') args.push('--dry-run=server');
      const r = await kubectl(args);
      assert.equal(r.code, 0, `${step.name}: ${r.stderr}`);
      if (step.name === 'apply-webhook-configurations')
        assert.equal((r.stdout.match(/serverside-applied \(server dry run\)/g) ?? []).length, 2, r.stdout);
    }
    const cfg = await host.get<Obj & { spec: KubeFedConfigSpec }>(KubeFedConfigType, 'kubefed', ns);
    assert.equal(cfg.spec.scope, 'Cluster');
    const ftcs = await host.list(FederatedTypeConfigType, { namespace: ns });
    assert.deepEqual(
      ftcs.items.map((f) => f.metadata.name).sort(),
      defaultFederatedTypes(ns)
        .ftcs.map((f) => f.metadata.name)
        .sort(),
    );
  });
});
