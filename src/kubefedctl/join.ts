import {
  API_VERSION,
  FederatedTypeConfigType,
  KUBEFED_CLUSTER_KIND,
  type KubeFedCluster,
  type KubeFedClusterSpec,
  KubeFedClusterType,
  KubeFedConfigType,
} from '../api/core/v1beta1/index.ts';
import { mcsMemberCrds } from '../api/crds.ts';
import { KUBEFED_CONFIG_NAME } from '../config/index.ts';
import {
  ApiError,
  CoreTypes,
  errorMessage,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import { type GlobalOptions, hostError, KubeconfigContext } from './context.ts';
import type { CrdLike } from './crd-takeover.ts';
import { CommandError } from './errors.ts';
import { type McsCrdStep, mcsCrdsSkipReason, planMcsCrds, restoredMcsCrd } from './mcs-crds.ts';
import {
  clusterPolicyRules,
  healthCheckPolicyRules,
  healthCheckRoleName,
  namespacedPolicyRules,
  roleName,
  serviceAccountName,
} from './names.ts';
import {
  MEMBER_RBAC_ANNOTATION,
  MEMBER_SERVICE_ACCOUNT_ANNOTATION,
  SCOPED_RBAC_MODE,
  type ScopedRbacRules,
  scopedRbacRules,
} from './scoped-rbac.ts';

export interface JoinOptions extends GlobalOptions {
  clusterName: string;
  clusterContext?: string;
  hostClusterName?: string;
  secretName?: string;
  errorOnExisting: boolean;
  /**
   * Grant the member's service account only the enabled federated types (read from the host's FTCs) instead
   * of KubeFed's `*` on everything; see scoped-rbac.ts and docs/kubefedctl.md.
   */
  scopedRbac?: boolean;
  /** KubeFedCluster spec.provider (a kubefed-ts addition), matched by Karmada-style policies' fieldSelector. */
  provider?: string;
  /**
   * Do not install the multi-cluster services CRDs (ServiceExport, ServiceImport, ClusterProperty) into the
   * member; see mcs-crds.ts and docs/mcs.md.
   */
  skipMcsCrds?: boolean;
  /** How long to wait for the member's token controller to fill the token Secret. */
  tokenTimeoutMs?: number;
  out?: (line: string) => void;
  warn?: (line: string) => void;
}

export interface JoinResult {
  kubefedCluster: KubeObject;
  /** Every object join writes, member side first; with --dry-run nothing was written. */
  objects: Array<{ cluster: 'member' | 'host'; object: KubeObject }>;
  /**
   * What join does with each multi-cluster services CRD of the member (created and updated ones are also in
   * `objects`); empty with --skip-mcs-crds, or when `mcsCrdsSkipped` says why.
   */
  mcsCrds: McsCrdStep[];
  /** Why join installs no MCS CRDs into this member although not told to skip them. */
  mcsCrdsSkipped?: string;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Names the host cluster inside the member's object names; they may not contain "/" or ":". */
export function resolveHostClusterName(
  opts: { hostClusterName?: string; hostClusterContext?: string },
  hostContext: string,
): string {
  if (opts.hostClusterName !== undefined && opts.hostClusterName !== '') {
    if (/[/:]/.test(opts.hostClusterName)) {
      throw new CommandError(`--host-cluster-name "${opts.hostClusterName}" may not contain "/" or ":"`);
    }
    return opts.hostClusterName;
  }
  if (/[/:]/.test(hostContext)) {
    throw new CommandError(
      `host cluster context "${hostContext}" contains "/" or ":", which cannot be used in object names; set --host-cluster-name`,
    );
  }
  return hostContext;
}

/**
 * kubefedctl join (KubeFed pkg/kubefedctl/join.go, JoinCluster): a service account with a token Secret and
 * RBAC in the member, the token copied into a Secret in the host, and a KubeFedCluster pointing at both.
 *
 * Unlike KubeFed, every check (host control plane present, both clusters reachable, existing objects under
 * --error-on-existing) runs before the first write, and a failure after that rolls back what this run
 * created, so a failed join leaves nothing half-created.
 *
 * kubefed-ts also installs the multi-cluster services CRDs into the member (unless --skip-mcs-crds), leaving
 * any it did not install alone (mcs-crds.ts). Not with --scoped-rbac (such a member's credentials reach only
 * the enabled federated types) nor in a namespaced control plane: the MCS controller serves neither.
 */
export async function join(opts: JoinOptions): Promise<JoinResult> {
  const out = opts.out ?? (() => {});
  const warn = opts.warn ?? out;
  const C = opts.clusterName;
  if (!DNS1123_SUBDOMAIN.test(C) || C.length > 253) {
    throw new CommandError(`invalid cluster name "${C}": must be a lowercase RFC 1123 subdomain`);
  }
  const ns = opts.kubefedNamespace;
  const ctx = new KubeconfigContext(opts.kubeconfig);
  try {
    const hostContext = ctx.hostContextName(opts.hostClusterContext);
    const H = resolveHostClusterName(opts, hostContext);
    const clusterContext = opts.clusterContext || C;
    const memberConfig = ctx.restConfig(clusterContext);
    const host = ctx.client(hostContext, 'host');
    const member = ctx.client(clusterContext, C, memberConfig);
    const sa = serviceAccountName(C, H);
    if (!DNS1123_SUBDOMAIN.test(sa)) {
      throw new CommandError(
        `service account name "${sa}" (cluster-host) is not a valid name; set --host-cluster-name`,
      );
    }

    // --- Preflight: read-only ---------------------------------------------------------------------------
    const scope = await readScope(host, ns, hostContext);
    const existingCluster = await getOrUndefined<KubeObject & KubeFedCluster>(
      host,
      KubeFedClusterType,
      C,
      ns,
      `host cluster (context "${hostContext}")`,
    );
    if (existingCluster && opts.errorOnExisting)
      throw new CommandError(`federated cluster ${C} already exists in host cluster`);
    if (opts.secretName) {
      const s = await getOrUndefined(host, CoreTypes.secrets, opts.secretName, ns, 'host cluster');
      if (s && opts.errorOnExisting)
        throw new CommandError(`host cluster secret ${opts.secretName} already exists`);
    }
    const memberWhat = `cluster "${C}" (context "${clusterContext}", ${memberConfig.server})`;
    const memberNs = await getOrUndefined(member, CoreTypes.namespaces, ns, undefined, memberWhat);
    const scoped = opts.scopedRbac ? await readScopedRules(host, ns, scope, hostContext) : undefined;
    const memberObjects = memberPlan(ns, sa, scope, scoped);
    const mcsCrdsSkipped = mcsCrdsSkipReason({ scopedRbac: scoped !== undefined, scope });
    const mcsCrds = opts.skipMcsCrds || mcsCrdsSkipped ? [] : await readMcsCrdSteps(member, memberWhat);
    if (opts.errorOnExisting) {
      for (const { type, object } of memberObjects) {
        if (type === CoreTypes.namespaces) continue;
        const found = await getOrUndefined(
          member,
          type,
          object.metadata.name ?? '',
          object.metadata.namespace,
          memberWhat,
        );
        if (found) {
          throw new CommandError(
            type === CoreTypes.serviceAccounts
              ? `service account: ${sa} already exists in joining cluster: ${C}`
              : `${type.kind} ${object.metadata.name} for service account ${sa} in joining cluster ${C} already exists`,
          );
        }
      }
    }
    const spec: KubeFedClusterSpec = {
      apiEndpoint: memberConfig.server,
      ...(memberConfig.caData ? { caBundle: memberConfig.caData.toString('base64') } : {}),
      secretRef: { name: opts.secretName ?? '' },
      ...(memberConfig.insecureSkipTLSVerify ? { disabledTLSValidations: ['*' as const] } : {}),
      ...(memberConfig.proxyUrl ? { proxyURL: memberConfig.proxyUrl } : {}),
      ...(opts.provider ? { provider: opts.provider } : {}),
    };
    const hostSecret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: opts.secretName
        ? { name: opts.secretName, namespace: ns }
        : { generateName: `${C}-`, namespace: ns },
      data: { token: '' },
    };
    // The mode is recorded so that enable/disable/sync-rbac know which members to keep up to date.
    const annotations: Record<string, string | null> = scoped
      ? { [MEMBER_RBAC_ANNOTATION]: SCOPED_RBAC_MODE, [MEMBER_SERVICE_ACCOUNT_ANNOTATION]: sa }
      : { [MEMBER_RBAC_ANNOTATION]: null, [MEMBER_SERVICE_ACCOUNT_ANNOTATION]: null };
    const kfc: KubeObject = {
      apiVersion: API_VERSION,
      kind: KUBEFED_CLUSTER_KIND,
      metadata: {
        name: C,
        namespace: ns,
        ...(scoped ? { annotations: annotations as Record<string, string> } : {}),
      },
      spec,
    };
    const objects: JoinResult['objects'] = [
      ...memberObjects
        .filter((o) => o.type !== CoreTypes.namespaces || !memberNs)
        .map((o) => ({ cluster: 'member' as const, object: o.object })),
      ...mcsCrds.flatMap((step) =>
        step.action === 'keep' ? [] : [{ cluster: 'member' as const, object: step.object }],
      ),
      { cluster: 'host', object: hostSecret },
      { cluster: 'host', object: kfc },
    ];
    const result = { kubefedCluster: kfc, objects, mcsCrds, ...(mcsCrdsSkipped ? { mcsCrdsSkipped } : {}) };
    if (opts.dryRun) return result;

    // --- Writes, with an undo journal -----------------------------------------------------------------
    const undo: Array<() => Promise<unknown>> = [];
    try {
      for (const { type, object } of memberObjects) {
        if (type === CoreTypes.namespaces && memberNs) continue;
        await ensure(member, type, object, opts.errorOnExisting, undo, memberWhat);
      }
      out(`Created service account ${ns}/${sa} and its RBAC in cluster ${C}`);
      await writeMcsCrds(member, mcsCrds, undo, memberWhat, { out, warn, cluster: C });
      if (mcsCrdsSkipped && !opts.skipMcsCrds)
        out(`Not installing the multi-cluster services CRDs in cluster ${C}: ${mcsCrdsSkipped}`);
      const memberSecret = await waitForToken(member, sa, ns, {
        timeoutMs: opts.tokenTimeoutMs ?? 30_000,
        account: `service account ${ns}/${sa} in cluster ${C}`,
        pollMs: 1000,
        secret: memberObjects.find((o) => o.type === CoreTypes.secrets)?.object,
      });
      const token = memberSecret.data?.token ?? '';
      if (!spec.caBundle && memberSecret.data?.['ca.crt']) spec.caBundle = memberSecret.data['ca.crt'];

      hostSecret.data = { token };
      const secretName = await ensureHostSecret(host, hostSecret, undo);
      spec.secretRef = { name: secretName };
      if (existingCluster) {
        const had = existingCluster.metadata.annotations ?? {};
        const changed = Object.entries(annotations).filter(([k, v]) => (had[k] ?? null) !== v);
        const metadata = changed.length > 0 ? { metadata: { annotations: Object.fromEntries(changed) } } : {};
        await host.patch(KubeFedClusterType, C, { ...metadata, spec }, { namespace: ns, patchType: 'merge' });
        kfc.metadata = existingCluster.metadata;
      } else {
        const created = await host.create(KubeFedClusterType, kfc);
        kfc.metadata = created.metadata;
      }
      out(`Created KubeFedCluster ${ns}/${C} in the host cluster`);
      return result;
    } catch (e) {
      for (const step of undo.reverse()) await step().catch(() => undefined);
      if (e instanceof CommandError) throw e;
      throw new CommandError(`join of cluster ${C} failed (changes rolled back): ${errorMessage(e)}`);
    }
  } finally {
    await ctx.close();
  }
}

export async function readScope(
  host: KubeClient,
  ns: string,
  hostContext: string,
): Promise<'Cluster' | 'Namespaced'> {
  try {
    const cfg = await host.get<KubeObject & { spec?: { scope?: 'Cluster' | 'Namespaced' } }>(
      KubeFedConfigType,
      KUBEFED_CONFIG_NAME,
      ns,
    );
    return cfg.spec?.scope ?? 'Cluster';
  } catch (e) {
    if (isNotFound(e)) {
      throw new CommandError(
        `A KubeFedConfig named "${KUBEFED_CONFIG_NAME}" was not found in namespace "${ns}". Is a KubeFed control plane running in this namespace?`,
      );
    }
    throw hostError(e, hostContext);
  }
}

async function getOrUndefined<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType,
  name: string,
  namespace: string | undefined,
  what: string,
): Promise<T | undefined> {
  try {
    return await client.get<T>(type, name, namespace);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    if (e instanceof ApiError) throw new CommandError(`${what}: ${e.message}`);
    throw new CommandError(`cannot reach ${what}: ${errorMessage(e)}`);
  }
}

