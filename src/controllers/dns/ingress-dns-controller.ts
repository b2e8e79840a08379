import { type IngressDNSRecord, IngressDNSRecordType } from '../../api/multiclusterdns/v1alpha1/index.ts';
import { ingressEndpoints } from '../../dns/endpoints.ts';
import { ingressDnsStatus } from '../../dns/service-status.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import type { Runnable } from '../../runtime/manager.ts';
import { ok, type ReconcileResult } from '../../runtime/reconcile.ts';
import { type DnsControllerOptions, DnsRecordShell } from './record-shell.ts';

type IngressRecordObject = KubeObject & IngressDNSRecord;

/**
 * IngressDNSRecord (KubeFed v0.6's ingressdns + dnsendpoint controllers): collects the load balancer of each
 * member's federated Ingress into the record's status, then writes the DNSEndpoint `ingress-<name>` with the
 * record's hosts that ExternalDNS publishes.
 */
export class IngressDnsController implements Runnable {
  readonly name = 'ingressdns';
  readonly leaderOnly = true;
  readonly #opts: DnsControllerOptions;
  readonly #shell: DnsRecordShell<IngressRecordObject>;

  constructor(opts: DnsControllerOptions) {
    this.#opts = opts;
    this.#shell = new DnsRecordShell<IngressRecordObject>(
      opts,
      {
        name: this.name,
        recordType: IngressDNSRecordType,
        recordKind: 'IngressDNSRecord',
        endpointPrefix: 'ingress',
        targetFtc: 'ingresses.networking.k8s.io',
      },
      (key) => this.reconcile(key),
    );
  }

  hasSynced(): boolean {
    return this.#shell.hasSynced();
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#shell.run(signal);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const shell = this.#shell;
    const cached = shell.records.store.get(key);
    // The DNSEndpoint is owned by the record: garbage collection removes it with the record.
    if (!cached) return ok();
    const record = structuredClone(cached);
    if (!shell.typeEnabled()) return shell.typeNotEnabled(record);
    const { dns, problems } = ingressDnsStatus({
      clusters: shell.clusters().map((c) => ({
        name: c.name,
        ready: c.ready,
        ingress: shell.targets.get(c.name, key),
      })),
      previous: record.status?.dns,
    });
    const spec = record.spec;
    return shell.publish(record, dns, undefined, problems, (resolve) =>
      ingressEndpoints({
        hosts: spec?.hosts ?? [],
        ttl: spec?.recordTTL,
        dns,
        resolve,
        hostnamesAsCname: this.#opts.hostnamesAsCname,
      }),
    );
  }
}
