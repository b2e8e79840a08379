import { readFile } from 'node:fs/promises';
import type { RestConfig } from '../kubeconfig/index.ts';
import { resolveExecCredential } from '../kubeconfig/index.ts';

export interface Credentials {
  headers: Record<string, string>;
  /** Client certificate from an exec plugin, which then has to be part of the TLS connection. */
  certData?: Buffer;
  keyData?: Buffer;
}

/**
 * Resolves the credentials of one request. Static tokens are cheap; token files are re-read at most every
 * minute (projected service-account tokens rotate); exec plugins are cached by their own expiry.
 */
export class CredentialSource {
  readonly #config: RestConfig;
  #fileToken: { value: string; readAt: number } | undefined;

  constructor(config: RestConfig) {
    this.#config = config;
  }

  async resolve(): Promise<Credentials> {
    const c = this.#config;
    if (c.token) return { headers: { authorization: `Bearer ${c.token}` } };
    if (c.tokenFile) {
      const now = Date.now();
      if (!this.#fileToken || now - this.#fileToken.readAt > 60_000) {
        this.#fileToken = { value: (await readFile(c.tokenFile, 'utf8')).trim(), readAt: now };
      }
      return { headers: { authorization: `Bearer ${this.#fileToken.value}` } };
    }
    if (c.exec) {
      const cred = await resolveExecCredential(c.exec, { server: c.server, caData: c.caData });
      const out: Credentials = { headers: {} };
      if (cred.token) out.headers.authorization = `Bearer ${cred.token}`;
      if (cred.certData) out.certData = cred.certData;
      if (cred.keyData) out.keyData = cred.keyData;
      return out;
    }
    if (c.username !== undefined && c.password !== undefined) {
      return {
        headers: { authorization: `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}` },
      };
    }
    return { headers: {} };
  }
}