/** Reads the member's MCS CRDs (read-only, in the preflight) and decides what to do with each. */
async function readMcsCrdSteps(member: KubeClient, memberWhat: string): Promise<McsCrdStep[]> {
  const existing = new Map<string, CrdLike>();
  for (const { metadata } of mcsMemberCrds()) {
    const found = await getOrUndefined(member, CoreTypes.crds, metadata.name, undefined, memberWhat);
    if (found) existing.set(metadata.name, found as unknown as CrdLike);
  }
  return planMcsCrds(existing);
}

/**
 * Creates or updates the member's MCS CRDs as planned; both are undone with the rest of the run (a created one
 * deleted, an updated one put back as it was). One that appeared since the preflight (another installer) is
 * left as it is.
 */
export async function writeMcsCrds(
  member: KubeClient,
  steps: readonly McsCrdStep[],
  undo: Array<() => Promise<unknown>>,
  what: string,
  log: { out: (line: string) => void; warn: (line: string) => void; cluster: string },
): Promise<void> {
  for (const step of steps) {
    const where = `CRD ${step.name} in cluster ${log.cluster}`;
    if (step.action === 'keep') {
      if (step.warning) log.warn(`${where} left as it is (${step.reason}): ${step.warning}`);
      continue;
    }
    if (step.action === 'create') {
      if ((await createOrFind(member, CoreTypes.crds, step.object, false, undo, what)) === 'created')
        log.out(`Installed ${where}`);
      continue;
    }
    try {
      await member.update(CoreTypes.crds, step.object);
    } catch (e) {
      throw e instanceof ApiError
        ? new CommandError(`${what}: updating CustomResourceDefinition ${step.name}: ${e.message}`)
        : e;
    }
    const previous = step.previous as unknown as CrdLike;
    undo.push(async () => {
      const current = (await member.get(CoreTypes.crds, step.name)) as unknown as CrdLike;
      await member.update(CoreTypes.crds, restoredMcsCrd(current, previous) as unknown as KubeObject);
    });
    log.out(`Updated ${where} (${step.changes.join(', ')})`);
  }
}

