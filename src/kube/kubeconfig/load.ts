import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { dropUndefined } from '../../util/drop-undefined.ts';
import { describeFsError, KubeconfigError } from './errors.ts';
import type { AuthInfo, Cluster, Context, MergedKubeconfig } from './types.ts';

export { KubeconfigError } from './errors.ts';

export type LoadKubeconfigOptions = {
  /** The `--kubeconfig` flag: when set, this file is the only one loaded and it must exist. */
  kubeconfig?: string;
  /** Defaults to process.env; KUBECONFIG and HOME are read from it. */
  env?: NodeJS.ProcessEnv;
  /** Defaults to $HOME, then os.homedir(). */
  homeDir?: string;
};

/**
 * The files kubectl would consider, in precedence order (client-go clientcmd loading rules):
 * the explicit path, else the KUBECONFIG list, else ~/.kube/config.
 */
export function kubeconfigSearchPaths(opts: LoadKubeconfigOptions = {}): {
  files: string[];
  explicit: boolean;
} {
  if (opts.kubeconfig) return { files: [path.resolve(opts.kubeconfig)], explicit: true };
  const env = opts.env ?? process.env;
  const list = env['KUBECONFIG'];
  if (list) {
    const files = list
      .split(path.delimiter)
      .filter((entry) => entry !== '')
      .map((entry) => path.resolve(entry));
    return { files: [...new Set(files)], explicit: false };
  }
  const home = opts.homeDir ?? env['HOME'] ?? os.homedir();
  return { files: [path.join(home, '.kube', 'config')], explicit: false };
}

/**
 * Loads kubeconfig like kubectl: an explicit file must exist; KUBECONFIG entries that do not exist are
 * skipped; entries are merged first-file-wins by name and current-context comes from the first file
 * that sets one. With nothing to load the result is an empty config.
 */
export function loadKubeconfig(opts: LoadKubeconfigOptions = {}): MergedKubeconfig {
  const { files, explicit } = kubeconfigSearchPaths(opts);
  const merged: MergedKubeconfig = {
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
    sources: [],
  };
  for (const file of files) {
    const text = readOptional(file);
    if (text === undefined) {
      if (explicit) throw new KubeconfigError('NotFound', `kubeconfig file "${opts.kubeconfig}" not found`);
      continue;
    }
    const parsed = parseKubeconfig(text, file);
    mergeFirstWins(parsed.clusters, merged.clusters);
    mergeFirstWins(parsed.users, merged.users);
    mergeFirstWins(parsed.contexts, merged.contexts);
    if (merged.currentContext === undefined && parsed.currentContext) {
      merged.currentContext = parsed.currentContext;
    }
    merged.sources.push(file);
  }
  return merged;
}

export type ParsedKubeconfig = {
  clusters: Map<string, Cluster>;
  users: Map<string, AuthInfo>;
  contexts: Map<string, Context>;
  currentContext?: string;
};

/**
 * Parses and validates one kubeconfig document. Relative file references are resolved against the
 * directory of `file`. Within a single file a later duplicate name replaces an earlier one, as in kubectl.
 */
export function parseKubeconfig(text: string, file: string): ParsedKubeconfig {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw new KubeconfigError('Invalid', `kubeconfig file "${file}" is not valid YAML: ${first}`, {
      cause: err,
    });
  }
  const out: ParsedKubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map() };
  if (doc === null || doc === undefined) return out;
  const at = `kubeconfig file "${file}"`;
  if (!isRecord(doc)) throw invalid(`${at} must contain a YAML mapping`);

  const baseDir = path.dirname(path.resolve(file));
  for (const [name, raw] of namedEntries(doc, 'clusters', 'cluster', at)) {
    const where = `${at}: cluster "${name}"`;
    checkFields(raw, CLUSTER_FIELDS, where);
    const cluster = { ...raw } as Cluster;
    cluster['certificate-authority'] = resolveRef(cluster['certificate-authority'], baseDir);
    out.clusters.set(name, dropUndefined(cluster));
  }
  for (const [name, raw] of namedEntries(doc, 'users', 'user', at)) {
    const where = `${at}: user "${name}"`;
    checkFields(raw, USER_FIELDS, where);
    const user = { ...raw } as AuthInfo;
    if (user.exec) user.exec = checkExec(user.exec, where, baseDir);
    if (user['auth-provider']) checkAuthProvider(user['auth-provider'], where);
    if (user['as-groups'] && !user['as-groups'].every((g) => typeof g === 'string')) {
      throw invalid(`${where}: "as-groups" must be a list of strings`);
    }
    user['client-certificate'] = resolveRef(user['client-certificate'], baseDir);
    user['client-key'] = resolveRef(user['client-key'], baseDir);
    user.tokenFile = resolveRef(user.tokenFile, baseDir);
    out.users.set(name, dropUndefined(user));
  }
  for (const [name, raw] of namedEntries(doc, 'contexts', 'context', at)) {
    checkFields(raw, CONTEXT_FIELDS, `${at}: context "${name}"`);
    out.contexts.set(name, { ...raw } as Context);
  }
  const current = doc['current-context'];
  if (current !== undefined && current !== null && typeof current !== 'string') {
    throw invalid(`${at}: "current-context" must be a string`);
  }
  if (current) out.currentContext = current;
  return out;
}

