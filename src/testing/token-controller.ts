import {
  CoreTypes,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../kube/client/index.ts';
import { waitFor } from './ports.ts';

const PROBE = 'kubefed-ts-harness-token-probe';
const PROBE_NAMESPACE = 'kube-system';

/**
 * Waits until the cluster's service-account token controller fills a token Secret, so that `kubefedctl
 * join` against it cannot time out: a started kube-controller-manager is not yet a working token
 * controller, since it starts its informers only once every enabled controller is built
 * (cmd/kube-controller-manager/app/controllermanager.go: Run, BuildControllers, then
 * InformerFactory.Start), which with all controllers on a busy machine takes seconds. The probe account
 * and Secret are deleted again.
 */
export async function waitForTokenController(
  client: KubeClient,
  opts: { timeoutMs: number; describe: () => string },
): Promise<void> {
  await waitFor(
    'the token controller to fill a service-account token Secret',
    async () => {
      await createIfMissing(client, CoreTypes.serviceAccounts, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: PROBE, namespace: PROBE_NAMESPACE },
      });
      // Created again when the token controller deleted it (its account not in its cache yet).
      await createIfMissing(client, CoreTypes.secrets, {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/service-account-token',
        metadata: {
          name: PROBE,
          namespace: PROBE_NAMESPACE,
          annotations: { 'kubernetes.io/service-account.name': PROBE },
        },
      } as KubeObject);
      const secret = await client.get<KubeObject & { data?: Record<string, string> }>(
        CoreTypes.secrets,
        PROBE,
        PROBE_NAMESPACE,
      );
      return Boolean(secret.data?.token);
    },
    { timeoutMs: opts.timeoutMs, intervalMs: 250, describe: opts.describe },
  );
  // The token controller deletes the account's token Secret with it.
  await client.delete(CoreTypes.serviceAccounts, PROBE, { namespace: PROBE_NAMESPACE }).catch(ignoreNotFound);
  await client.delete(CoreTypes.secrets, PROBE, { namespace: PROBE_NAMESPACE }).catch(ignoreNotFound);
}

async function createIfMissing(
  client: KubeClient,
  type: typeof CoreTypes.secrets | typeof CoreTypes.serviceAccounts,
  obj: KubeObject,
): Promise<void> {
  try {
    await client.get(type, obj.metadata.name ?? '', obj.metadata.namespace);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    await client.create(type, obj).catch((c: unknown) => {
      if (!isAlreadyExists(c)) throw c;
    });
  }
}

function ignoreNotFound(e: unknown): void {
  if (!isNotFound(e)) throw e;
}
