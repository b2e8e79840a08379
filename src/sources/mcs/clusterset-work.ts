// The two clusterset-wide Works (pure): the DNS schema record `dns-version.clusterset.local TXT "1.0.0"` in
// every member that publishes DNSEndpoints, written once some service is imported and then kept (released, never
// deleted: specification.md §2.2 wants it whether or not services are exported, and an idle control plane
// writes nothing to members); and per member the About API
// ClusterProperties that name its cluster id and clusterset, where the member has not named them itself.

import { API_VERSION as ABOUT_API_VERSION, CLUSTER_PROPERTY_KIND } from '../../api/about/v1alpha1/index.ts';
import type { DesiredObject, EventSink, ObjectRef, Work } from '../../engine/work.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { clusterPropertiesToWrite } from '../../mcs/cluster-id.ts';
import { dnsEndpointObject, dnsVersionRecord } from '../../mcs/dns-records.ts';
import { DNS_VERSION_ENDPOINT_NAME } from '../../mcs/names.ts';
import { desired } from './service-work.ts';
import { ClusterPropertyType, clusterPropertyOwner, DNS_VERSION_OWNER, DnsEndpointType } from './types.ts';

/** The namespace of the DNS schema record: readable by all, present in every cluster. */
export const DNS_VERSION_NAMESPACE = 'kube-public';

/** The schema record's Work: in each of `clusters` (members serving DNSEndpoints), none elsewhere. */
export function dnsVersionWork(
  clusters: ReadonlyMap<string, { live(ref: ObjectRef): KubeObject | undefined }>,
  event: EventSink,
): Work {
  const ref: ObjectRef = {
    type: DnsEndpointType,
    namespace: DNS_VERSION_NAMESPACE,
    name: DNS_VERSION_ENDPOINT_NAME,
  };
  const build = () =>
    dnsEndpointObject({
      namespace: DNS_VERSION_NAMESPACE,
      name: DNS_VERSION_ENDPOINT_NAME,
      records: [dnsVersionRecord()],
    });
  return {
    owner: DNS_VERSION_OWNER,
    objects: [ref],
    clusters: new Map(
      [...clusters].map(([c, facts]) => [
        c,
        [desired(DnsEndpointType, ref, facts, DNS_VERSION_OWNER, build)],
      ]),
    ),
    adopt: false,
    // Released rather than deleted when no service is imported any more; taken back (adopted) when one is.
    keep: () => true,
    event,
  };
}

/** What a member holds of the About API properties MCS reads. */
export interface PropertyFacts {
  /** Values of the properties the member (or its admin) set, not kubefed-ts. */
  existing: { clusterId?: string; legacyId?: string; clusterSet?: string };
  /** kubefed-ts's own copies (managed), by property name. */
  live(ref: ObjectRef): KubeObject | undefined;
}

/**
 * One member's ClusterProperty Work: the id and clusterset properties it lacks. Never deleted, only released
 * (`keep`): a cluster id must stay stable for as long as the cluster is a member.
 */
export function clusterPropertyWork(input: {
  cluster: string;
  clusterId: string;
  clusterSet: string;
  facts: PropertyFacts;
  event: EventSink;
}): Work {
  const owner = clusterPropertyOwner(input.cluster);
  const toWrite = clusterPropertiesToWrite({
    clusterId: input.clusterId,
    clusterSet: input.clusterSet,
    existing: input.facts.existing,
  });
  const objects: DesiredObject[] = toWrite.map((p) => {
    const ref: ObjectRef = { type: ClusterPropertyType, name: p.name };
    return desired(ClusterPropertyType, ref, input.facts, owner, () => ({
      apiVersion: ABOUT_API_VERSION,
      kind: CLUSTER_PROPERTY_KIND,
      metadata: { name: p.name },
      spec: { value: p.value },
    }));
  });
  return {
    owner,
    objects,
    clusters: new Map([[input.cluster, objects]]),
    adopt: false,
    keep: () => true,
    event: input.event,
  };
}
