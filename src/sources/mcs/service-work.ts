// The Work of one exported service (pure): what each consuming member should hold of it — the ServiceImport,
// the derived Service that gives its clusterset IP(s), one set of EndpointSlices per source cluster and the
// DNSEndpoint of its clusterset.local records — decided from the resolution and what the members hold now.
// A member absent from `consumers` holds nothing of the service; so does every member without a merged import.

import { API_VERSION as MCS_API_VERSION, SERVICE_IMPORT_KIND } from '../../api/mcs/v1beta1/index.ts';
import { ownershipOf } from '../../engine/ownership.ts';
import type { DesiredObject, EventSink, ObjectRef, Work } from '../../engine/work.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { derivedService, importIps } from '../../mcs/derived-service.ts';
import { dnsEndpointObject, serviceDnsRecords } from '../../mcs/dns-records.ts';
import { importedSlices } from '../../mcs/endpoint-slices.ts';
import type { MergedImport, ServiceObject, SourceEndpoints } from '../../mcs/model.ts';
import { derivedServiceName, dnsEndpointName } from '../../mcs/names.ts';
import { objectVersion } from '../../propagation/versions.ts';
import {
  DnsEndpointType,
  EndpointSliceType,
  type KindedType,
  ServiceImportType,
  ServiceType,
  serviceOwner,
} from './types.ts';
import { upToDate } from './up-to-date.ts';

/** What one consuming member holds of the service now (its managed caches) and what it serves. */
export interface ConsumerFacts {
  /** The member's managed copy of `ref` (this owner's or another's), as the engine will find it. */
  live(ref: ObjectRef): KubeObject | undefined;
  /** The member serves DNSEndpoints (externaldns.k8s.io): its records are written there. */
  dnsServed: boolean;
  /**
   * The derived Service's name is taken in the member by a Service that is not this owner's (a user's,
   * Karmada's): no slices are written there, as they would feed that Service, and its IPs are not ours.
   */
  derivedTaken?: boolean;
}

/** A member whose objects of the service stay as they are this pass (its picture is incomplete). */
export type KeptFacts = Pick<ConsumerFacts, 'live'>;

export interface ServiceWorkInput {
  namespace: string;
  name: string;
  /** undefined: no valid export anywhere, so no member holds anything of the service. */
  merged: MergedImport | undefined;
  /** The endpoints of each exporting cluster still taking part (valid exports only). */
  sources: readonly SourceEndpoints[];
  /** The ready members the service is imported into (the namespace exists there, ServiceImports are served). */
  consumers: ReadonlyMap<string, ConsumerFacts>;
  /**
   * Members (not consumers) whose objects of this owner are kept as the managed caches show them: neither
   * written nor deleted. Ready members whose read caches are not loaded, or every member while one that the
   * controller never saw may still export the service.
   */
  kept?: ReadonlyMap<string, KeptFacts>;
  /** Objects of this owner the managed caches show in any member beyond the fixed ones (its slices). */
  held: readonly ObjectRef[];
  event: EventSink;
}

/** The refs of the objects a service's owner has under fixed names in every member. */
export function fixedRefs(namespace: string, name: string): ObjectRef[] {
  return [
    { type: ServiceImportType, namespace, name },
    { type: ServiceType, namespace, name: derivedServiceName(name) },
    { type: DnsEndpointType, namespace, name: dnsEndpointName(name) },
  ];
}

export function serviceWork(input: ServiceWorkInput): Work {
  const { namespace, name, merged } = input;
  const owner = serviceOwner(namespace, name);
  const clusters = new Map<string, DesiredObject[]>();
  if (merged) {
    for (const [cluster, facts] of input.consumers)
      clusters.set(cluster, consumerObjects(input, merged, facts));
  }
  const objects = uniqueRefs([...fixedRefs(namespace, name), ...input.held]);
  for (const [cluster, facts] of input.kept ?? new Map<string, KeptFacts>())
    clusters.set(cluster, keptObjects(objects, facts, owner));
  return {
    owner,
    objects,
    clusters,
    adopt: false,
    event: input.event,
  };
}

