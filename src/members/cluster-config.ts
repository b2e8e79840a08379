import type { KubeFedCluster } from '../api/core/v1beta1/index.ts';
import { baseServerUrl } from '../kube/client/server-url.ts';
import { ClusterConfigError } from '../kube/kubeconfig/errors.ts';
import { type RestConfig, restConfigFromParts } from '../kube/kubeconfig/index.ts';

export { ClusterConfigError };

/**
 * Parses `spec.apiEndpoint` the way client-go's DefaultServerURL does for KubeFed: host, host:port, IP,
 * IP:port or a URL; no scheme means https; only http/https. A URL may have a path (a proxy such as Rancher's
 * `https://host/k8s/clusters/<id>`): it prefixes every request to the member. A path without a scheme is
 * refused with client-go's message; a query or fragment is dropped, as client-go's NewRESTClient drops it.
 */
export function parseApiEndpoint(endpoint: string): string {
  const raw = endpoint.trim();
  if (!raw) throw new ClusterConfigError('apiEndpoint is empty: want a URL or a host:port pair');
  const hasScheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(raw);
  let url: URL;
  try {
    url = new URL(hasScheme ? raw : `https://${raw}`);
  } catch {
    throw new ClusterConfigError(`apiEndpoint "${endpoint}" is not a URL or a host:port pair`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ClusterConfigError(
      `apiEndpoint "${endpoint}" has scheme "${url.protocol.slice(0, -1)}": want http or https`,
    );
  }
  if (!url.hostname) throw new ClusterConfigError(`apiEndpoint "${endpoint}" has no host`);
  if (!hasScheme && url.pathname !== '/' && url.pathname !== '') {
    throw new ClusterConfigError(
      `apiEndpoint "${endpoint}": host must be a URL or a host:port pair: ${JSON.stringify(endpoint)}`,
    );
  }
  return baseServerUrl(url);
}

/** The parts of a member's token Secret that the control plane uses. */
export interface ClusterSecret {
  metadata: { name?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

/**
 * Builds the client configuration of a member from its KubeFedCluster and token Secret
 * (KubeFed's BuildClusterConfig): bearer token from the Secret's `token` key, CA from `caBundle`,
 * TLS relaxations from `disabledTLSValidations`, proxy from `proxyURL`.
 */
export function buildClusterRestConfig(
  cluster: KubeFedCluster,
  secret: ClusterSecret | undefined,
): RestConfig {
  const name = cluster.metadata?.name ?? '';
  const spec = cluster.spec;
  const server = parseApiEndpoint(spec.apiEndpoint ?? '');
  const secretName = spec.secretRef?.name;
  if (!secretName) throw new ClusterConfigError('spec.secretRef.name is empty');
  if (!secret) {
    throw new ClusterConfigError(
      `secret "${secretName}" not found in namespace "${cluster.metadata?.namespace ?? ''}"`,
    );
  }
  const tokenB64 = secret.data?.token;
  if (!tokenB64) throw new ClusterConfigError(`secret "${secretName}" has no "token" key`);
  const token = Buffer.from(tokenB64, 'base64').toString('utf8').trim();
  if (!token) throw new ClusterConfigError(`secret "${secretName}" has an empty "token"`);

  let caData: Buffer | undefined;
  if (spec.caBundle) {
    caData = Buffer.from(spec.caBundle, 'base64');
    if (!caData.toString('utf8').includes('-----BEGIN CERTIFICATE-----')) {
      throw new ClusterConfigError('caBundle does not hold a PEM certificate');
    }
  }
  const disabled = spec.disabledTLSValidations ?? [];
  if (disabled.includes('*') && disabled.length > 1) {
    throw new ClusterConfigError('disabledTLSValidations: "*" must be the only item');
  }
  let config: RestConfig;
  try {
    // The kubeconfig layer's constructor also checks the proxy URL; its errors become this cluster's.
    config = restConfigFromParts({
      name,
      server,
      caData,
      token,
      insecureSkipTLSVerify: disabled.includes('*'),
      proxyUrl: spec.proxyURL,
    });
  } catch (e) {
    throw new ClusterConfigError((e as Error).message);
  }
  return { ...config, skipServerNameCheck: disabled.includes('SubjectName') };
}