type FieldKind = 'string' | 'boolean' | 'object' | 'array';

const CLUSTER_FIELDS: Record<string, FieldKind> = {
  server: 'string',
  'certificate-authority': 'string',
  'certificate-authority-data': 'string',
  'insecure-skip-tls-verify': 'boolean',
  'proxy-url': 'string',
  'tls-server-name': 'string',
  'disable-compression': 'boolean',
};

const USER_FIELDS: Record<string, FieldKind> = {
  token: 'string',
  tokenFile: 'string',
  'client-certificate': 'string',
  'client-certificate-data': 'string',
  'client-key': 'string',
  'client-key-data': 'string',
  username: 'string',
  password: 'string',
  exec: 'object',
  'auth-provider': 'object',
  as: 'string',
  'as-groups': 'array',
};

const CONTEXT_FIELDS: Record<string, FieldKind> = { cluster: 'string', user: 'string', namespace: 'string' };

const EXEC_FIELDS: Record<string, FieldKind> = {
  apiVersion: 'string',
  command: 'string',
  args: 'array',
  env: 'array',
  installHint: 'string',
  provideClusterInfo: 'boolean',
  interactiveMode: 'string',
};

function readOptional(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new KubeconfigError('Invalid', `cannot read kubeconfig file "${file}": ${describeFsError(err)}`, {
      cause: err,
    });
  }
}

function mergeFirstWins<T>(from: Map<string, T>, into: Map<string, T>): void {
  for (const [name, value] of from) if (!into.has(name)) into.set(name, value);
}

function* namedEntries(
  doc: Record<string, unknown>,
  list: string,
  field: string,
  at: string,
): Generator<[string, Record<string, unknown>]> {
  const items = doc[list];
  if (items === undefined || items === null) return;
  if (!Array.isArray(items)) throw invalid(`${at}: "${list}" must be a list`);
  for (const [i, item] of items.entries()) {
    if (!isRecord(item) || typeof item['name'] !== 'string' || item['name'] === '') {
      throw invalid(`${at}: ${list}[${i}] must have a non-empty "name"`);
    }
    const value = item[field] ?? {};
    if (!isRecord(value))
      throw invalid(`${at}: ${list}[${i}] ("${item['name']}"): "${field}" must be a mapping`);
    yield [item['name'], value];
  }
}

function checkFields(obj: Record<string, unknown>, spec: Record<string, FieldKind>, where: string): void {
  for (const [key, kind] of Object.entries(spec)) {
    const value = obj[key];
    if (value === undefined || value === null) {
      delete obj[key];
      continue;
    }
    const ok =
      kind === 'array' ? Array.isArray(value) : kind === 'object' ? isRecord(value) : typeof value === kind;
    if (!ok) throw invalid(`${where}: "${key}" must be ${kind === 'array' ? 'a list' : `a ${kind}`}`);
  }
}

function checkExec(raw: unknown, where: string, baseDir: string): AuthInfo['exec'] {
  if (!isRecord(raw)) throw invalid(`${where}: "exec" must be a mapping`);
  const exec = { ...raw };
  checkFields(exec, EXEC_FIELDS, `${where}: exec`);
  if (typeof exec['command'] !== 'string' || exec['command'] === '') {
    throw invalid(`${where}: exec "command" must be set`);
  }
  const args = exec['args'];
  if (Array.isArray(args) && !args.every((a) => typeof a === 'string')) {
    throw invalid(`${where}: exec "args" must be a list of strings`);
  }
  const env = exec['env'];
  if (
    Array.isArray(env) &&
    !env.every((e) => isRecord(e) && typeof e['name'] === 'string' && typeof e['value'] === 'string')
  ) {
    throw invalid(`${where}: exec "env" entries must have a string "name" and "value"`);
  }
  const mode = exec['interactiveMode'];
  if (mode !== undefined && mode !== 'Never' && mode !== 'IfAvailable' && mode !== 'Always') {
    throw invalid(`${where}: exec "interactiveMode" must be Never, IfAvailable or Always`);
  }
  const command = exec['command'];
  // Like client-go: only a command with a path separator is a file reference; a bare name is looked up in PATH.
  if (command.includes(path.sep) || command.includes('/')) exec['command'] = resolveRef(command, baseDir);
  return exec as AuthInfo['exec'];
}

function checkAuthProvider(raw: unknown, where: string): void {
  if (!isRecord(raw) || typeof raw['name'] !== 'string') {
    throw invalid(`${where}: "auth-provider" must have a "name"`);
  }
  const config = raw['config'];
  if (config !== undefined && config !== null && !isRecord(config)) {
    throw invalid(`${where}: "auth-provider" "config" must be a mapping`);
  }
}

function resolveRef(ref: string | undefined, baseDir: string): string | undefined {
  if (!ref) return ref;
  return path.isAbsolute(ref) ? ref : path.join(baseDir, ref);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): KubeconfigError {
  return new KubeconfigError('Invalid', message);
}
