import { lookup } from 'node:dns/promises';
import {
  API_VERSION,
  DNSEndpointType,
  type Domain,
  DomainType,
  ExternalDnsEndpointType,
} from '../../api/multiclusterdns/v1alpha1/index.ts';
import type { ResolvedKubeFedConfig } from '../../config/index.ts';
import { dnsEndpointName } from '../../dns/endpoints.ts';
import { hostnamesToResolve } from '../../dns/load-balancer.ts';
import { nextRecordStatus, type RecordOutcome, type RecordStatus } from '../../dns/record-status.ts';
import type { Resolve } from '../../dns/records.ts';
import type { ClusterDns, Endpoint, IngressClusterDns } from '../../dns/types.ts';
import {
  apiVersionOf,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../kube/client/index.ts';
import type { Members } from '../../members/members.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { Controller } from '../../runtime/controller.ts';
import { EventRecorder } from '../../runtime/events.ts';
import { logFailure } from '../../runtime/failure-log.ts';
import { type EventHandler, enqueueObject } from '../../runtime/handlers.ts';
import { type Informer, objectKey } from '../../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { afterWriteError, ok, type ReconcileResult, retry } from '../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../runtime/status.ts';
import { kubefedRateLimiter } from '../../runtime/workqueue/index.ts';
import type { FederatedTypeConfigController } from '../../sources/federated/type-config-controller.ts';
import { FederatedTypeMembers } from '../federated-type-members.ts';

/** Which DNSEndpoint API the controllers write: KubeFed's own group, or ExternalDNS's default one. */
export type DnsEndpointGroup = 'multiclusterdns.kubefed.io' | 'externaldns.k8s.io';

export interface DnsControllerOptions {
  host: KubeClient;
  namespace: string;
  config: ResolvedKubeFedConfig;
  /** Whether the record's federated type is enabled. */
  ftcs: FederatedTypeConfigController;
  members: Members;
  endpointGroup: DnsEndpointGroup;
  /** Publish hostname-only load balancers as CNAMEs instead of resolving them to A records. */
  hostnamesAsCname: boolean;
  logger?: Logger;
  /** Hostname → addresses; DNS lookups by default. */
  resolveHost?: (hostname: string) => Promise<string[]>;
}

/** What tells the service and ingress record controllers apart in the shell they share. */
export interface DnsRecordKind {
  /** The controller's name: its queue, metrics, log field and event source. */
  name: 'servicedns' | 'ingressdns';
  recordType: ResourceType;
  recordKind: 'ServiceDNSRecord' | 'IngressDNSRecord';
  /** The DNSEndpoint is named `<endpointPrefix>-<record name>`. */
  endpointPrefix: 'service' | 'ingress';
  /** The FTC of the member objects whose load balancers are published. */
  targetFtc: string;
}

/** A KubeFedCluster as the DNS status decisions see it. */
export interface DnsCluster {
  name: string;
  ready: boolean;
  zones?: string[];
  region?: string;
}

type DomainObject = KubeObject & Domain;

/**
 * What the two multi-cluster DNS controllers (KubeFed v0.6's servicedns / ingressdns + dnsendpoint controllers)
 * do alike: the records and Domains informers, the queue and workers, the member objects of the target type
 * (read from the shared member caches), host name resolution, the DNSEndpoint write and the status write.
 * Each controller's reconcile decides with the pure functions of src/dns.
 */
export class DnsRecordShell<R extends KubeObject> {
  readonly name: string;
  readonly log: Logger;
  readonly records: Informer<R>;
  readonly domains: Informer<DomainObject>;
  /** The managed member objects of the target type, while it is enabled. */
  readonly targets: FederatedTypeMembers;
  /** The namespace watched in a namespaced control plane; undefined for all. */
  readonly scope: string | undefined;
  readonly #opts: DnsControllerOptions;
  readonly #kind: DnsRecordKind;
  readonly #controller: Controller;
  readonly #events: EventRecorder;
  readonly #endpointType: ResourceType;

  constructor(
    opts: DnsControllerOptions,
    kind: DnsRecordKind,
    reconcile: (key: string) => Promise<ReconcileResult>,
  ) {
    this.#opts = opts;
    this.#kind = kind;
    this.name = kind.name;
    this.log = (opts.logger ?? silentLogger).child({ controller: this.name });
    this.scope = opts.config.scope === 'Namespaced' ? opts.namespace : undefined;
    this.#controller = new Controller({
      name: this.name,
      logger: this.log,
      reconcile,
      workers: 2,
      rateLimiter: kubefedRateLimiter(),
    });
    this.#events = new EventRecorder(opts.host, `${this.name}-controller`, this.log);
    this.#endpointType =
      opts.endpointGroup === 'externaldns.k8s.io' ? ExternalDnsEndpointType : DNSEndpointType;
    const everyRecord: EventHandler<KubeObject> = () => {
      const all = () => this.enqueueAll();
      return { onAdd: all, onUpdate: all, onDelete: all };
    };
    this.records = this.#controller.watch<R>(
      { client: opts.host, type: kind.recordType, namespace: this.scope },
      enqueueObject(),
    );
    this.domains = this.#controller.watch<DomainObject>(
      { client: opts.host, type: DomainType, namespace: opts.namespace },
      everyRecord,
    );
    this.targets = new FederatedTypeMembers({
      members: opts.members,
      ftcs: opts.ftcs,
      ftcName: kind.targetFtc,
      onObject: (_cluster, key) => this.enqueueAfter(key, 1000),
      onTypeChange: () => this.enqueueAll(),
    });
  }

  hasSynced(): boolean {
    return this.records.hasSynced() && this.domains.hasSynced();
  }

  enqueueAll(): void {
    for (const r of this.records.store.list()) this.#controller.enqueue(objectKey(r));
  }

  enqueueAfter(key: string, delayMs: number): void {
    this.#controller.enqueue(key, delayMs);
  }

  /**
   * Runs until `signal`; `watches` are the controller's own extra watches, started with the members and
   * stopped after the workers.
   */
  run(signal: AbortSignal, watches?: { start(): void; stop(): Promise<void> }): Promise<void> {
    const readyAtOnce = { waitForSync: async () => {}, hasSynced: () => true };
    this.#controller
      .cache(this.#opts.members.asCache())
      .cache({ ...readyAtOnce, start: () => this.targets.start(), stop: () => this.targets.close() })
      .cache({ ...readyAtOnce, start: () => watches?.start(), stop: async () => watches?.stop() })
      .source(() => this.#opts.members.registry.addListener({ onClusterChange: () => this.enqueueAll() }));
    return this.#controller.run(signal);
  }

  /** Whether the target type's FTC is enabled (its sync controller runs). */
  typeEnabled(): boolean {
    return this.#opts.ftcs.syncController(this.#kind.targetFtc) !== undefined;
  }

  /** The status of a record whose target type is not enabled. */
  typeNotEnabled(record: R): Promise<ReconcileResult> {
    return this.writeStatus(record, undefined, undefined, {
      ready: false,
      reason: 'TypeNotEnabled',
      message: `FederatedTypeConfig "${this.#kind.targetFtc}" is not enabled`,
    });
  }

  /** Every registered member, in registry order. */
  clusters(): DnsCluster[] {
    const registry = this.#opts.members.registry;
    return registry.list().map((c) => ({
      name: c.metadata.name ?? '',
      ready: registry.isReady(c.metadata.name ?? ''),
      zones: c.status?.zones,
      region: c.status?.region,
    }));
  }

  event(record: R, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.#events.record(
      { ...record, apiVersion: API_VERSION, kind: this.#kind.recordKind },
      type,
      reason,
      message,
    );
  }

  /**
   * Publishes `endpoints(resolve)` for a record whose status entries are `dns`: every load balancer host name
   * is resolved first (so the endpoint decisions stay pure), then the DNSEndpoint and the status are written.
   */
  async publish(
    record: R,
    dns: ClusterDns[] | IngressClusterDns[],
    domain: string | undefined,
    problems: string[],
    endpoints: (resolve: Resolve) => Endpoint[],
  ): Promise<ReconcileResult> {
    for (const p of problems) this.event(record, 'Warning', 'InvalidMemberStatus', p);
    let built: Endpoint[];
    try {
      const resolved = await this.#resolveAll(dns);
      built = endpoints((h) => resolved.get(h) ?? []);
    } catch (e) {
      return retry(e);
    }
    const written = await this.#writeEndpoint(record, built);
    if (written.kind !== 'ok') return written;
    return this.writeStatus(record, dns, domain, {
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
          logFailure(this.log, 'cannot resolve load balancer hostname', {
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

  async #writeEndpoint(record: R, endpoints: Endpoint[]): Promise<ReconcileResult> {
    const host = this.#opts.host;
    const name = dnsEndpointName(this.#kind.endpointPrefix, record.metadata.name ?? '');
    const namespace = record.metadata.namespace;
    const t = this.#endpointType;
    const apiVersion = apiVersionOf(t);
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
                kind: this.#kind.recordKind,
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

  async writeStatus(
    record: R,
    dns: ClusterDns[] | IngressClusterDns[] | undefined,
    domain: string | undefined,
    cond: RecordOutcome,
  ): Promise<ReconcileResult> {
    const w = await writeStatusIfChanged({
      client: this.#opts.host,
      type: this.#kind.recordType,
      typeMeta: { apiVersion: API_VERSION, kind: this.#kind.recordKind },
      object: record,
      compute: (current) => {
        const prev = current.status as RecordStatus | undefined;
        const status = nextRecordStatus(prev, { dns, domain, outcome: cond }, new Date());
        return { status, changed: !jsonEqual(status, prev ?? {}) };
      },
    });
    return statusWriteResult(w);
  }
}
