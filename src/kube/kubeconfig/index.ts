export type { KubeconfigErrorReason } from './errors.ts';
export { KubeconfigError } from './errors.ts';
export type { ExecClusterInfo, ExecCredential, ResolveExecCredentialOptions } from './exec-credentials.ts';
export {
  clearExecCredentialCache,
  invalidateExecCredential,
  resolveExecCredential,
} from './exec-credentials.ts';
export * from './in-cluster.ts';
export type { LoadKubeconfigOptions, ParsedKubeconfig } from './load.ts';
export { kubeconfigSearchPaths, loadKubeconfig, parseKubeconfig } from './load.ts';
export type { RestConfig, RestConfigParts } from './rest-config.ts';
export { decodeBase64, normalizeServer, restConfigForContext, restConfigFromParts } from './rest-config.ts';
export type * from './types.ts';
export type { KubeconfigEntry } from './write.ts';
export { renderKubeconfig, writeKubeconfigFile } from './write.ts';
