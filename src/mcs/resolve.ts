// One service's import, decided from all its exports (KEP-1645 "Constraints and Conflict Resolution"): the
// valid exports are ordered oldest first by the ServiceExport's creationTimestamp, the oldest decides every
// global property, ports are merged (ports.ts), and every difference is a Conflict raised on EVERY valid
// export (mcs-api conformance/service_import.go expects Conflict=True on both clusters' exports).

import { ExportReason } from '../api/mcs/v1beta1/serviceexport.ts';
import { ImportType, type ServiceImportSpec } from '../api/mcs/v1beta1/serviceimport.ts';
import type {
  ExportConflict,
  ExportFacts,
  MergedImport,
  Resolution,
  ServiceObject,
  Validity,
} from './model.ts';
import { mergePorts } from './ports.ts';
import { exportValidity } from './validity.ts';

/** clusterIP None is a headless Service; every other valid Service gets a clusterset IP (KEP-1645 "Service Types"). */
export function importTypeOf(service: ServiceObject): 'ClusterSetIP' | 'Headless' {
  const spec = service.spec;
  const headless = spec?.clusterIP === 'None' || spec?.clusterIPs?.[0] === 'None';
  return headless ? ImportType.Headless : ImportType.ClusterSetIP;
}

/** A valid export with its Service. */
interface ValidExport {
  facts: ExportFacts;
  service: ServiceObject;
}

/** A property the oldest export decides, with its conflict reason and its name in messages. */
interface Property {
  reason: ExportReason;
  name: string;
  /** Whether `e` disagrees with the oldest export. */
  differs: (oldest: ValidExport, e: ValidExport) => boolean;
  /** The oldest export's value, as the message shows it. */
  shown: (oldest: ValidExport) => string;
}

/** A Property from how its value reads from an export, compares and shows. */
function property<T>(p: {
  reason: ExportReason;
  name: string;
  read: (e: ValidExport) => T;
  same?: (a: T, b: T) => boolean;
  show?: (v: T) => string;
}): Property {
  const same = p.same ?? ((a: T, b: T) => a === b);
  const show = p.show ?? String;
  return {
    reason: p.reason,
    name: p.name,
    differs: (oldest, e) => !same(p.read(oldest), p.read(e)),
    shown: (oldest) => show(p.read(oldest)),
  };
}

/** In mcs-api's order of reasons (pkg/apis/v1beta1/serviceexport.go), after PortConflict. */
const PROPERTIES: readonly Property[] = [
  property({ reason: ExportReason.TypeConflict, name: 'type', read: (e) => importTypeOf(e.service) }),
  property({
    reason: ExportReason.SessionAffinityConflict,
    name: 'sessionAffinity',
    read: (e) => sessionAffinityOf(e.service),
  }),
  property({
    reason: ExportReason.SessionAffinityConfigConflict,
    name: 'sessionAffinityConfig',
    read: (e) => e.service.spec?.sessionAffinityConfig?.clientIP?.timeoutSeconds,
    show: (t) => (t === undefined ? 'none' : `clientIP.timeoutSeconds=${t}`),
  }),
  property({
    reason: ExportReason.LabelsConflict,
    name: 'exportedLabels',
    read: (e) => e.facts.export.spec?.exportedLabels ?? {},
    same: sameMap,
    show: showMap,
  }),
  property({
    reason: ExportReason.AnnotationsConflict,
    name: 'exportedAnnotations',
    read: (e) => e.facts.export.spec?.exportedAnnotations ?? {},
    same: sameMap,
    show: showMap,
  }),
  // The API server defaults internalTrafficPolicy to Cluster: an unset one means that.
  property({
    reason: ExportReason.InternalTrafficPolicyConflict,
    name: 'internalTrafficPolicy',
    read: (e) => e.service.spec?.internalTrafficPolicy || 'Cluster',
  }),
  property({
    reason: ExportReason.TrafficDistributionConflict,
    name: 'trafficDistribution',
    read: (e) => e.service.spec?.trafficDistribution ?? '',
  }),
  // Families compare as sets (either order reaches every backend); a Service that names none (the API
  // server always sets them) does not disagree.
  property({
    reason: ExportReason.IPFamilyConflict,
    name: 'ipFamilies',
    read: (e) => e.service.spec?.ipFamilies ?? [],
    same: (a, b) => a.length === 0 || b.length === 0 || sameSet(a, b),
    show: (v) => v.join(','),
  }),
];

