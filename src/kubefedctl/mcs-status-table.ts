// `kubefedctl mcs status` (pure): what each member cluster says about each multi-cluster service — its
// ServiceExport's conditions, its ServiceImport, and the MCS EndpointSlices it holds per source cluster —
// gathered into one table per service. The shell (mcs-status.ts) reads the members; a member it could not
// read is a row saying why.

import { CLUSTER_ID_PROPERTY, LEGACY_CLUSTER_ID_PROPERTY } from '../api/about/v1alpha1/index.ts';
import {
  ExportCondition,
  ImportCondition,
  LABEL_SERVICE_NAME,
  LABEL_SOURCE_CLUSTER,
  type ServiceExport,
  type ServiceImport,
} from '../api/mcs/v1beta1/index.ts';
import type { MetaCondition } from '../api/policy/v1alpha1/propagationpolicy.ts';
import type { KubeObject } from '../kube/client/index.ts';

export type ServiceExportObject = KubeObject & ServiceExport;
export type ServiceImportObject = KubeObject & ServiceImport;
/** A discovery.k8s.io/v1 EndpointSlice (only what the status counts). */
export interface EndpointSliceObject extends KubeObject {
  addressType?: string;
  endpoints?: Array<{ addresses?: string[]; conditions?: { ready?: boolean } }>;
}

/** What one member cluster holds, as read by the shell. */
export interface MemberMcsFacts {
  /** The KubeFedCluster name. */
  cluster: string;
  /** Why nothing could be read from it (unreachable, not served, no MCS CRDs); the rest is then empty. */
  unavailable?: string;
  /** ClusterProperty name → value (the id properties are what is looked at). */
  properties: Readonly<Record<string, string>>;
  exports: readonly ServiceExportObject[];
  imports: readonly ServiceImportObject[];
  /** EndpointSlices labelled multicluster.kubernetes.io/service-name. */
  slices: readonly EndpointSliceObject[];
}

export interface ConditionSummary {
  status: string;
  reason: string;
  message: string;
}

export interface McsClusterRow {
  cluster: string;
  /** Absent when the member could not be read. */
  clusterId?: string;
  unavailable?: string;
  /** The member's ServiceExport of the service; absent when it has none. */
  export?: { valid?: ConditionSummary; conflict?: ConditionSummary; ready?: ConditionSummary };
  /** The member's ServiceImport of the service; absent when it has none. */
  import?: { type: string; ips: string[]; clusters: string[]; ready?: ConditionSummary };
  /** Ready endpoints per source cluster id in the member's MCS EndpointSlices, sorted by id. */
  endpoints: Array<{ sourceCluster: string; ready: number; byAddressType: Record<string, number> }>;
}

export interface McsServiceStatus {
  namespace: string;
  name: string;
  clusters: McsClusterRow[];
}

export interface McsStatus {
  /** Every member, with its id or why it could not be read. */
  members: Array<{ cluster: string; clusterId?: string; unavailable?: string }>;
  services: McsServiceStatus[];
}

/** The member's MCS cluster id: ClusterProperty cluster.clusterset.k8s.io, else id.k8s.io, else its name. */
export function clusterIdOf(properties: Readonly<Record<string, string>>, clusterName: string): string {
  return properties[CLUSTER_ID_PROPERTY] || properties[LEGACY_CLUSTER_ID_PROPERTY] || clusterName;
}

const key = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

function summary(
  conditions: readonly MetaCondition[] | undefined,
  type: string,
): ConditionSummary | undefined {
  const c = conditions?.find((x) => x.type === type);
  return c ? { status: c.status, reason: c.reason, message: c.message } : undefined;
}

/**
 * Ready endpoints per source cluster among the member's slices of one service. A dual-stack endpoint is in
 * one slice per family, so a cluster's count is its largest per address type.
 */
function endpointsOf(slices: readonly EndpointSliceObject[]): McsClusterRow['endpoints'] {
  const bySource = new Map<string, Record<string, number>>();
  for (const slice of slices) {
    const source = slice.metadata.labels?.[LABEL_SOURCE_CLUSTER] ?? '';
    const family = slice.addressType ?? '';
    const ready = (slice.endpoints ?? []).filter((e) => e.conditions?.ready !== false).length;
    const counts = bySource.get(source) ?? {};
    counts[family] = (counts[family] ?? 0) + ready;
    bySource.set(source, counts);
  }
  return [...bySource.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([sourceCluster, byAddressType]) => ({
      sourceCluster,
      ready: Math.max(0, ...Object.values(byAddressType)),
      byAddressType,
    }));
}

/**
 * The status of every service some member exports or imports (in `namespace` when given, named `name` when
 * given), sorted by namespace and name, with a row per member sorted by cluster name.
 */