/** The rules of a scoped join: from the FTCs in the host's KubeFed namespace. */
export async function readScopedRules(
  host: KubeClient,
  ns: string,
  scope: 'Cluster' | 'Namespaced',
  hostContext: string,
): Promise<ScopedRbacRules> {
  try {
    const ftcs = await host.listAll(FederatedTypeConfigType, { namespace: ns });
    return scopedRbacRules(ftcs.items, scope);
  } catch (e) {
    throw hostError(e, hostContext);
  }
}

/**
 * The member objects of a join, in creation order (KubeFed's: join.go, createAuthorizedServiceAccount and
 * what it calls). With `scoped` the roles carry those rules instead of KubeFed's `*` (same object names, so
 * unjoin is the same in both modes).
 */
export function memberPlan(
  ns: string,
  sa: string,
  scope: 'Cluster' | 'Namespaced',
  scoped?: ScopedRbacRules,
): Array<{ type: ResourceType; object: KubeObject }> {
  const subjects = [{ kind: 'ServiceAccount', name: sa, namespace: ns }];
  const plan: Array<{ type: ResourceType; object: KubeObject }> = [
    { type: CoreTypes.namespaces, object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } },
    {
      type: CoreTypes.serviceAccounts,
      object: {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: {
          name: sa,
          namespace: ns,
          annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' },
        },
        automountServiceAccountToken: false,
      },
    },
    {
      type: CoreTypes.secrets,
      object: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: sa, namespace: ns, annotations: { 'kubernetes.io/service-account.name': sa } },
        type: 'kubernetes.io/service-account-token',
      },
    },
  ];
  const rbac = 'rbac.authorization.k8s.io/v1';
  const role = roleName(sa);
  if (scope === 'Namespaced') {
    const hc = healthCheckRoleName(sa, ns);
    plan.push(
      {
        type: CoreTypes.roles,
        object: {
          apiVersion: rbac,
          kind: 'Role',
          metadata: { name: role, namespace: ns },
          rules: scoped?.rules ?? namespacedPolicyRules,
        },
      },
      {
        type: CoreTypes.roleBindings,
        object: {
          apiVersion: rbac,
          kind: 'RoleBinding',
          metadata: { name: role, namespace: ns },
          subjects,
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role },
        },
      },
      {
        type: CoreTypes.clusterRoles,
        object: {
          apiVersion: rbac,
          kind: 'ClusterRole',
          metadata: { name: hc },
          rules: scoped?.healthCheckRules ?? healthCheckPolicyRules,
        },
      },
      {
        type: CoreTypes.clusterRoleBindings,
        object: {
          apiVersion: rbac,
          kind: 'ClusterRoleBinding',
          metadata: { name: hc },
          subjects,
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: hc },
        },
      },
    );
  } else {
    plan.push(
      {
        type: CoreTypes.clusterRoles,
        object: {
          apiVersion: rbac,
          kind: 'ClusterRole',
          metadata: { name: role },
          rules: scoped?.rules ?? clusterPolicyRules,
        },
      },
      {
        type: CoreTypes.clusterRoleBindings,
        object: {
          apiVersion: rbac,
          kind: 'ClusterRoleBinding',
          metadata: { name: role },
          subjects,
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        },
      },
    );
  }
  return plan;
}

