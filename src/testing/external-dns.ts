import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { type ExternalDnsBuild, externalDnsBinary } from './binaries.ts';
import type { BindServer } from './bind.ts';
import type { PowerDnsServer } from './pdns.ts';
import { freePort, waitFor } from './ports.ts';
import { ManagedProcess } from './process.ts';

/** The zone server ExternalDNS writes to: a BIND (rfc2136 provider) or a PowerDNS (pdns provider). */
export type ExternalDnsTarget =
  | { bind: BindServer; powerDns?: never }
  | { powerDns: PowerDnsServer; bind?: never };

export type ExternalDnsOptions = ExternalDnsCommonOptions & ExternalDnsTarget;

export interface ExternalDnsCommonOptions {
  /** `current` (v0.22.0, default) or `legacy` (v0.20.0, the last that honours apiVersion/kind). */
  build?: ExternalDnsBuild;
  /** An admin kubeconfig for the cluster whose DNSEndpoint objects are the source. */
  kubeconfig: string;
  /** Context to use; ExternalDNS has no --context flag, so a copy of the kubeconfig selects it. */
  context?: string;
  /**
   * `--crd-source-apiversion`, e.g. `externaldns.k8s.io/v1alpha1` or `multiclusterdns.kubefed.io/v1alpha1`.
   */
  apiVersion: string;
  /** `--crd-source-kind`; DNSEndpoint by default. */
  kind?: string;
  /** Watch only this namespace (all by default). */
  namespace?: string;
  /** `--txt-owner-id`: each instance sharing a zone needs its own. */
  ownerId: string;
  logFile: string;
  /** Full resync period; default 2 s (changes are also picked up by events within about a second). */
  intervalSeconds?: number;
  logLevel?: 'debug' | 'info' | 'warning' | 'error';
  /** Wait for the first successful sync before returning (default true). */
  waitForSync?: boolean;
  /**
   * `--registry`: `txt` (default) records ownership in TXT records; `noop` records none, so the zone holds
   * only the sources' records (TXT records of its own, e.g. a version record, stay unambiguous).
   */
  registry?: 'txt' | 'noop';
  /** `--managed-record-types`, once per type; ExternalDNS's default (A, AAAA, CNAME) when absent. */
  managedRecordTypes?: string[];
  extraArgs?: string[];
}

export interface ExternalDns {
  process: ManagedProcess;
  /** `http://127.0.0.1:<port>`: /healthz and /metrics. */
  metricsUrl: string;
  /** Resolves once a sync completes after this call: "ExternalDNS has seen the current state". */
  waitForNextSync(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** `external_dns_controller_last_sync_timestamp_seconds`: 0 until a sync against the provider succeeds. */
async function lastSync(metricsUrl: string): Promise<number> {
  const res = await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(2000) });
  const text = await res.text();
  const m = /^external_dns_controller_last_sync_timestamp_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text);
  return m?.[1] ? Number(m[1]) : 0;
}

/**
 * The provider flags: rfc2136 as ExternalDNS's rfc2136 tutorial (docs/tutorials/rfc2136.md) says, or pdns
 * as its PowerDNS tutorial (docs/tutorials/pdns.md) does. Secrets go by environment (returned separately).
 */
function providerFlags(
  target: ExternalDnsTarget,
  build: ExternalDnsBuild,
): { args: string[]; env: Record<string, string> } {
  if (target.powerDns) {
    const pdns = target.powerDns;
    return {
      args: ['--provider=pdns', `--pdns-server=${pdns.apiUrl}`, `--domain-filter=${pdns.zone}`],
      env: { EXTERNAL_DNS_PDNS_API_KEY: pdns.apiKey },
    };
  }
  const bind = target.bind;
  return {
    args: [
      '--provider=rfc2136',
      '--rfc2136-host=127.0.0.1',
      `--rfc2136-port=${bind.port}`,
      `--rfc2136-zone=${bind.zone}`,
      `--rfc2136-tsig-keyname=${bind.keyName}`,
      `--rfc2136-tsig-secret-alg=${bind.algorithm}`,
      // Without it ExternalDNS cannot read the zone and behaves as create-only (v0.20 only has the old name).
      build === 'legacy' ? '--rfc2136-tsig-axfr' : '--rfc2136-axfr',
      `--domain-filter=${bind.zone}`,
    ],
    env: { EXTERNAL_DNS_RFC2136_TSIG_SECRET: bind.secret },
  };
}

/**
 * A real ExternalDNS (hack/install-dns-tools.sh builds v0.22.0 and v0.20.0) with the CRD source, pointed at
 * a BIND from startBind (rfc2136 provider) or a PowerDNS from startPowerDns (pdns provider), with test
 * timings. It owns the whole zone (`--policy=sync`): records it no longer finds in the source are deleted —
 * except, with rfc2136, SRV records, which that provider never reads back (its Records() skips the type), so
 * it adds them and never updates or deletes them; pdns reads every rrset back.
 */
export async function startExternalDns(opts: ExternalDnsOptions): Promise<ExternalDns> {
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}`;
  let kubeconfig = opts.kubeconfig;
  if (opts.context) {
    const kc = parse(readFileSync(opts.kubeconfig, 'utf8')) as Record<string, unknown>;
    kc['current-context'] = opts.context;
    kubeconfig = join(dirname(opts.logFile), `external-dns-${opts.ownerId}.kubeconfig`);
    writeFileSync(kubeconfig, stringify(kc), { mode: 0o600 });
  }
  const build = opts.build ?? 'current';
  const provider = providerFlags(opts, build);
  const args = [
    `--kubeconfig=${kubeconfig}`,
    '--source=crd',
    `--crd-source-apiversion=${opts.apiVersion}`,
    `--crd-source-kind=${opts.kind ?? 'DNSEndpoint'}`,
    ...(opts.namespace ? [`--namespace=${opts.namespace}`] : []),
    ...provider.args,
    // v0.22 has no default policy any more (v0.20's was sync).
    '--policy=sync',
    `--registry=${opts.registry ?? 'txt'}`,
    `--txt-owner-id=${opts.ownerId}`,
    ...(opts.managedRecordTypes ?? []).map((t) => `--managed-record-types=${t}`),
    `--interval=${opts.intervalSeconds ?? 2}s`,
    '--events',
    // Events are rate-limited to one sync per 5 s by default; tests want changes seen quickly.
    '--min-event-sync-interval=1s',
    `--metrics-address=127.0.0.1:${metricsPort}`,
    `--log-level=${opts.logLevel ?? 'info'}`,
    ...(opts.extraArgs ?? []),
  ];
  const proc = ManagedProcess.start(`external-dns-${opts.ownerId}`, externalDnsBinary(build), args, {
    logFile: opts.logFile,
    // The secret goes by environment, not argv, so it stays out of `ps` and of logged command lines.
    env: { ...process.env, ...provider.env },
  });

  const waitForNextSync = async (timeoutMs = 60_000) => {
    // The gauge has sub-second precision, so "after this call" is exact.
    const since = Date.now() / 1000;
    await waitFor(
      `external-dns ${opts.ownerId} to sync`,
      async () => {
        if (!proc.running) throw new Error(`external-dns exited:\n${proc.tail()}`);
        return (await lastSync(metricsUrl)) > since;
      },
      { timeoutMs, intervalMs: 250, describe: () => proc.tail() },
    );
  };
  const stop = () => proc.stop();
  if (opts.waitForSync ?? true) {
    try {
      await waitForNextSync();
    } catch (e) {
      await stop();
      throw e;
    }
  }
  return { process: proc, metricsUrl, waitForNextSync, stop };
}
