import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import {
  CoreTypes,
  isAlreadyExists,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import { entryPointScript } from '../paths.ts';
import { webhookConfigurations } from '../webhook/index.ts';
import { CA_CERT_FILE } from '../webhook/main.ts';
import { freePort, waitFor } from './ports.ts';
import { ManagedProcess } from './process.ts';

export interface AdmissionWebhookProcess {
  process: ManagedProcess;
  /** Base URL the API server calls, e.g. https://127.0.0.1:41234. */
  url: string;
  /** PEM of the CA that signed the serving certificate (the webhook configurations' caBundle). */
  caCert: string;
}

function readyz(port: number, ca: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/readyz', ca, agent: false, timeout: 2000 },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/**
 * Starts `kubefed-admission-webhook` on loopback with a self-signed certificate generated into
 * `<dir>/serving-cert` (its `--generate-self-signed-certs`), and waits until it serves /readyz over TLS.
 */
export async function startAdmissionWebhook(opts: {
  dir: string;
  logFile: string;
  /** The command to run instead of this clone's entry point on this Node, e.g. an installed package's bin. */
  command?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * The host's kubeconfig (its current context): the webhook reads FederatedTypeConfigs through it to set the
   * sync finalizer at admission, and checks OCM executors with it. Without it the webhook only validates.
   */
  kubeconfig?: string;
  /** The KubeFed namespace whose FederatedTypeConfigs and KubeFedConfig it reads; the webhook's default otherwise. */
  kubefedNamespace?: string;
}): Promise<AdmissionWebhookProcess> {
  const port = await freePort();
  const certDir = join(opts.dir, 'serving-cert');
  const proc = ManagedProcess.start(
    'kubefed-admission-webhook',
    opts.command ?? process.execPath,
    [
      ...(opts.command ? [] : [entryPointScript('webhook')]),
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      `--cert-dir=${certDir}`,
      '--generate-self-signed-certs',
      ...(opts.kubeconfig ? [`--kubeconfig=${opts.kubeconfig}`] : []),
      ...(opts.kubefedNamespace ? [`--kubefed-namespace=${opts.kubefedNamespace}`] : []),
    ],
    { logFile: opts.logFile, env: opts.env && { ...process.env, ...opts.env }, cwd: opts.cwd },
  );
  let caCert = '';
  await waitFor(
    'kubefed-admission-webhook to serve /readyz',
    async () => {
      if (!proc.running) throw new Error(`kubefed-admission-webhook exited:\n${proc.tail()}`);
      try {
        caCert ||= readFileSync(join(certDir, CA_CERT_FILE), 'utf8');
      } catch {
        return false;
      }
      return readyz(port, caCert);
    },
    { timeoutMs: 60_000, describe: () => proc.tail() },
  );
  return { process: proc, url: `https://127.0.0.1:${port}`, caCert };
}

/** Registers the webhook configurations (validation, defaulting, the sync finalizer) pointing at `url`. */
export async function registerAdmissionWebhooks(
  client: KubeClient,
  webhook: Pick<AdmissionWebhookProcess, 'url' | 'caCert'>,
): Promise<void> {
  const { validating, mutating } = webhookConfigurations({
    caBundle: Buffer.from(webhook.caCert).toString('base64'),
    url: webhook.url,
  });
  // Plain JSON objects; the client's KubeObject wants an index signature, so go through JSON once.
  const objects: Array<[ResourceType, KubeObject]> = [
    [CoreTypes.validatingWebhookConfigurations, JSON.parse(JSON.stringify(validating)) as KubeObject],
    [CoreTypes.mutatingWebhookConfigurations, JSON.parse(JSON.stringify(mutating)) as KubeObject],
  ];
  for (const [type, obj] of objects) {
    try {
      await client.create(type, obj);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await client.get(type, obj.metadata.name ?? '');
      await client.update(type, {
        ...obj,
        metadata: { ...obj.metadata, resourceVersion: existing.metadata.resourceVersion },
      });
    }
  }
}