/**
 * Creates an object and records its undo; an existing one is an error with --error-on-existing, else 'exists'
 * for the caller to bring in line. Any other failure is one readable CommandError line.
 */
export async function createOrFind(
  client: KubeClient,
  type: ResourceType,
  object: KubeObject,
  errorOnExisting: boolean,
  undo: Array<() => Promise<unknown>>,
  what: string,
): Promise<'created' | 'exists'> {
  const name = object.metadata.name ?? '';
  const namespace = object.metadata.namespace;
  try {
    await client.create(type, object);
    undo.push(() => client.delete(type, name, { namespace }));
    return 'created';
  } catch (e) {
    if (!isAlreadyExists(e))
      throw e instanceof ApiError
        ? new CommandError(`${what}: creating ${type.kind} ${name}: ${e.message}`)
        : e;
    if (errorOnExisting) throw new CommandError(`${type.kind} ${name} already exists in ${what}`);
    return 'exists';
  }
}

/**
 * Creates an object, or (without --error-on-existing) brings an existing one in line as KubeFed does:
 * rules and subjects are updated; a binding whose roleRef differs is deleted and recreated.
 */
async function ensure(
  client: KubeClient,
  type: ResourceType,
  object: KubeObject,
  errorOnExisting: boolean,
  undo: Array<() => Promise<unknown>>,
  what: string,
): Promise<void> {
  const name = object.metadata.name ?? '';
  const namespace = object.metadata.namespace;
  if ((await createOrFind(client, type, object, errorOnExisting, undo, what)) === 'created') return;
  if (type === CoreTypes.namespaces || type === CoreTypes.serviceAccounts || type === CoreTypes.secrets)
    return;
  const existing = await client.get(type, name, namespace);
  if ('roleRef' in object && JSON.stringify(existing.roleRef) !== JSON.stringify(object.roleRef)) {
    await client.delete(type, name, { namespace });
    await client.create(type, object);
    return;
  }
  const updated: KubeObject = { ...existing };
  if ('rules' in object) updated.rules = object.rules;
  if ('subjects' in object) updated.subjects = object.subjects;
  await client.update(type, updated);
}

