import { lookup } from 'node:dns/promises';
import {
  API_VERSION,
  DNSEndpointType,
  type Domain,
  DomainType,
  ExternalDnsEndpointType,
  type IngressDNSRecord,
  IngressDNSRecordType,
  type ServiceDNSRecord,
  ServiceDNSRecordType,
} from '../../api/multiclusterdns/v1alpha1/index.ts';
import type { ResolvedKubeFedConfig } from '../../config/index.ts';
import { dnsEndpointName, ingressEndpoints, serviceEndpoints } from '../../dns/endpoints.ts';
import { hostnamesToResolve } from '../../dns/load-balancer.ts';
import { nextRecordStatus, type RecordOutcome, type RecordStatus } from '../../dns/record-status.ts';
import { ingressDnsStatus, serviceDnsStatus } from '../../dns/service-status.ts';
import type { ClusterDns, Endpoint, IngressClusterDns } from '../../dns/types.ts';
import { isNotFound, type KubeClient, type KubeObject, type ResourceType } from '../../kube/client/index.ts';
import type { MemberCache } from '../../members/member-caches.ts';
import type { Members } from '../../members/members.ts';
import { MANAGED_LABEL } from '../../propagation/constants.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { EventRecorder } from '../../runtime/events.ts';
import { logFailure } from '../../runtime/failure-log.ts';
import { Informer, objectKey } from '../../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import type { Runnable } from '../../runtime/manager.ts';
import { measuredReconcile, prometheusWorkQueueMetrics } from '../../runtime/metrics.ts';
import { afterWriteError, ok, type ReconcileResult, retry } from '../../runtime/reconcile.ts';
import { kubefedRateLimiter, runWorkers, WorkQueue } from '../../runtime/workqueue/index.ts';
import type { SyncController } from '../../sources/federated/sync-controller.ts';
import type { FederatedTypeConfigController } from '../../sources/federated/type-config-controller.ts';

export type DnsRecordKind = 'service' | 'ingress';
/** Which DNSEndpoint API the controllers write: KubeFed's own group, or ExternalDNS's default one. */
export type DnsEndpointGroup = 'multiclusterdns.kubefed.io' | 'externaldns.k8s.io';

const EndpointSlices: ResourceType = {
  group: 'discovery.k8s.io',
  version: 'v1',
  plural: 'endpointslices',
  namespaced: true,
  kind: 'EndpointSlice',
};
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

type RecordObject = KubeObject & (ServiceDNSRecord | IngressDNSRecord);
type DomainObject = KubeObject & Domain;

export interface DnsControllerOptions {
  kind: DnsRecordKind;
  host: KubeClient;
  namespace: string;
  config: ResolvedKubeFedConfig;
  ftcs: FederatedTypeConfigController;
  members: Members;
  endpointGroup: DnsEndpointGroup;
  /** Publish hostname-only load balancers as CNAMEs instead of resolving them to A records. */
  hostnamesAsCname: boolean;
  logger?: Logger;
  /** Hostname → addresses; DNS lookups by default. */
  resolveHost?: (hostname: string) => Promise<string[]>;
}

/**
 * Multi-cluster DNS (KubeFed v0.6's servicedns/ingressdns + dnsendpoint controllers, §3.8), one instance per
 * record kind: collects each member's load balancer (Services only where they have ready endpoints) into the
 * record's status, then writes the DNSEndpoint `service-<name>` / `ingress-<name>` that ExternalDNS publishes.
 * Member Services and Ingresses are read from the sync controllers' caches.
 */
export class DnsController implements Runnable {
  readonly name: string;
  readonly leaderOnly = true;
  readonly #opts: DnsControllerOptions;
  readonly #log: Logger;
  readonly #queue: WorkQueue;
  readonly #events: EventRecorder;
  readonly #recordType: ResourceType;
  readonly #endpointType: ResourceType;
  #records: Informer<RecordObject> | undefined;
  #domains: Informer<DomainObject> | undefined;
  #slices: MemberCache | undefined;
  #unobserve: (() => void) | undefined;

