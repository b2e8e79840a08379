import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { REPO_ROOT } from '../paths.ts';

export type Binary =
  | 'kube-apiserver'
  | 'kube-controller-manager'
  | 'kube-scheduler'
  | 'kubectl'
  | 'etcd'
  | 'kwok'
  | 'kwokctl'
  | DnsBinary;

/**
 * The DNS test tools: ExternalDNS built from Go modules, BIND9 and PowerDNS Authoritative (with its SQLite
 * backend) from the Debian packages.
 */
export type DnsBinary = 'external-dns' | 'named' | 'dig' | 'pdns_server';

/**
 * Which ExternalDNS build: `current` is the latest release (v0.22.0); `legacy` (v0.20.0) is the last one
 * that honours --crd-source-apiversion/--crd-source-kind, so the only one that can read KubeFed's
 * multiclusterdns.kubefed.io DNSEndpoints (kubernetes-sigs/external-dns#6414). Pins: hack/install-dns-tools.sh.
 */
export type ExternalDnsBuild = 'current' | 'legacy';

let cached: string | undefined;
const cachedDns = new Map<ExternalDnsBuild, string>();

/** Runs an installer script and returns the directory it prints on its last stdout line. */
function runInstaller(script: string, mustHave: string, args: string[] = []): string {
  const out = execFileSync('bash', [join(REPO_ROOT, 'hack', script), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const dir = out.trim().split('\n').at(-1) ?? '';
  if (!existsSync(join(dir, mustHave))) throw new Error(`${script} printed no usable bin dir: "${dir}"`);
  return dir;
}

/**
 * The directory with the Kubernetes binaries: KUBEFED_TS_BIN_DIR when it is complete, otherwise the
 * versioned cache filled by hack/install-k8s-binaries.sh (which this runs; it is a no-op when cached).
 */
export function binDir(): string {
  cached ??= runInstaller('install-k8s-binaries.sh', 'kube-apiserver');
  return cached;
}

/**
 * The directory with one ExternalDNS build and its own DNSEndpoint CRD, filled by
 * hack/install-dns-tools.sh — which also makes sure named, dig and pdns_server are installed (a no-op when
 * they are).
 */
export function dnsToolsDir(build: ExternalDnsBuild = 'current'): string {
  let dir = cachedDns.get(build);
  if (!dir) {
    dir = runInstaller('install-dns-tools.sh', 'external-dns', ['--only', build]);
    cachedDns.set(build, dir);
  }
  return dir;
}

/** The external-dns binary of a build. */
export function externalDnsBinary(build: ExternalDnsBuild = 'current'): string {
  return join(dnsToolsDir(build), 'external-dns');
}

/** ExternalDNS's `config/crd/standard/dnsendpoints.externaldns.k8s.io.yaml`, as released with that build. */
export function externalDnsCrdFile(build: ExternalDnsBuild = 'current'): string {
  return join(dnsToolsDir(build), 'dnsendpoints.externaldns.k8s.io.yaml');
}

let cachedKubefed: string | undefined;

/**
 * The directory with KubeFed v0.10.0's own controller-manager and its CRD and FTC manifests (crds.yaml,
 * federated-crds.yaml, federatedtypeconfig.yaml), filled by hack/install-kubefed.sh (a no-op when cached).
 * The benchmark runs it side by side with kubefed-ts.
 */
export function kubefedDir(): string {
  cachedKubefed ??= runInstaller('install-kubefed.sh', 'controller-manager');
  return cachedKubefed;
}

let cachedHelm: string | undefined;

/** Helm (v3, built from its Go module by hack/install-helm.sh, a no-op when cached), for the chart tests. */
export function helmBinary(): string {
  cachedHelm ??= runInstaller('install-helm.sh', 'helm');
  return join(cachedHelm, 'helm');
}

/**
 * named, dig and pdns_server come from Debian packages: named and pdns_server are in /usr/sbin, which a
 * non-root PATH may lack.
 */
function systemBinary(name: string): string {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/bin'];
  const found = dirs
    .filter(Boolean)
    .map((d) => join(d, name))
    .find((f) => existsSync(f));
  if (!found)
    throw new Error(`${name} not found on PATH or in /usr/sbin (hack/install-dns-tools.sh installs it)`);
  return found;
}

export function binary(name: Binary): string {
  switch (name) {
    case 'external-dns':
      return externalDnsBinary('current');
    case 'named':
    case 'dig':
    case 'pdns_server':
      dnsToolsDir();
      return systemBinary(name);
    default:
      return join(binDir(), name);
  }
}
