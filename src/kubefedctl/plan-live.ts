// `kubefedctl plan --live`: the PlanSource read from the federation, as the RSP controller sees it —
// ready clusters (optionally narrowed by the object's cluster selector), replicas running in each member,
// and capacity learned from pods that have been unschedulable for more than 60 s.

import {
  type FederatedTypeConfig,
  FederatedTypeConfigType,
  isClusterReady,
  type KubeFedCluster,
  KubeFedClusterType,
  resourceTypeOf,
} from '../api/core/v1beta1/index.ts';
import { SCHEDULING_TARGETS } from '../controllers/scheduling/targets.ts';
import {
  CoreTypes,
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../kube/client/index.ts';
import { ClusterClients } from '../members/cluster-clients.ts';
import { type Placement, selectedClusterNames } from '../propagation/placement.ts';
import { analysePods } from '../scheduling/pod-analysis.ts';
import { bindingName } from '../sources/policy/binding-name.ts';
import type { BindingObject } from '../sources/policy/binding-spec.ts';
import { BindingTypes } from '../sources/policy/bindings.ts';
import { estimateAvailableReplicas } from '../sources/policy/capacity.ts';
import { policyClusterOf } from '../sources/policy/clusters.ts';
import { replicaRequirementsOf } from '../sources/policy/replica-requirements.ts';
import { hostError, memberClient } from './context.ts';
import { CommandError } from './errors.ts';
import type { PlanSource } from './plan.ts';
import { bindingPlanState, type PolicyPlanFiles, type PolicyPlanState } from './plan-policy.ts';

type Cluster = KubeObject & KubeFedCluster;
type Fed = KubeObject & { spec?: { placement?: Placement } };

export async function liveSource(opts: {
  host: KubeClient;
  kubefedNamespace: string;
  rsp: KubeObject & { spec?: { targetKind?: string; intersectWithClusterSelector?: boolean } };
  warn: (line: string) => void;
}): Promise<PlanSource> {
  const { host, kubefedNamespace, rsp, warn } = opts;
  const targetKind = rsp.spec?.targetKind ?? '';
  const ftcName = SCHEDULING_TARGETS[targetKind];
  if (!ftcName) throw new CommandError(`--live: unsupported targetKind "${targetKind}"`);
  const namespace = rsp.metadata.namespace;
  if (!namespace) throw new CommandError('--live: the RSP needs metadata.namespace');
  const name = rsp.metadata.name ?? '';
  let ftc: KubeObject & FederatedTypeConfig;
  try {
    ftc = await host.get(FederatedTypeConfigType, ftcName, kubefedNamespace);
  } catch (e) {
    if (isNotFound(e))
      throw new CommandError(`--live: FederatedTypeConfig "${kubefedNamespace}/${ftcName}" does not exist`);
    throw e;
  }
  const clusters = (await host.list<Cluster>(KubeFedClusterType, { namespace: kubefedNamespace })).items;
  let candidates = clusters
    .filter((c) => isClusterReady(c.status?.conditions))
    .map((c) => c.metadata.name ?? '');
  if (rsp.spec?.intersectWithClusterSelector) {
    const info = clusters.map((c) => ({ name: c.metadata.name ?? '', labels: c.metadata.labels }));
    const selectorOnly = (p: Placement | undefined) =>
      selectedClusterNames({ clusterSelector: p?.clusterSelector }, info);
    const fed = await host.get<Fed>(resourceTypeOf(ftc.spec.federatedType), name, namespace);
    let selected = selectorOnly(fed.spec?.placement);
    try {
      const fedNs = await host.get<Fed>(
        {
          group: ftc.spec.federatedType.group ?? '',
          version: ftc.spec.federatedType.version,
          plural: 'federatednamespaces',
          namespaced: true,
        },
        namespace,
        namespace,
      );
      const ns = selectorOnly(fedNs.spec?.placement);
      selected = new Set([...selected].filter((c) => ns.has(c)));
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    candidates = candidates.filter((c) => selected.has(c));
  }
  candidates.sort();

  const target = resourceTypeOf(ftc.spec.targetType);
  const clients = new ClusterClients({ timeoutMs: 10_000, userAgent: 'kubefedctl' });
  const current: Record<string, number> = {};
  const capacity: Record<string, number> = {};
  try {
    await Promise.all(
      candidates.map(async (cname) => {
        const cluster = clusters.find((c) => c.metadata.name === cname) as Cluster;
        try {
          const client = await memberClient(host, clients, cluster, kubefedNamespace);
          let member: KubeObject & {
            spec?: { replicas?: number; selector?: { matchLabels?: Record<string, string> } };
            status?: { readyReplicas?: number };
          };
          try {
            member = await client.get(target, name, namespace);
          } catch (e) {
            if (isNotFound(e)) return;
            throw e;
          }
          const replicas = member.spec?.replicas ?? 0;
          const ready = member.status?.readyReplicas ?? 0;
          if (replicas === ready) {
            current[cname] = ready;
            return;
          }
          const labels = member.spec?.selector?.matchLabels ?? {};
          const labelSelector = Object.entries(labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(',');
          const pods = (await client.list(CoreTypes.pods, { namespace, labelSelector })).items;
          const a = analysePods(pods, new Date());
          current[cname] = a.runningAndReady;
          if (a.unschedulable > 0) capacity[cname] = Math.max(0, replicas - a.unschedulable);
        } catch (e) {
          warn(`cluster "${cname}": ${errorMessage(e)}; planning without its current replicas`);
        }
      }),
    );
  } finally {
    await clients.closeAll();
  }
  return { clusters: candidates, current, capacity };
}

/**
 * `plan --policy --live`: the clusters as the policy source sees them (every KubeFedCluster, with its
 * labels, taints and readiness), the template's binding if there is one (previous clusters, the observed
 * affinity term, clusters being evicted, its uid), and each Ready member's room for one more replica of
 * the template, estimated from its nodes and pods as the scheduler's capacity estimate does.
 */
export async function livePolicyState(opts: {
  host: KubeClient;
  kubefedNamespace: string;
  files: PolicyPlanFiles;
  warn: (line: string) => void;
}): Promise<PolicyPlanState> {
  const { host, kubefedNamespace, files, warn } = opts;
  const { template } = files;
  let clusters: Cluster[];
  let binding: BindingObject | undefined;
  try {
    clusters = (await host.listAll<Cluster>(KubeFedClusterType, { namespace: kubefedNamespace })).items;
    const namespaced = Boolean(template.metadata.namespace);
    const type = namespaced ? BindingTypes.ResourceBinding : BindingTypes.ClusterResourceBinding;
    binding = await host
      .get<BindingObject>(
        type,
        bindingName(template.kind ?? '', template.metadata.name ?? ''),
        template.metadata.namespace,
      )
      .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
  } catch (e) {
    throw hostError(e, host.name);
  }
  if (clusters.length === 0) warn(`no KubeFedClusters in namespace "${kubefedNamespace}"`);
  const requirements = replicaRequirementsOf(template);
  const request = requirements?.resourceRequest ?? {};
  const available = new Map<string, number>();
  const clients = new ClusterClients({ timeoutMs: 10_000, userAgent: 'kubefedctl' });
  try {
    await Promise.all(
      clusters
        .filter((c) => isClusterReady(c.status?.conditions))
        .map(async (cluster) => {
          const cname = cluster.metadata.name ?? '';
          try {
            const client = await memberClient(host, clients, cluster, kubefedNamespace);
            const [nodes, pods] = await Promise.all([
              client.listAll(CoreTypes.nodes),
              client.listAll(CoreTypes.pods),
            ]);
            available.set(
              cname,
              estimateAvailableReplicas(nodes.items, pods.items, request, requirements?.nodeClaim),
            );
          } catch (e) {
            warn(`cluster "${cname}": ${errorMessage(e)}; its capacity is unknown`);
          }
        }),
    );
  } finally {
    await clients.closeAll();
  }
  return {
    clusters: clusters.map(policyClusterOf),
    available,
    ...(binding ? bindingPlanState(binding) : {}),
  };
}
