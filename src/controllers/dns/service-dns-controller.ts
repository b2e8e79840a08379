import { type ServiceDNSRecord, ServiceDNSRecordType } from '../../api/multiclusterdns/v1alpha1/index.ts';
import { serviceEndpoints } from '../../dns/endpoints.ts';
import { serviceDnsStatus } from '../../dns/service-status.ts';
import type { KubeObject, ResourceType } from '../../kube/client/index.ts';
import type { MemberCache } from '../../members/member-caches.ts';
import { MANAGED_LABEL } from '../../propagation/constants.ts';
import type { Runnable } from '../../runtime/manager.ts';
import { ok, type ReconcileResult } from '../../runtime/reconcile.ts';
import { type DnsControllerOptions, DnsRecordShell } from './record-shell.ts';

const EndpointSlices: ResourceType = {
  group: 'discovery.k8s.io',
  version: 'v1',
  plural: 'endpointslices',
  namespaced: true,
  kind: 'EndpointSlice',
};
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

type ServiceRecordObject = KubeObject & ServiceDNSRecord;

/**
 * ServiceDNSRecord (KubeFed v0.6's servicedns + dnsendpoint controllers): collects the load balancer of each
 * member's federated Service — only where it has ready endpoints, unless the record allows otherwise — into the
 * record's status, then writes the DNSEndpoint `service-<name>` that ExternalDNS publishes.
 */
export class ServiceDnsController implements Runnable {
  readonly name = 'servicedns';
  readonly leaderOnly = true;
  readonly #opts: DnsControllerOptions;
  readonly #shell: DnsRecordShell<ServiceRecordObject>;
  #slices: MemberCache | undefined;
  /** The Service a cached slice belongs to (slices are deleted before we can read them: remember by key). */
  readonly #sliceOwners = new Map<string, string>();

  constructor(opts: DnsControllerOptions) {
    this.#opts = opts;
    this.#shell = new DnsRecordShell<ServiceRecordObject>(
      opts,
      {
        name: this.name,
        recordType: ServiceDNSRecordType,
        recordKind: 'ServiceDNSRecord',
        endpointPrefix: 'service',
        targetFtc: 'services',
      },
      (key) => this.reconcile(key),
    );
  }

  hasSynced(): boolean {
    return this.#shell.hasSynced();
  }

  run(signal: AbortSignal): Promise<void> {
    const shell = this.#shell;
    return shell.run(signal, {
      start: () => {
        // Ready endpoints decide whether a cluster's load balancer is published. EndpointSlices carry their
        // Service's labels, so the managed label picks exactly the slices of federated Services.
        this.#slices = this.#opts.members.caches.open(
          { type: EndpointSlices, namespace: shell.scope, labelSelector: `${MANAGED_LABEL}=true` },
          {
            onObject: (_cluster, o) => {
              const ns = o.metadata.namespace;
              const slice = this.#sliceOwner(`${ns}/${o.metadata.name}`);
              if (ns && slice) shell.enqueueAfter(`${ns}/${slice}`, 1000);
            },
            onClusterChange: () => shell.enqueueAll(),
            onCacheSynced: () => shell.enqueueAll(),
          },
        );
      },
      stop: async () => {
        await this.#slices?.close();
      },
    });
  }

  #sliceOwner(key: string): string | undefined {
    for (const c of this.#opts.members.registry.list()) {
      const state = this.#slices?.state(c.metadata.name ?? '');
      if (state?.kind !== 'synced') continue;
      const owner = state.store.get(key)?.metadata.labels?.[SERVICE_NAME_LABEL];
      if (owner) {
        this.#sliceOwners.set(key, owner);
        return owner;
      }
    }
    return this.#sliceOwners.get(key);
  }

  #hasReadyEndpoints(cluster: string, namespace: string, service: string): boolean {
    const state = this.#slices?.state(cluster);
    if (state?.kind !== 'synced') return false;
    return state.store
      .list(namespace)
      .filter((s) => s.metadata.labels?.[SERVICE_NAME_LABEL] === service)
      .some((s) =>
        ((s.endpoints ?? []) as Array<{ conditions?: { ready?: boolean } }>).some(
          (e) => e.conditions?.ready !== false,
        ),
      );
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const shell = this.#shell;
    const cached = shell.records.store.get(key);
    // The DNSEndpoint is owned by the record: garbage collection removes it with the record.
    if (!cached) return ok();
    const record = structuredClone(cached);
    const [namespace = '', name = ''] = key.split('/');
    if (!shell.typeEnabled()) return shell.typeNotEnabled(record);
    const domainRef = record.spec?.domainRef ?? '';
    const d = shell.domains.store.get(`${this.#opts.namespace}/${domainRef}`);
    if (!d) {
      const message = `Domain "${this.#opts.namespace}/${domainRef}" does not exist`;
      shell.event(record, 'Warning', 'DomainNotFound', message);
      return shell.writeStatus(record, undefined, undefined, {
        ready: false,
        reason: 'DomainNotFound',
        message,
      });
    }
    const clusters = shell.clusters();
    const { dns, problems } = serviceDnsStatus({
      clusters: clusters.map((c) => ({
        ...c,
        service: shell.targets.get(c.name, key),
        hasReadyEndpoints: this.#hasReadyEndpoints(c.name, namespace, name),
      })),
      allowServiceWithoutEndpoints: record.spec?.allowServiceWithoutEndpoints === true,
      previous: record.status?.dns,
    });
    if (clusters.every((c) => !shell.targets.get(c.name, key))) {
      problems.push(`no member cluster has a federated Service "${key}"`);
    }
    const spec = record.spec;
    return shell.publish(record, dns, d.domain, problems, (resolve) =>
      serviceEndpoints({
        recordName: name,
        namespace,
        domainRef,
        domain: d.domain,
        dnsPrefix: spec?.dnsPrefix,
        externalName: spec?.externalName,
        ttl: spec?.recordTTL,
        dns,
        resolve,
        hostnamesAsCname: this.#opts.hostnamesAsCname,
      }),
    );
  }
}
