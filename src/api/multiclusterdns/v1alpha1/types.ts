import { type Static, Type } from 'typebox';
import type { ResourceType } from '../../../kube/client/index.ts';
import { ObjectMetaSchema } from '../../meta.ts';
import { Int64 } from '../../schema-helpers.ts';
import { GROUP, VERSION } from './group.ts';

const base = {
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
};

const LoadBalancerStatusSchema = Type.Object(
  {
    ingress: Type.Optional(
      Type.Array(
        Type.Object({
          ip: Type.Optional(Type.String()),
          hostname: Type.Optional(Type.String()),
        }),
      ),
    ),
  },
  { description: 'The load balancer of the cluster’s Service or Ingress (core/v1 LoadBalancerStatus).' },
);

/** The `Ready` condition both record kinds carry (kubefed-ts addition). */
const RecordConditionSchema = Type.Object({
  type: Type.String(),
  status: Type.String(),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  lastTransitionTime: Type.Optional(Type.String({ format: 'date-time' })),
});

export const DomainSchema = Type.Object(
  {
    ...base,
    domain: Type.String({
      description: 'The DNS zone, e.g. example.com. The Domain’s name is the federation name.',
    }),
    nameServer: Type.Optional(Type.String({ description: 'Authoritative name server of the zone.' })),
  },
  { description: 'Domain: the DNS zone multi-cluster DNS records are published in (fields are top-level).' },
);
export type Domain = Static<typeof DomainSchema>;

export const ServiceDNSRecordSchema = Type.Object(
  {
    ...base,
    spec: Type.Optional(
      Type.Object({
        domainRef: Type.String({ description: 'Name of a Domain in the KubeFed namespace.' }),
        recordTTL: Type.Optional(Int64('TTL of the records in seconds; 0 means 180.')),
        dnsPrefix: Type.Optional(
          Type.String({ description: 'Adds a CNAME <dnsPrefix>.<domain> to the global name.' }),
        ),
        externalName: Type.Optional(
          Type.String({ description: 'Replaces the service name in record names.' }),
        ),
        allowServiceWithoutEndpoints: Type.Optional(
          Type.Boolean({ description: 'Publish a cluster’s load balancer even without ready endpoints.' }),
        ),
      }),
    ),
    status: Type.Optional(
      Type.Object({
        domain: Type.Optional(Type.String()),
        dns: Type.Optional(
          Type.Array(
            Type.Object({
              cluster: Type.String(),
              loadBalancer: Type.Optional(LoadBalancerStatusSchema),
              zones: Type.Optional(Type.Array(Type.String())),
              region: Type.Optional(Type.String()),
            }),
          ),
        ),
        conditions: Type.Optional(Type.Array(RecordConditionSchema)),
      }),
    ),
  },
  { description: 'ServiceDNSRecord: DNS names for the federated Service of the same name and namespace.' },
);
export type ServiceDNSRecord = Static<typeof ServiceDNSRecordSchema>;

export const IngressDNSRecordSchema = Type.Object(
  {
    ...base,
    spec: Type.Optional(
      Type.Object({
        hosts: Type.Optional(Type.Array(Type.String(), { description: 'The DNS names to publish.' })),
        recordTTL: Type.Optional(Int64('TTL of the records in seconds; 0 means 180.')),
      }),
    ),
    status: Type.Optional(
      Type.Object({
        dns: Type.Optional(
          Type.Array(
            Type.Object({ cluster: Type.String(), loadBalancer: Type.Optional(LoadBalancerStatusSchema) }),
          ),
        ),
        conditions: Type.Optional(Type.Array(RecordConditionSchema)),
      }),
    ),
  },
  { description: 'IngressDNSRecord: DNS names for the federated Ingress of the same name and namespace.' },
);
export type IngressDNSRecord = Static<typeof IngressDNSRecordSchema>;

/** The DNSEndpoint schema ExternalDNS's CRD source reads (same shape in both API groups). */
export const DNSEndpointSchema = Type.Object(
  {
    ...base,
    spec: Type.Optional(
      Type.Object({
        endpoints: Type.Optional(
          Type.Array(
            Type.Object({
              dnsName: Type.Optional(Type.String()),
              targets: Type.Optional(Type.Array(Type.String())),
              recordType: Type.Optional(Type.String()),
              recordTTL: Type.Optional(Int64('TTL in seconds.')),
              setIdentifier: Type.Optional(Type.String()),
              labels: Type.Optional(Type.Record(Type.String(), Type.String())),
              providerSpecific: Type.Optional(
                Type.Array(
                  Type.Object({ name: Type.Optional(Type.String()), value: Type.Optional(Type.String()) }),
                ),
              ),
            }),
          ),
        ),
      }),
    ),
    status: Type.Optional(
      Type.Object({ observedGeneration: Type.Optional(Int64('Generation ExternalDNS acted on.')) }),
    ),
  },
  { description: 'DNSEndpoint: records for ExternalDNS’s CRD source.' },
);
export type DNSEndpoint = Static<typeof DNSEndpointSchema>;

const t = (plural: string, kind: string): ResourceType => ({
  group: GROUP,
  version: VERSION,
  plural,
  namespaced: true,
  kind,
});
export const DomainType = t('domains', 'Domain');
export const ServiceDNSRecordType = t('servicednsrecords', 'ServiceDNSRecord');
export const IngressDNSRecordType = t('ingressdnsrecords', 'IngressDNSRecord');
export const DNSEndpointType = t('dnsendpoints', 'DNSEndpoint');

/** ExternalDNS's own group for DNSEndpoint (its default CRD source since v0.5). */
export const EXTERNALDNS_GROUP = 'externaldns.k8s.io';
export const ExternalDnsEndpointType: ResourceType = {
  group: EXTERNALDNS_GROUP,
  version: 'v1alpha1',
  plural: 'dnsendpoints',
  namespaced: true,
  kind: 'DNSEndpoint',
};