export function buildMcsStatus(
  members: readonly MemberMcsFacts[],
  filter: { namespace?: string; name?: string } = {},
): McsStatus {
  const wanted = (o: KubeObject) =>
    (filter.namespace === undefined || o.metadata.namespace === filter.namespace) &&
    (filter.name === undefined || o.metadata.name === filter.name);
  const sorted = [...members].sort((a, b) => a.cluster.localeCompare(b.cluster));
  const services = new Map<string, { namespace: string; name: string }>();
  for (const m of sorted) {
    for (const o of [...m.exports, ...m.imports].filter(wanted)) {
      services.set(key(o), { namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' });
    }
  }
  const rows = (svc: { namespace: string; name: string }): McsClusterRow[] =>
    sorted.map((m) => {
      if (m.unavailable !== undefined)
        return { cluster: m.cluster, unavailable: m.unavailable, endpoints: [] };
      const same = (o: KubeObject) => o.metadata.namespace === svc.namespace && o.metadata.name === svc.name;
      const ex = m.exports.find(same);
      const im = m.imports.find(same);
      const slices = m.slices.filter(
        (s) => s.metadata.namespace === svc.namespace && s.metadata.labels?.[LABEL_SERVICE_NAME] === svc.name,
      );
      const conditions = ex?.status?.conditions;
      // In the table's order, which JSON and YAML keep.
      return {
        cluster: m.cluster,
        clusterId: clusterIdOf(m.properties, m.cluster),
        ...(ex
          ? {
              export: {
                ...optional('valid', summary(conditions, ExportCondition.Valid)),
                ...optional('conflict', summary(conditions, ExportCondition.Conflict)),
                ...optional('ready', summary(conditions, ExportCondition.Ready)),
              },
            }
          : {}),
        ...(im
          ? {
              import: {
                type: im.spec?.type ?? '',
                ips: im.spec?.ips ?? [],
                clusters: (im.status?.clusters ?? []).map((c) => c.cluster),
                ...optional('ready', summary(im.status?.conditions, ImportCondition.Ready)),
              },
            }
          : {}),
        endpoints: endpointsOf(slices),
      };
    });
  return {
    members: sorted.map((m) =>
      m.unavailable !== undefined
        ? { cluster: m.cluster, unavailable: m.unavailable }
        : { cluster: m.cluster, clusterId: clusterIdOf(m.properties, m.cluster) },
    ),
    services: [...services.values()]
      .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name))
      .map((svc) => ({ ...svc, clusters: rows(svc) })),
  };
}

function optional<K extends string, V>(k: K, v: V | undefined): Partial<Record<K, V>> {
  return v === undefined ? {} : ({ [k]: v } as Record<K, V>);
}

const HEADERS = [
  'CLUSTER',
  'CLUSTER-ID',
  'EXPORTED',
  'VALID',
  'CONFLICT',
  'READY',
  'IMPORT',
  'IPS',
  'ENDPOINTS',
];

/** `True`, or `False (NoService)`: the reason shown whenever the status is not plain True. */
function cell(c: ConditionSummary | undefined, showReasonWhen: (c: ConditionSummary) => boolean): string {
  if (!c) return '-';
  return showReasonWhen(c) && c.reason ? `${c.status} (${c.reason})` : c.status;
}

function tableRow(r: McsClusterRow): string[] {
  const ex = r.export;
  const notTrue = (c: ConditionSummary) => c.status !== 'True';
  return [
    r.cluster,
    r.clusterId ?? '-',
    ex ? 'yes' : 'no',
    ex ? cell(ex.valid, notTrue) : '-',
    // A conflict's reasons are what the user needs; NoConflicts says nothing False does not.
    ex ? cell(ex.conflict, (c) => c.status === 'True') : '-',
    ex ? cell(ex.ready, notTrue) : '-',
    r.import?.type || (r.import ? '?' : '-'),
    r.import && r.import.ips.length > 0 ? r.import.ips.join(',') : '-',
    r.endpoints.length > 0 ? r.endpoints.map((e) => `${e.sourceCluster}=${e.ready}`).join(' ') : '-',
  ];
}

/** Messages worth reading under a service's table: a condition that is not as it should be. */
function notes(r: McsClusterRow): string[] {
  const lines: string[] = [];
  const ex = r.export;
  if (ex?.valid && ex.valid.status !== 'True') lines.push(`Valid: ${ex.valid.message}`);
  if (ex?.conflict?.status === 'True') lines.push(`Conflict: ${ex.conflict.message}`);
  if (ex?.ready && ex.ready.status !== 'True') lines.push(`Ready: ${ex.ready.message}`);
  if (r.import?.ready && r.import.ready.status !== 'True')
    lines.push(`import Ready: ${r.import.ready.message}`);
  return lines.filter((l) => !l.endsWith(': ')).map((l) => `  ${r.cluster}: ${l}`);
}

function renderTable(rows: readonly McsClusterRow[]): string {
  const cells = rows.map((r) => (r.unavailable === undefined ? tableRow(r) : undefined));
  const all = [HEADERS, ...cells.filter((c): c is string[] => c !== undefined)];
  const widths = HEADERS.map((_, col) => Math.max(...all.map((row) => (row[col] ?? '').length)));
  const line = (row: readonly string[]) =>
    row
      .map((c, col) => (col === row.length - 1 ? c : c.padEnd((widths[col] ?? 0) + 2)))
      .join('')
      .trimEnd();
  // An unreadable member's reason runs on from its name, across the columns it has no value for.
  const body = rows.map((r, i) =>
    r.unavailable === undefined
      ? line(cells[i] ?? [])
      : `${r.cluster.padEnd((widths[0] ?? 0) + 2)}${r.unavailable}`,
  );
  return [line(HEADERS), ...body].map((l) => `${l}\n`).join('');
}

/** The text output: per service a title line, its table and the messages of conditions that are not well. */
export function renderMcsStatusText(status: McsStatus): string {
  if (status.services.length === 0) {
    const unavailable = status.members.filter((m) => m.unavailable !== undefined);
    const lines = ['No exported or imported services found.'];
    for (const m of unavailable) lines.push(`  ${m.cluster}: ${m.unavailable}`);
    return `${lines.join('\n')}\n`;
  }
  return status.services
    .map((svc) => {
      const msgs = svc.clusters.flatMap(notes);
      return `SERVICE ${svc.namespace}/${svc.name}\n${renderTable(svc.clusters)}${msgs.map((m) => `${m}\n`).join('')}`;
    })
    .join('\n');
}
