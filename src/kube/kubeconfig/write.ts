import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { KubeconfigError } from './errors.ts';
import type { AuthInfo, Cluster, Context, KubeconfigFile } from './types.ts';

export type KubeconfigEntry = {
  /** Used as the cluster, user and context name. */
  name: string;
  server: string;
  caData: Buffer;
  token?: string;
  certData?: Buffer;
  keyData?: Buffer;
  namespace?: string;
};

/** Renders a self-contained kubeconfig (all credentials embedded as `-data` fields). */
export function renderKubeconfig(entries: KubeconfigEntry[], currentContext: string): string {
  const names = new Set<string>();
  for (const entry of entries) {
    if (!entry.name) throw new KubeconfigError('Invalid', 'kubeconfig entry without a name');
    if (names.has(entry.name))
      throw new KubeconfigError('Invalid', `duplicate kubeconfig entry "${entry.name}"`);
    names.add(entry.name);
  }
  if (currentContext && !names.has(currentContext)) {
    throw new KubeconfigError(
      'ContextNotFound',
      `context "${currentContext}" is not among the kubeconfig entries`,
    );
  }
  const file: KubeconfigFile = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: entries.map((e) => {
      const cluster: Cluster = { server: e.server };
      if (e.caData.length > 0) cluster['certificate-authority-data'] = e.caData.toString('base64');
      return { name: e.name, cluster };
    }),
    users: entries.map((e) => {
      const user: AuthInfo = {};
      if (e.token) user.token = e.token;
      if (e.certData) user['client-certificate-data'] = e.certData.toString('base64');
      if (e.keyData) user['client-key-data'] = e.keyData.toString('base64');
      return { name: e.name, user };
    }),
    contexts: entries.map((e) => {
      const context: Context = { cluster: e.name, user: e.name };
      if (e.namespace) context.namespace = e.namespace;
      return { name: e.name, context };
    }),
    'current-context': currentContext,
    preferences: {},
  };
  // Long base64 strings must stay on one line, as kubectl writes them.
  return stringify(file, { lineWidth: 0 });
}

/** Writes a kubeconfig readable only by its owner, since it holds credentials. */
export async function writeKubeconfigFile(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content, { mode: 0o600 });
}
