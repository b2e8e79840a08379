// The kubeconfig file format (clientcmd v1) as kubectl writes it. Field names follow the YAML keys, so a
// parsed file can be used as-is; only the fields kubefed-ts understands are listed.

export type Cluster = {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'proxy-url'?: string;
  'tls-server-name'?: string;
  'disable-compression'?: boolean;
};

export type ExecEnvVar = { name: string; value: string };

/** An exec credential plugin stanza (client.authentication.k8s.io). */
export type ExecConfig = {
  apiVersion?: string;
  command: string;
  args?: string[] | null;
  env?: ExecEnvVar[] | null;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always';
};

export type AuthProviderConfig = { name: string; config?: Record<string, string> };

export type AuthInfo = {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
  'auth-provider'?: AuthProviderConfig;
  as?: string;
  'as-groups'?: string[];
};

export type Context = { cluster?: string; user?: string; namespace?: string };

export type NamedCluster = { name: string; cluster: Cluster };
export type NamedAuthInfo = { name: string; user: AuthInfo };
export type NamedContext = { name: string; context: Context };

/** One kubeconfig file as stored on disk. */
export type KubeconfigFile = {
  apiVersion?: string;
  kind?: string;
  clusters?: NamedCluster[];
  users?: NamedAuthInfo[];
  contexts?: NamedContext[];
  'current-context'?: string;
  preferences?: Record<string, unknown>;
};

/**
 * The result of loading one or more kubeconfig files the way kubectl does. File paths inside entries are
 * already absolute (resolved against the directory of the file that defined them).
 */
export type MergedKubeconfig = {
  currentContext?: string;
  clusters: Map<string, Cluster>;
  users: Map<string, AuthInfo>;
  contexts: Map<string, Context>;
  /** Files that were actually loaded, in precedence order. */
  sources: string[];
};
