// The kubefed-admission-webhook command: KubeFed's flags, plus --bind-address and
// --generate-self-signed-certs for running it outside a cluster.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from '@commander-js/extra-typings';
import { DEFAULT_KUBEFED_NAMESPACE } from '../config/index.ts';
import { KubeClient } from '../kube/client/index.ts';
import {
  inClusterNamespace,
  inClusterRestConfig,
  isInCluster,
  loadKubeconfig,
  type RestConfig,
  restConfigForContext,
} from '../kube/kubeconfig/index.ts';
import type { JsonObject } from '../propagation/json.ts';
import { createLogger, type Logger } from '../runtime/logger.ts';
import { signalsHandler } from '../runtime/manager.ts';
import { VERSION } from '../version.ts';
import { WebhookPath } from './admission.ts';
import { generateWebhookCertificates } from './certs.ts';
import { ControlPlaneInformers } from './control-plane-informers.ts';
import { type OcmAdmissionOptions, OcmWebhookPath } from './ocm-admission.ts';
import { PolicyInformers } from './policy-informers.ts';
import { TLS_CERT_FILE, TLS_KEY_FILE, WebhookServer } from './server.ts';
import { DEFAULT_MANIFEST_LIMIT } from './validation/manifestwork.ts';

export const COMPONENT = 'kubefed-admission-webhook';
export const CA_CERT_FILE = 'ca.crt';

interface Options {
  securePort: number;
  certDir: string;
  bindAddress: string;
  generateSelfSignedCerts: boolean;
  kubeconfig?: string;
  master?: string;
  kubefedNamespace?: string;
  manifestLimit: number;
  v: number;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new Error(`--secure-port: not a port number: ${value}`);
  return n;
}

function buildCommand() {
  return new Command(COMPONENT)
    .description(
      'Admission webhooks of kubefed-ts: validation of KubeFed objects and KubeFedConfig defaults.',
    )
    .addOption(
      new Option('--secure-port <port>', 'port the HTTPS webhook server listens on')
        .default(8443)
        .argParser(parsePort),
    )
    .option(
      '--cert-dir <dir>',
      'directory with the serving certificate, tls.crt and tls.key (a kubernetes.io/tls Secret); reloaded when the files change',
      '/var/serving-cert',
    )
    .option(
      '--bind-address <ip>',
      'address to listen on; empty means every IPv4 and IPv6 address, as Go\'s ":8443" (kubefed-ts extension)',
      '',
    )
    .option(
      '--generate-self-signed-certs',
      'when tls.crt/tls.key are missing, generate a CA and a certificate for localhost and 127.0.0.1 into --cert-dir ' +
        '(ca.crt is the caBundle to register; kubefed-ts extension, for local use)',
      false,
    )
    .option(
      '--kubeconfig <path>',
      "kubeconfig of the host, for OCM's executor check (a SubjectAccessReview), the sync finalizer and the template claim at admission; default: in-cluster config",
    )
    .option(
      '--kubefed-namespace <ns>',
      `namespace of the KubeFed control plane, whose FederatedTypeConfigs and KubeFedConfig decide which Federated<Kind> objects get the sync finalizer at admission (default: the pod namespace, else ${DEFAULT_KUBEFED_NAMESPACE}; kubefed-ts extension)`,
    )
    .option('--master <url>', 'API server address; overrides the kubeconfig')
    .addOption(
      new Option(
        '--manifest-limit <bytes>',
        "largest total size of a ManifestWork's manifests (OCM's --manifestLimit)",
      )
        .default(DEFAULT_MANIFEST_LIMIT)
        .argParser(parseLimit),
    )
    .addOption(new Option('-v, --v <level>', 'log verbosity (0 info, 1+ debug)').default(0).argParser(Number))
    .version(`kubefed-ts ${VERSION}`, '--version');
}

function parseLimit(value: string): number {
  if (!/^\d+$/.test(value)) throw new Error(`--manifest-limit: not a number of bytes: ${value}`);
  return Number(value);
}

