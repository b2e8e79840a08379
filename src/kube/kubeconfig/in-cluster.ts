import { existsSync, readFileSync } from 'node:fs';
import type { RestConfig } from './rest-config.ts';

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** True inside a pod with a mounted service-account token. */
export function isInCluster(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && existsSync(`${SA_DIR}/token`));
}

/** client-go's InClusterConfig: the service host/port and the projected token, re-read as it rotates. */
export function inClusterRestConfig(env: NodeJS.ProcessEnv = process.env): RestConfig {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  return {
    contextName: 'in-cluster',
    clusterName: 'in-cluster',
    userName: 'in-cluster',
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    caData: readFileSync(`${SA_DIR}/ca.crt`),
    tokenFile: `${SA_DIR}/token`,
    insecureSkipTLSVerify: false,
  };
}

/** The pod's namespace, used when --kubefed-namespace is not given. */
export function inClusterNamespace(): string | undefined {
  try {
    return readFileSync(`${SA_DIR}/namespace`, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
