import { readFileSync } from 'node:fs';
import { dropUndefined } from '../../util/drop-undefined.ts';
import { cleanPathPrefix } from '../client/server-url.ts';
import { describeFsError, KubeconfigError } from './errors.ts';
import type { AuthInfo, ExecConfig, MergedKubeconfig } from './types.ts';

/** Everything needed to talk to one API server, resolved from a kubeconfig context or a KubeFedCluster. */
export type RestConfig = {
  contextName: string;
  clusterName: string;
  userName: string;
  /** Base URL without a trailing slash. */
  server: string;
  namespace?: string;
  caData?: Buffer;
  certData?: Buffer;
  keyData?: Buffer;
  token?: string;
  /** Re-read by the transport; when readable its content takes precedence over `token` (as in client-go). */
  tokenFile?: string;
  username?: string;
  password?: string;
  insecureSkipTLSVerify: boolean;
  tlsServerName?: string;
  /** Skip only the hostname check of the server certificate (KubeFed's disabledTLSValidations: SubjectName). */
  skipServerNameCheck?: boolean;
  proxyUrl?: string;
  /** Raw exec stanza for credential plugins; resolve with resolveExecCredential. */
  exec?: ExecConfig;
};

/**
 * Resolves a context (default: current-context) into a RestConfig. File-based CA/cert/key are read here,
 * `-data` fields are base64-decoded.
 */
export function restConfigForContext(cfg: MergedKubeconfig, contextName?: string): RestConfig {
  const name = contextName || cfg.currentContext;
  if (!name) {
    throw new KubeconfigError(
      'ContextNotFound',
      'no context given and current-context is not set in the kubeconfig (use --context)',
    );
  }
  const context = cfg.contexts.get(name);
  if (!context)
    throw new KubeconfigError('ContextNotFound', `context "${name}" does not exist in the kubeconfig`);

  const clusterName = context.cluster ?? '';
  if (!clusterName) throw invalid(`context "${name}" does not name a cluster`);
  const cluster = cfg.clusters.get(clusterName);
  if (!cluster) {
    throw new KubeconfigError(
      'NotFound',
      `cluster "${clusterName}" (used by context "${name}") does not exist in the kubeconfig`,
    );
  }
  const userName = context.user ?? '';
  let user: AuthInfo = {};
  if (userName) {
    const found = cfg.users.get(userName);
    if (!found) {
      throw new KubeconfigError(
        'NotFound',
        `user "${userName}" (used by context "${name}") does not exist in the kubeconfig`,
      );
    }
    user = found;
  }

  const ofCluster = `of cluster "${clusterName}"`;
  const ofUser = `of user "${userName}"`;
  const caData = bytes(
    cluster['certificate-authority-data'],
    cluster['certificate-authority'],
    `certificate-authority ${ofCluster}`,
  );
  const insecureSkipTLSVerify = cluster['insecure-skip-tls-verify'] === true;
  if (insecureSkipTLSVerify && caData) {
    throw invalid(
      `cluster "${clusterName}": certificate-authority cannot be used with insecure-skip-tls-verify`,
    );
  }
  const certData = bytes(
    user['client-certificate-data'],
    user['client-certificate'],
    `client-certificate ${ofUser}`,
  );
  const keyData = bytes(user['client-key-data'], user['client-key'], `client-key ${ofUser}`);
  if (certData && !keyData) throw invalid(`user "${userName}" has a client-certificate but no client-key`);
  if (keyData && !certData) throw invalid(`user "${userName}" has a client-key but no client-certificate`);

  let token = user.token || undefined;
  const provider = user['auth-provider'];
  if (provider) {
    // Only a still-valid OIDC id-token can be used without the legacy provider plugins (removed from kubectl).
    const idToken = provider.name === 'oidc' ? provider.config?.['id-token'] : undefined;
    if (!idToken) {
      throw new KubeconfigError(
        'Unsupported',
        `user "${userName}" uses the "${provider.name}" auth-provider, which is not supported; use an exec credential plugin`,
      );
    }
    token ??= idToken;
  }
  if ((token || user.tokenFile) && (user.username || user.password)) {
    throw invalid(`user "${userName}" sets both a token and a username/password; only one is allowed`);
  }

  const server = cluster.server;
  if (!server) throw invalid(`cluster "${clusterName}" has no server`);
  const proxyUrl = cluster['proxy-url'] || undefined;
  if (proxyUrl) checkProxyUrl(proxyUrl, clusterName);

  return dropUndefined({
    contextName: name,
    clusterName,
    userName,
    server: normalizeServer(server, Boolean(caData || certData || insecureSkipTLSVerify), clusterName),
    namespace: context.namespace || undefined,
    caData,
    certData,
    keyData,
    token,
    tokenFile: user.tokenFile || undefined,
    username: user.username || undefined,
    password: user.password || undefined,
    insecureSkipTLSVerify,
    tlsServerName: cluster['tls-server-name'] || undefined,
    proxyUrl,
    exec: user.exec,
  });
}

