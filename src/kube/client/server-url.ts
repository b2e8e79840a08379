// A server URL may carry a path (Rancher and other proxies serve a cluster at https://host/k8s/clusters/ID).
// client-go treats that path as a prefix of every request (rest.DefaultServerURL keeps it, NewRESTClient
// drops the query and fragment, Request.URL and AbsPath path.Join it with the API path); so do we.

import { posix } from 'node:path';

/**
 * The cleaned path prefix of a server URL, as client-go's path.Join leaves it: duplicate slashes and dot
 * segments resolved, no trailing slash; '' for none (`/` or empty).
 */
export function cleanPathPrefix(pathname: string): string {
  const cleaned = posix.join('/', pathname);
  return cleaned === '/' ? '' : cleaned.replace(/\/+$/, '');
}

/**
 * The base URL a client keeps for a server: scheme, host, port and the cleaned path prefix, without the
 * query and fragment (client-go's NewRESTClient clears both) and without a trailing slash.
 */
export function baseServerUrl(url: URL): string {
  return `${url.protocol}//${url.host}${cleanPathPrefix(url.pathname)}`;
}

/**
 * The URL of one request: the server's path prefix followed by the request's path, whose query string is
 * kept as it is. `server` is a base URL (see baseServerUrl); a trailing slash on it is tolerated.
 */
export function joinServerUrl(server: string, requestPath: string): string {
  const base = server.replace(/\/+$/, '');
  const rest = requestPath.replace(/^\/+/, '');
  return `${base}/${rest}`;
}