/** How long a token Secret may stay without a token before the wait touches it, so the token controller looks again. */
const TOKEN_NUDGE_MS = 10_000;
/** The annotation the touch sets (its value: when) on the token Secret join waits for. */
export const TOKEN_REQUESTED_ANNOTATION = 'kubefed-ts.io/token-requested';

/**
 * Waits until the token controller has filled a service-account token Secret; `account` names the account
 * and its cluster for the timeout's one line ("service account ns/name in cluster C"). With `secret` (the
 * Secret join writes), two ways a busy cluster's token controller (kube-controller-manager's
 * pkg/controller/serviceaccount/tokens_controller.go) leaves it empty are undone: syncSecret deletes a token
 * Secret whose account it cannot find, so a Secret gone is created again; and a sync that keeps failing is
 * dropped after maxRetries, so a Secret still without a token after a while is touched (an annotation), which
 * queues it again.
 */
export async function waitForToken(
  client: KubeClient,
  name: string,
  ns: string,
  opts: { timeoutMs: number; account: string; pollMs: number; secret?: KubeObject },
): Promise<KubeObject & { data?: Record<string, string> }> {
  const deadline = Date.now() + opts.timeoutMs;
  let touchedAt = Date.now();
  for (;;) {
    try {
      const s = await client.get<KubeObject & { data?: Record<string, string> }>(CoreTypes.secrets, name, ns);
      if (s.data?.token) return s;
      if (opts.secret && Date.now() - touchedAt >= TOKEN_NUDGE_MS) {
        touchedAt = Date.now();
        await client.patch(
          CoreTypes.secrets,
          name,
          { metadata: { annotations: { [TOKEN_REQUESTED_ANNOTATION]: new Date().toISOString() } } },
          { namespace: ns },
        );
      }
    } catch (e) {
      if (!isNotFound(e)) throw e;
      if (opts.secret) {
        try {
          await client.create(CoreTypes.secrets, opts.secret);
        } catch (c) {
          if (!isAlreadyExists(c)) throw c;
        }
      }
    }
    if (Date.now() > deadline) {
      throw new CommandError(
        `timed out after ${Math.round(opts.timeoutMs / 1000)}s waiting for the token of ${opts.account}; is its token controller (kube-controller-manager) running?`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.pollMs));
  }
}

/** Creates the host Secret, or with an explicit name updates it only when the token changed (KubeFed). */
async function ensureHostSecret(
  host: KubeClient,
  secret: KubeObject,
  undo: Array<() => Promise<unknown>>,
): Promise<string> {
  const ns = secret.metadata.namespace ?? '';
  const name = secret.metadata.name;
  if (name) {
    try {
      const existing = await host.get<KubeObject & { data?: Record<string, string> }>(
        CoreTypes.secrets,
        name,
        ns,
      );
      if (existing.data?.token !== (secret.data as Record<string, string>).token) {
        await host.update(CoreTypes.secrets, { ...existing, data: secret.data });
      }
      return name;
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  const created = await host.create(CoreTypes.secrets, secret);
  const createdName = created.metadata.name ?? '';
  undo.push(() => host.delete(CoreTypes.secrets, createdName, { namespace: ns }));
  return createdName;
}
