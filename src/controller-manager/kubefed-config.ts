import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import {
  API_VERSION,
  KUBEFED_CONFIG_KIND,
  type KubeFedConfig,
  KubeFedConfigType,
  type KubeFedScope,
} from '../api/core/v1beta1/index.ts';
import {
  defaultKubeFedConfigSpec,
  InvalidKubeFedConfigError,
  KUBEFED_CONFIG_NAME,
  type ResolvedKubeFedConfig,
  resolveKubeFedConfig,
} from '../config/index.ts';
import {
  isAlreadyExists,
  isForbidden,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../kube/client/index.ts';
import type { Logger } from '../runtime/logger.ts';

type ConfigObject = KubeFedConfig & KubeObject;

/** A fatal start-up problem: printed as one line, then the process exits non-zero (no stack trace). */
export class FatalConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FatalConfigError';
  }
}

function scopeFromEnv(env: NodeJS.ProcessEnv): KubeFedScope | undefined {
  const v = env.DEFAULT_KUBEFED_SCOPE;
  if (v === undefined || v === '') return undefined;
  if (v !== 'Cluster' && v !== 'Namespaced') {
    throw new FatalConfigError(`DEFAULT_KUBEFED_SCOPE="${v}" is invalid: want Cluster or Namespaced`);
  }
  return v;
}

/**
 * KubeFed's start-up config step (cmd/controller-manager/app/controller-manager.go, Run and
 * setDefaultKubeFedConfig): read the KubeFedConfig `kubefed` from a file (--kubefed-config) or from the
 * KubeFed namespace, creating it with defaults when it does not exist; then validate. Missing fields are
 * defaulted in memory, as the defaulting webhook would have done.
 */
export async function loadKubeFedConfig(opts: {
  client: KubeClient;
  namespace: string;
  file?: string;
  env?: NodeJS.ProcessEnv;
  logger: Logger;
}): Promise<{ config: ResolvedKubeFedConfig; object: KubeFedConfig }> {
  const env = opts.env ?? process.env;
  const envScope = scopeFromEnv(env);
  let obj: KubeFedConfig;
  if (opts.file) {
    let text: string;
    try {
      text = await readFile(opts.file, 'utf8');
    } catch (e) {
      throw new FatalConfigError(`cannot read --kubefed-config ${opts.file}: ${(e as Error).message}`);
    }
    try {
      obj = parseYaml(text) as KubeFedConfig;
    } catch (e) {
      throw new FatalConfigError(`--kubefed-config ${opts.file} is not valid YAML: ${(e as Error).message}`);
    }
    // A file is taken as complete, as in KubeFed: no defaulting.
    return { config: resolveOrThrow(obj, opts.file), object: obj };
  }
  obj = await getOrCreate(opts.client, opts.namespace, envScope, opts.logger);
  const spec = defaultKubeFedConfigSpec(obj.spec ?? {}, envScope ?? 'Cluster');
  const defaulted = { ...obj, spec } as KubeFedConfig;
  return { config: resolveOrThrow(defaulted, `${opts.namespace}/${KUBEFED_CONFIG_NAME}`), object: defaulted };
}

function resolveOrThrow(obj: KubeFedConfig, where: string): ResolvedKubeFedConfig {
  try {
    return resolveKubeFedConfig(obj.spec);
  } catch (e) {
    if (e instanceof InvalidKubeFedConfigError) {
      throw new FatalConfigError(
        `KubeFedConfig ${where} is invalid: ${e.message.replace(/^invalid KubeFedConfig: /, '')}`,
      );
    }
    throw e;
  }
}

async function getOrCreate(
  client: KubeClient,
  namespace: string,
  envScope: KubeFedScope | undefined,
  log: Logger,
): Promise<KubeFedConfig> {
  try {
    const existing = await client.get<ConfigObject>(KubeFedConfigType, KUBEFED_CONFIG_NAME, namespace);
    if (envScope && existing.spec?.scope && existing.spec.scope !== envScope) {
      // KubeFed's DEFAULT_KUBEFED_SCOPE rule: a differing scope means recreate with the new one.
      log.info(
        { from: existing.spec.scope, to: envScope },
        'recreating KubeFedConfig with the scope from DEFAULT_KUBEFED_SCOPE',
      );
      try {
        await client.delete(KubeFedConfigType, KUBEFED_CONFIG_NAME, { namespace });
      } catch (e) {
        // The Helm chart grants no delete: scope is immutable there, so say what to do instead of retrying.
        if (!isForbidden(e)) throw e;
        throw new FatalConfigError(
          `KubeFedConfig ${namespace}/${KUBEFED_CONFIG_NAME} has scope ${existing.spec.scope} but ` +
            `DEFAULT_KUBEFED_SCOPE is ${envScope}, and deleting it to change the scope is forbidden: ` +
            'scope cannot change in place; reinstall the control plane with the new scope',
        );
      }
    } else {
      return existing;
    }
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  const created: ConfigObject = {
    apiVersion: API_VERSION,
    kind: KUBEFED_CONFIG_KIND,
    metadata: { name: KUBEFED_CONFIG_NAME, namespace },
    spec: defaultKubeFedConfigSpec({}, envScope ?? 'Cluster'),
  };
  try {
    log.info({ namespace }, 'KubeFedConfig not found; creating it with defaults');
    return await client.create(KubeFedConfigType, created);
  } catch (e) {
    if (isAlreadyExists(e))
      return client.get<ConfigObject>(KubeFedConfigType, KUBEFED_CONFIG_NAME, namespace);
    throw e;
  }
}