/** The host's REST config when one is given or the webhook runs in a pod; otherwise no API access. */
function hostRestConfig(o: Options): RestConfig | undefined {
  let cfg: RestConfig;
  if (o.kubeconfig) cfg = restConfigForContext(loadKubeconfig({ kubeconfig: o.kubeconfig }));
  else if (isInCluster()) cfg = inClusterRestConfig();
  else if (o.master) cfg = restConfigForContext(loadKubeconfig({}));
  else return undefined;
  return o.master ? { ...cfg, server: o.master.replace(/\/+$/, '') } : cfg;
}

/** OCM's work webhook options: the limit, and SubjectAccessReviews through the host client. */
function ocmOptions(o: Options, host: KubeClient | undefined): OcmAdmissionOptions {
  return {
    manifestLimit: o.manifestLimit,
    reviewAccess: async (review: JsonObject) => {
      if (!host)
        throw new Error('the webhook has no API access to check the executor (run it with --kubeconfig)');
      const answer = await host.request<{ status?: { allowed?: boolean } }>(
        'POST',
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        { body: review },
      );
      return answer.status?.allowed === true;
    },
  };
}

/** Writes a fresh CA and serving certificate unless both files are there already. */
function ensureSelfSignedCertificates(certDir: string, log: Logger): void {
  if (existsSync(join(certDir, TLS_CERT_FILE)) && existsSync(join(certDir, TLS_KEY_FILE))) return;
  mkdirSync(certDir, { recursive: true });
  const certs = generateWebhookCertificates({
    dnsNames: ['localhost', hostname()],
    ipAddresses: ['127.0.0.1', '::1'],
  });
  writeFileSync(join(certDir, CA_CERT_FILE), certs.caCert);
  writeFileSync(join(certDir, TLS_KEY_FILE), certs.key, { mode: 0o600 });
  writeFileSync(join(certDir, TLS_CERT_FILE), certs.cert);
  log.info({ ca: join(certDir, CA_CERT_FILE) }, 'generated a self-signed serving certificate');
}

/** Serves the webhooks until SIGTERM/SIGINT; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const cmd = buildCommand();
  cmd.parse(argv);
  const o: Options = cmd.opts();
  const log = createLogger({ name: COMPONENT, level: o.v > 0 ? 'debug' : undefined });
  let server: WebhookServer;
  let host: KubeClient | undefined;
  let controlPlane: ControlPlaneInformers | undefined;
  let policies: PolicyInformers | undefined;
  try {
    const cfg = hostRestConfig(o);
    host = cfg && new KubeClient(cfg, { name: 'host', userAgent: COMPONENT });
    if (!host) {
      log.info(
        'no API access configured: a ManifestWork naming an executor will be denied, and Federated<Kind> ' +
          'objects get the sync finalizer from the controller instead of at admission',
      );
    } else {
      const namespace = o.kubefedNamespace || inClusterNamespace() || DEFAULT_KUBEFED_NAMESPACE;
      controlPlane = new ControlPlaneInformers({ host, namespace, logger: log });
      controlPlane.start();
      policies = new PolicyInformers({ host, kubefedNamespace: namespace, logger: log });
      policies.start();
    }
    if (o.generateSelfSignedCerts) ensureSelfSignedCertificates(o.certDir, log);
    const informers = controlPlane;
    const policyInformers = policies;
    server = await WebhookServer.start({
      certDir: o.certDir,
      host: o.bindAddress,
      port: o.securePort,
      logger: log,
      ocm: ocmOptions(o, host),
      ...(informers ? { controlPlane: () => informers.view() } : {}),
      ...(policyInformers ? { policies: () => policyInformers.view() } : {}),
    });
  } catch (e) {
    const message = (e as Error).message;
    log.fatal(message);
    process.stderr.write(`Error: ${message}\n`);
    await controlPlane?.stop();
    await policies?.stop();
    await host?.close();
    return 1;
  }
  const { address, port } = server.address;
  log.info(
    {
      address,
      port,
      certDir: o.certDir,
      paths: [...Object.values(WebhookPath), ...Object.values(OcmWebhookPath)],
    },
    'serving admission webhooks',
  );
  const signal = signalsHandler(log);
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  await server.close();
  await controlPlane?.stop();
  await policies?.stop();
  await host?.close();
  log.info('stopped');
  return 0;
}
