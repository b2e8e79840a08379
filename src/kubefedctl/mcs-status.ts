// `kubefedctl mcs status [SERVICE] [-n NAMESPACE | -A]`: reads every member's ServiceExports,
// ServiceImports, MCS EndpointSlices and cluster id through the credentials the controller manager uses (the
// KubeFedClusters and their Secrets), and prints mcs-status-table.ts's view. A member that cannot be read is
// a row saying why; only the host failing fails the command.

import { stringify as toYaml } from 'yaml';
import {
  CLUSTER_ID_PROPERTY,
  ClusterPropertyType,
  LEGACY_CLUSTER_ID_PROPERTY,
} from '../api/about/v1alpha1/index.ts';
import { type KubeFedCluster, KubeFedClusterType, syncModeOf } from '../api/core/v1beta1/index.ts';
import { LABEL_SERVICE_NAME, ServiceExportType, ServiceImportType } from '../api/mcs/v1beta1/index.ts';
import {
  ApiError,
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import { ClusterClients } from '../members/cluster-clients.ts';
import { hostError, memberClient } from './context.ts';
import { CommandError } from './errors.ts';
import {
  buildMcsStatus,
  type EndpointSliceObject,
  type McsStatus,
  type MemberMcsFacts,
  renderMcsStatusText,
  type ServiceExportObject,
  type ServiceImportObject,
} from './mcs-status-table.ts';
import { MEMBER_RBAC_ANNOTATION, SCOPED_RBAC_MODE } from './scoped-rbac.ts';

export type McsStatusOutput = 'table' | 'json' | 'yaml';

export function parseMcsStatusOutput(value: string | undefined): McsStatusOutput {
  if (value === undefined || value === 'table' || value === 'wide') return 'table';
  if (value === 'json' || value === 'yaml') return value;
  throw new CommandError(
    `invalid output format ${JSON.stringify(value)}: valid values are table, json, yaml`,
  );
}

const EndpointSliceType: ResourceType = {
  group: 'discovery.k8s.io',
  version: 'v1',
  plural: 'endpointslices',
  namespaced: true,
};

type Cluster = KubeObject & KubeFedCluster;

/** Why the MCS controller does not serve a member at all (docs/mcs.md), or undefined when it does. */
function notServed(cluster: Cluster): string | undefined {
  if (syncModeOf(cluster) === 'Pull') return 'joined in Pull mode: not served by multi-cluster services';
  if (cluster.metadata.annotations?.[MEMBER_RBAC_ANNOTATION] === SCOPED_RBAC_MODE)
    return 'joined with --scoped-rbac: not served by multi-cluster services';
  return undefined;
}

/** One line for a failed member read: what the member answered, or that it could not be reached. */
function memberProblem(e: unknown): string {
  return e instanceof ApiError ? e.message : `unreachable: ${errorMessage(e)}`;
}

async function readMember(
  client: KubeClient,
  cluster: string,
  namespace: string | undefined,
): Promise<MemberMcsFacts> {
  let exports: ServiceExportObject[];
  try {
    exports = (await client.listAll<ServiceExportObject>(ServiceExportType, { namespace })).items;
  } catch (e) {
    if (isNotFound(e))
      return {
        cluster,
        unavailable:
          'serves no multicluster.x-k8s.io/v1beta1 ServiceExports: its MCS CRDs are missing or of another version (kubefedctl join installs them; config/crds/members)',
        properties: {},
        exports: [],
        imports: [],
        slices: [],
      };
    throw e;
  }
  const property = async (name: string): Promise<[string, string] | undefined> => {
    try {
      const p = await client.get<KubeObject & { spec?: { value?: string } }>(ClusterPropertyType, name);
      return p.spec?.value ? [name, p.spec.value] : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  const [imports, slices, ...properties] = await Promise.all([
    client.listAll<ServiceImportObject>(ServiceImportType, { namespace }).then((l) => l.items),
    client
      .listAll<EndpointSliceObject>(EndpointSliceType, { namespace, labelSelector: LABEL_SERVICE_NAME })
      .then((l) => l.items),
    property(CLUSTER_ID_PROPERTY),
    property(LEGACY_CLUSTER_ID_PROPERTY),
  ]);
  return {
    cluster,
    properties: Object.fromEntries(properties.filter((p) => p !== undefined)),
    exports,
    imports,
    slices,
  };
}

/** Reads the members and builds the status; `namespace` undefined reads all namespaces. */
export async function readMcsStatus(opts: {
  host: KubeClient;
  kubefedNamespace: string;
  namespace: string | undefined;
  service: string | undefined;
}): Promise<McsStatus> {
  const { host, kubefedNamespace, namespace, service } = opts;
  let clusters: Cluster[];
  try {
    clusters = (await host.listAll<Cluster>(KubeFedClusterType, { namespace: kubefedNamespace })).items;
  } catch (e) {
    throw hostError(e, host.name);
  }
  if (clusters.length === 0)
    throw new CommandError(`no KubeFedClusters in namespace "${kubefedNamespace}" of the host cluster`);
  const clients = new ClusterClients({ timeoutMs: 10_000, userAgent: 'kubefedctl' });
  try {
    const members = await Promise.all(
      clusters.map(async (cluster): Promise<MemberMcsFacts> => {
        const name = cluster.metadata.name ?? '';
        const empty = { cluster: name, properties: {}, exports: [], imports: [], slices: [] };
        const skip = notServed(cluster);
        if (skip) return { ...empty, unavailable: skip };
        let client: KubeClient;
        try {
          client = await memberClient(host, clients, cluster, kubefedNamespace);
        } catch (e) {
          return {
            ...empty,
            unavailable: `no client from its KubeFedCluster and Secret: ${errorMessage(e)}`,
          };
        }
        try {
          return await readMember(client, name, namespace);
        } catch (e) {
          return { ...empty, unavailable: memberProblem(e) };
        }
      }),
    );
    return buildMcsStatus(members, {
      ...(namespace !== undefined ? { namespace } : {}),
      ...(service ? { name: service } : {}),
    });
  } finally {
    await clients.closeAll();
  }
}

/** `kubefedctl mcs status`: prints the status; a named service that no member exports or imports is an error. */
export async function mcsStatus(opts: {
  host: KubeClient;
  kubefedNamespace: string;
  namespace: string | undefined;
  service: string | undefined;
  output: McsStatusOutput;
  out: (text: string) => void;
}): Promise<McsStatus> {
  const status = await readMcsStatus(opts);
  if (opts.service && status.services.length === 0) {
    const where = opts.namespace === undefined ? 'any namespace' : `namespace "${opts.namespace}"`;
    const unread = status.members.filter((m) => m.unavailable !== undefined).map((m) => m.cluster);
    throw new CommandError(
      `service "${opts.service}" is neither exported nor imported in ${where} of any member cluster` +
        (unread.length > 0 ? ` (not read: ${unread.join(', ')})` : ''),
    );
  }
  if (opts.output === 'json') opts.out(`${JSON.stringify(status, null, 2)}\n`);
  else if (opts.output === 'yaml') opts.out(toYaml(status));
  else opts.out(renderMcsStatusText(status));
  return status;
}