/** What a kept member holds of this owner, as it is: each object desired as its live copy (no write). */
function keptObjects(objects: readonly ObjectRef[], facts: KeptFacts, owner: Work['owner']): DesiredObject[] {
  const out: DesiredObject[] = [];
  for (const ref of objects) {
    const live = facts.live(ref);
    if (!live || ownershipOf(live, owner).kind !== 'ours') continue;
    out.push(desired(ref.type, ref, facts, owner, () => structuredClone(live)));
  }
  return out;
}

/** What one consuming member should hold. */
function consumerObjects(
  input: ServiceWorkInput,
  merged: MergedImport,
  facts: ConsumerFacts,
): DesiredObject[] {
  const { namespace, name } = input;
  const owner = serviceOwner(namespace, name);
  const [importRef, derivedRef, dnsRef] = fixedRefs(namespace, name) as [ObjectRef, ObjectRef, ObjectRef];
  // Another's Service of that name is not our clusterset IP.
  const derivedLive = facts.derivedTaken ? undefined : (facts.live(derivedRef) as ServiceObject | undefined);
  const ips = importIps(merged.spec, derivedLive);
  const out: DesiredObject[] = [];

  out.push(
    desired(ServiceImportType, importRef, facts, owner, () => ({
      apiVersion: MCS_API_VERSION,
      kind: SERVICE_IMPORT_KIND,
      metadata: {
        name,
        namespace,
        ...(Object.keys(merged.labels).length > 0 ? { labels: { ...merged.labels } } : {}),
        ...(Object.keys(merged.annotations).length > 0 ? { annotations: { ...merged.annotations } } : {}),
      },
      spec: { ...merged.spec, ...(ips.length > 0 ? { ips } : {}) },
    })),
  );

  if (derivedService({ namespace, importName: name, spec: merged.spec, live: derivedLive })) {
    out.push(
      desired(
        ServiceType,
        derivedRef,
        facts,
        owner,
        (live) =>
          derivedService({
            namespace,
            importName: name,
            spec: merged.spec,
            live: live as ServiceObject | undefined,
          }) as KubeObject,
      ),
    );
  }

  // The slices name the ServiceImport as their (non-controller) owner: they wait for its uid.
  const importLive = facts.live(importRef);
  const uid = importLive?.metadata.uid;
  if (uid && importLive?.metadata.deletionTimestamp === undefined && !facts.derivedTaken) {
    for (const source of input.sources) {
      const slices = importedSlices({
        namespace,
        importName: name,
        derivedName: derivedServiceName(name),
        source,
        owner: { name, uid },
      });
      for (const slice of slices) {
        const ref: ObjectRef = { type: EndpointSliceType, namespace, name: slice.metadata.name ?? '' };
        out.push(desired(EndpointSliceType, ref, facts, owner, () => slice));
      }
    }
  }

  if (facts.dnsServed) {
    const records = serviceDnsRecords({
      namespace,
      name,
      type: merged.spec.type,
      ips,
      ports: merged.spec.ports,
      sources: input.sources,
    });
    out.push(
      desired(DnsEndpointType, dnsRef, facts, owner, () =>
        dnsEndpointObject({ namespace, name: dnsRef.name, records }),
      ),
    );
  }
  return out;
}

/**
 * A desired object rendered by `build` against the live copy (keeping its resourceVersion for the PUT), and
 * recorded as up to date when the live copy already is what `build` gives.
 */
export function desired(
  type: KindedType,
  ref: ObjectRef,
  facts: Pick<ConsumerFacts, 'live'>,
  owner: Work['owner'],
  build: (live: KubeObject | undefined) => KubeObject,
): DesiredObject {
  const render = (live: KubeObject | undefined) => {
    const object = build(live);
    const metadata = { ...object.metadata };
    if (live?.metadata.resourceVersion) metadata.resourceVersion = live.metadata.resourceVersion;
    else delete metadata.resourceVersion;
    return { object: { ...object, metadata }, warnings: [] };
  };
  const live = facts.live(ref);
  const recordedVersion = live && upToDate(build(live), live, owner) ? objectVersion(live) : undefined;
  return { ...ref, type, render, ...(recordedVersion ? { recordedVersion } : {}) };
}

function uniqueRefs(refs: readonly ObjectRef[]): ObjectRef[] {
  const seen = new Set<string>();
  const out: ObjectRef[] = [];
  for (const r of refs) {
    const k = `${r.type.group}/${r.type.plural}/${r.namespace ?? ''}/${r.name}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(r);
  }
  return out;
}