/**
 * The whole merge: each export's validity, the conflicts of the valid ones, and the import (none when no
 * export is valid). Ties of creationTimestamp (one-second resolution) go to the cluster name; an export
 * without a readable timestamp counts as the newest.
 */
export function resolveImport(exports: readonly ExportFacts[]): Resolution {
  const validity = new Map<string, Validity>();
  const valid: ValidExport[] = [];
  for (const facts of exports) {
    const v = exportValidity(facts.service, facts.export.metadata?.name ?? '');
    validity.set(facts.cluster, v);
    if (v.valid && facts.service) valid.push({ facts, service: facts.service });
  }
  const conflicts = new Map<string, ExportConflict>();
  const oldest = valid.sort(byAge)[0];
  if (!oldest) return { merged: undefined, validity, conflicts };

  const mergedPorts = mergePorts(
    valid.map((e) => ({ clusterId: e.facts.clusterId, ports: e.service.spec?.ports ?? [] })),
  );
  const reasons: ExportReason[] = [];
  const messages: string[] = [];
  if (mergedPorts.conflict) {
    reasons.push(ExportReason.PortConflict);
    messages.push(mergedPorts.message);
  }
  for (const p of PROPERTIES) {
    const disagree = valid.filter((e) => p.differs(oldest, e)).length;
    if (disagree === 0) continue;
    reasons.push(p.reason);
    messages.push(
      `Conflicting ${p.name}. Using "${p.shown(oldest)}" from oldest service export in "${oldest.facts.clusterId}". ${disagree}/${valid.length} clusters disagree.`,
    );
  }
  for (const e of valid)
    conflicts.set(e.facts.cluster, { reasons: [...reasons], message: messages.join('; ') });

  const merged: MergedImport = {
    spec: importSpec(oldest.service, mergedPorts.ports),
    labels: { ...(oldest.facts.export.spec?.exportedLabels ?? {}) },
    annotations: { ...(oldest.facts.export.spec?.exportedAnnotations ?? {}) },
    clusterIds: [...new Set(valid.map((e) => e.facts.clusterId))].sort(),
  };
  return { merged, validity, conflicts };
}

/** The import's spec: the merged ports and the oldest export's Service for everything else. */
function importSpec(
  service: ServiceObject,
  ports: ServiceImportSpec['ports'],
): Omit<ServiceImportSpec, 'ips'> {
  const spec = service.spec;
  const clientIP = spec?.sessionAffinityConfig?.clientIP;
  return {
    ports,
    type: importTypeOf(service),
    sessionAffinity: sessionAffinityOf(service),
    ...(spec?.sessionAffinityConfig
      ? { sessionAffinityConfig: clientIP ? { clientIP: { ...clientIP } } : {} }
      : {}),
    ...(spec?.ipFamilies?.length ? { ipFamilies: [...spec.ipFamilies] } : {}),
    ...(spec?.internalTrafficPolicy ? { internalTrafficPolicy: spec.internalTrafficPolicy } : {}),
    ...(spec?.trafficDistribution ? { trafficDistribution: spec.trafficDistribution } : {}),
  };
}

/** core/v1 defaults sessionAffinity to None. */
const sessionAffinityOf = (service: ServiceObject): string => service.spec?.sessionAffinity || 'None';

function byAge(a: ValidExport, b: ValidExport): number {
  const ta = creationTime(a.facts);
  const tb = creationTime(b.facts);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.facts.cluster < b.facts.cluster ? -1 : a.facts.cluster > b.facts.cluster ? 1 : 0;
}

function creationTime(facts: ExportFacts): number {
  const t = Date.parse(facts.export.metadata?.creationTimestamp ?? '');
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
}

function sameMap(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

function showMap(m: Readonly<Record<string, string>>): string {
  return Object.keys(m)
    .sort()
    .map((k) => `${k}=${m[k]}`)
    .join(',');
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}