  constructor(opts: DnsControllerOptions) {
    this.#opts = opts;
    this.name = opts.kind === 'service' ? 'servicedns' : 'ingressdns';
    this.#log = (opts.logger ?? silentLogger).child({ controller: this.name });
    this.#queue = new WorkQueue({
      name: this.name,
      rateLimiter: kubefedRateLimiter(),
      metrics: prometheusWorkQueueMetrics,
    });
    this.#events = new EventRecorder(opts.host, `${this.name}-controller`, this.#log);
    this.#recordType = opts.kind === 'service' ? ServiceDNSRecordType : IngressDNSRecordType;
    this.#endpointType =
      opts.endpointGroup === 'externaldns.k8s.io' ? ExternalDnsEndpointType : DNSEndpointType;
  }

  hasSynced(): boolean {
    return Boolean(this.#records?.hasSynced() && this.#domains?.hasSynced());
  }

  #targetFtc(): string {
    return this.#opts.kind === 'service' ? 'services' : 'ingresses.networking.k8s.io';
  }

  async run(signal: AbortSignal): Promise<void> {
    const { host, namespace, config, ftcs } = this.#opts;
    const scope = config.scope === 'Namespaced' ? namespace : undefined;
    const records = new Informer<RecordObject>({
      client: host,
      type: this.#recordType,
      namespace: scope,
      logger: this.#log,
    });
    const domains = new Informer<DomainObject>({
      client: host,
      type: DomainType,
      namespace,
      logger: this.#log,
    });
    this.#records = records;
    this.#domains = domains;
    const enqueue = (o: KubeObject) => this.#queue.add(objectKey(o));
    const all = () => {
      for (const r of records.store.list()) this.#queue.add(objectKey(r));
    };
    records.addHandlers({ onAdd: enqueue, onUpdate: (_, o) => enqueue(o), onDelete: enqueue });
    domains.addHandlers({ onAdd: all, onUpdate: all, onDelete: all });
    const unsubscribe = ftcs.registry.addListener({ onClusterChange: all });
    const follow = (ftc: string, c: SyncController | undefined) => {
      if (ftc !== this.#targetFtc()) return;
      this.#unobserve?.();
      this.#unobserve = c?.addObserver({
        onMemberObject: (_cluster, key) => this.#queue.addAfter(key, 1000),
      });
      all();
    };
    ftcs.addSyncListener(follow);
    follow(this.#targetFtc(), ftcs.syncController(this.#targetFtc()));
    if (this.#opts.kind === 'service') {
      // Ready endpoints decide whether a cluster's load balancer is published. EndpointSlices carry their
      // Service's labels, so the managed label picks exactly the slices of federated Services.
      this.#slices = this.#opts.members.caches.open(
        { type: EndpointSlices, namespace: scope, labelSelector: `${MANAGED_LABEL}=true` },
        {
          onObject: (_cluster, o) => {
            const ns = o.metadata.namespace;
            const key = `${ns}/${o.metadata.name}`;
            const slice = this.#sliceOwner(key);
            if (ns && slice) this.#queue.addAfter(`${ns}/${slice}`, 1000);
          },
          onClusterChange: all,
          onCacheSynced: all,
        },
      );
    }
    records.start();
    domains.start();
    const stopped = new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    await Promise.race([Promise.all([records.waitForSync(), domains.waitForSync()]), stopped]);
    const workers = runWorkers(
      this.#queue,
      2,
      measuredReconcile(this.name, (k) => this.reconcile(k)),
      {
        logger: this.#log,
      },
    );
    await stopped;
    this.#queue.shutDown();
    unsubscribe();
    this.#unobserve?.();
    await workers;
    await Promise.all([records.stop(), domains.stop(), this.#slices?.close()]);
  }

  /** The Service a cached slice belongs to (slices are deleted before we can read them: remember by key). */
  readonly #sliceOwners = new Map<string, string>();
  #sliceOwner(key: string): string | undefined {
    for (const c of this.#opts.ftcs.registry.list()) {
      const state = this.#slices?.state(c.metadata.name ?? '');
      if (state?.kind !== 'synced') continue;
      const s = state.store.get(key);
      const owner = s?.metadata.labels?.[SERVICE_NAME_LABEL];
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

  #event(obj: RecordObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const kind = this.#opts.kind === 'service' ? 'ServiceDNSRecord' : 'IngressDNSRecord';
    void this.#events.record({ ...obj, apiVersion: API_VERSION, kind }, type, reason, message);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const cached = this.#records?.store.get(key);
    // The DNSEndpoint is owned by the record: garbage collection removes it with the record.
    if (!cached) return ok();
    const record = structuredClone(cached);
    const [namespace = '', name = ''] = key.split('/');
    const registry = this.#opts.ftcs.registry;
    const sync = this.#opts.ftcs.syncController(this.#targetFtc());
    if (!sync) {
      return this.#writeStatus(record, undefined, undefined, {
        ready: false,
        reason: 'TypeNotEnabled',
        message: `FederatedTypeConfig "${this.#targetFtc()}" is not enabled`,
      });
    }
    let problems: string[];
    let dns: ClusterDns[] | IngressClusterDns[];
    let domain: string | undefined;
    const clusters = registry.list().map((c) => ({
      name: c.metadata.name ?? '',
      ready: registry.isReady(c.metadata.name ?? ''),
      zones: c.status?.zones,
      region: c.status?.region,
    }));
    if (this.#opts.kind === 'service') {
      const rec = record as KubeObject & ServiceDNSRecord;
      const domainRef = rec.spec?.domainRef ?? '';
      const d = this.#domains?.store.get(`${this.#opts.namespace}/${domainRef}`);
      if (!d) {
        const message = `Domain "${this.#opts.namespace}/${domainRef}" does not exist`;
        this.#event(record, 'Warning', 'DomainNotFound', message);
        return this.#writeStatus(record, undefined, undefined, {
          ready: false,
          reason: 'DomainNotFound',
          message,
        });
      }
      domain = d.domain;
      const prev = rec.status?.dns as ClusterDns[] | undefined;
      ({ dns, problems } = serviceDnsStatus({
        clusters: clusters.map((c) => ({
          ...c,
          service: sync.memberObject(c.name, key),
          hasReadyEndpoints: this.#hasReadyEndpoints(c.name, namespace, name),
        })),
        allowServiceWithoutEndpoints: rec.spec?.allowServiceWithoutEndpoints === true,
        previous: prev,
      }));
      if (clusters.every((c) => !sync.memberObject(c.name, key))) {
        problems.push(`no member cluster has a federated Service "${key}"`);
      }
    } else {
      const prev = (record as KubeObject & IngressDNSRecord).status?.dns as IngressClusterDns[] | undefined;
      ({ dns, problems } = ingressDnsStatus({
        clusters: clusters.map((c) => ({
          name: c.name,
          ready: c.ready,
          ingress: sync.memberObject(c.name, key),
        })),
        previous: prev,
      }));
    }
    for (const p of problems) this.#event(record, 'Warning', 'InvalidMemberStatus', p);

    let endpoints: Endpoint[];
    try {
      const resolved = await this.#resolveAll(dns);
      const resolve = (h: string) => resolved.get(h) ?? [];
      const ttl = (record.spec as { recordTTL?: number } | undefined)?.recordTTL;
      if (this.#opts.kind === 'service') {
        const spec = (record as KubeObject & ServiceDNSRecord).spec;
        endpoints = serviceEndpoints({
          recordName: name,
          namespace,
          domainRef: spec?.domainRef ?? '',
          domain: domain ?? '',
          dnsPrefix: spec?.dnsPrefix,
          externalName: spec?.externalName,
          ttl,
          dns: dns as ClusterDns[],
          resolve,
          hostnamesAsCname: this.#opts.hostnamesAsCname,
        });
      } else {
        endpoints = ingressEndpoints({
          hosts: (record as KubeObject & IngressDNSRecord).spec?.hosts ?? [],
          ttl,
          dns: dns as IngressClusterDns[],
          resolve,
          hostnamesAsCname: this.#opts.hostnamesAsCname,
        });
      }
    } catch (e) {
      return retry(e);
    }
    const written = await this.#writeEndpoint(record, endpoints);
    if (written.kind !== 'ok') return written;
    return this.#writeStatus(record, dns, domain, {
      ready: problems.length === 0,
      reason: problems.length === 0 ? 'Published' : 'PartiallyPublished',
      message: problems.join('; '),
    });
  }

  async #resolveAll(dns: Array<ClusterDns | IngressClusterDns>): Promise<Map<string, string[]>> {
    const hosts = hostnamesToResolve(dns);
    const out = new Map<string, string[]>();
    const resolveHost =
      this.#opts.resolveHost ??
      (async (h: string) => (await lookup(h, { all: true, family: 4 })).map((a) => a.address).sort());
    await Promise.all(
      [...hosts].map(async (h) => {
        try {
          out.set(h, await resolveHost(h));
        } catch (e) {
          // The members whose load balancer this is; a name that never resolves must not flood the log.
          const clusters = dns
            .filter((d) => d.loadBalancer.ingress?.some((i) => i.hostname === h))
            .map((d) => d.cluster);
          logFailure(this.#log, 'cannot resolve load balancer hostname', {
            cluster: [...new Set(clusters)].sort().join(','),
            err: e,
            kind: 'unreachable',
            fields: { hostname: h },
          });
          out.set(h, []);
        }
      }),
    );
    return out;
  }

  async #writeEndpoint(record: RecordObject, endpoints: Endpoint[]): Promise<ReconcileResult> {
    const host = this.#opts.host;
    const name = dnsEndpointName(this.#opts.kind, record.metadata.name ?? '');
    const namespace = record.metadata.namespace;
    const t = this.#endpointType;
    const apiVersion = `${t.group}/${t.version}`;
    try {
      let existing: KubeObject | undefined;
      try {
        existing = await host.get(t, name, namespace);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      if (!existing) {
        await host.create(t, {
          apiVersion,
          kind: 'DNSEndpoint',
          metadata: {
            name,
            namespace,
            ownerReferences: [
              {
                apiVersion: API_VERSION,
                kind: this.#opts.kind === 'service' ? 'ServiceDNSRecord' : 'IngressDNSRecord',
                name: record.metadata.name,
                uid: record.metadata.uid,
              },
            ],
          },
          spec: { endpoints },
        });
        return ok();
      }
      const current = ((existing.spec ?? {}) as { endpoints?: unknown }).endpoints ?? [];
      if (jsonEqual(current, endpoints)) return ok();
      await host.update(t, { ...existing, spec: { ...(existing.spec as object), endpoints } });
      return ok();
    } catch (e) {
      return afterWriteError(e);
    }
  }

  async #writeStatus(
    record: RecordObject,
    dns: ClusterDns[] | IngressClusterDns[] | undefined,
    domain: string | undefined,
    cond: RecordOutcome,
  ): Promise<ReconcileResult> {
    const prev = record.status as RecordStatus | undefined;
    const next = nextRecordStatus(prev, { dns, domain, outcome: cond }, new Date());
    if (jsonEqual(next, prev ?? {})) return ok();
    try {
      await this.#opts.host.update(
        this.#recordType,
        { ...record, apiVersion: API_VERSION, kind: this.#recordType.kind, status: next },
        { subresource: 'status' },
      );
    } catch (e) {
      return afterWriteError(e);
    }
    return ok();
  }
}