export type RestConfigParts = {
  /** Used as context, cluster and user name (e.g. the KubeFedCluster name). */
  name: string;
  server: string;
  caData?: Buffer;
  token?: string;
  insecureSkipTLSVerify?: boolean;
  proxyUrl?: string;
};

/** Builds a RestConfig from a KubeFedCluster's apiEndpoint/caBundle and its Secret's token. */
export function restConfigFromParts(parts: RestConfigParts): RestConfig {
  const { name } = parts;
  if (!parts.server) throw invalid(`cluster "${name}" has no API endpoint`);
  const caData = parts.caData && parts.caData.length > 0 ? parts.caData : undefined;
  const insecureSkipTLSVerify = parts.insecureSkipTLSVerify === true;
  const proxyUrl = parts.proxyUrl || undefined;
  if (proxyUrl) checkProxyUrl(proxyUrl, name);
  return dropUndefined({
    contextName: name,
    clusterName: name,
    userName: name,
    server: normalizeServer(parts.server, true, name),
    caData,
    token: parts.token || undefined,
    insecureSkipTLSVerify,
    proxyUrl,
  });
}

/**
 * A host without a scheme gets https when TLS is configured (client-go default). A path is kept as the prefix
 * of every request, cleaned as client-go's path.Join cleans it (no trailing or duplicate slashes).
 */
export function normalizeServer(raw: string, tls: boolean, clusterName: string): string {
  let server = raw.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(server)) server = `${tls ? 'https' : 'http'}://${server}`;
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw invalid(`server "${raw}" of cluster "${clusterName}" is not a valid URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid(`server "${raw}" of cluster "${clusterName}" must be an http or https URL`);
  }
  if (url.search || url.hash) {
    throw invalid(`server "${raw}" of cluster "${clusterName}" must not have a query or fragment`);
  }
  // Scheme and authority as written (so `join` records the server as the kubeconfig has it), path cleaned.
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(server)?.[0] ?? `${url.protocol}//${url.host}`;
  return origin + cleanPathPrefix(url.pathname);
}

/** Decodes standard base64 strictly (whitespace allowed), so corrupt data fails here rather than in TLS. */
export function decodeBase64(value: string, what: string): Buffer {
  const clean = value.replace(/\s+/g, '');
  if (clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) {
    throw invalid(`${what} is not valid base64`);
  }
  return Buffer.from(clean, 'base64');
}

function bytes(data: string | undefined, file: string | undefined, what: string): Buffer | undefined {
  // As in kubectl, embedded data wins over a file reference.
  if (data) return decodeBase64(data, `${what} data`);
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    throw new KubeconfigError('NotFound', `cannot read ${what} from "${file}": ${describeFsError(err)}`, {
      cause: err,
    });
  }
}

function checkProxyUrl(proxyUrl: string, clusterName: string): void {
  let url: URL | undefined;
  try {
    url = new URL(proxyUrl);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:', 'socks5:'].includes(url.protocol)) {
    throw invalid(`proxy-url "${proxyUrl}" of cluster "${clusterName}" must be an http, https or socks5 URL`);
  }
}

function invalid(message: string): KubeconfigError {
  return new KubeconfigError('Invalid', message);
}
