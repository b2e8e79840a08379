import { readFileSync } from 'node:fs';
import { FederatedTypeConfigType, resourceTypeOf } from '../api/core/v1beta1/index.ts';
import { type FederatedTypeConfigObject, federatedTypeConfigFor } from '../federation-types/federated-crd.ts';
import { FEDERATED_GROUP, FEDERATED_VERSION } from '../federation-types/group.ts';
import {
  errorMessage,
  groupQualifiedName,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import { type ApiResourceInfo, type DiscoveryResult, discoverApiResources } from '../kube/discovery.ts';
import { dns1123SubdomainErrors } from '../kube/validation.ts';
import { sleep } from '../util/backoff.ts';
import { findApiResource, nameMatchesResource, toTargetTypeInfo } from './api-resources.ts';
import { hostError } from './context.ts';
import { apiFailure, enableType, parseOutputFlag } from './enable.ts';
import { CommandError } from './errors.ts';
import {
  type FederatedObjectFromTarget,
  federatedResourceFromTarget,
  federateOffline,
  parseTargetDocuments,
  qualifiedName,
  toYamlDocuments,
} from './federate-convert.ts';

export interface FederateOptions {
  /** Client of the host cluster; not needed with filename (offline). */
  host?: KubeClient;
  /** The KubeFed system namespace, where FTCs live. */
  kubefedNamespace: string;
  /** Target type name (plural, singular, kind, short name or plural.group); not with filename. */
  typeName?: string;
  resourceName?: string;
  /** Namespace of the target resource (ignored for cluster-scoped types). */
  namespace: string;
  /** Print the federated objects as YAML instead of creating them; nothing is written. */
  output?: 'yaml';
  /** Enable federation of a type whose FTC is missing before creating its federated objects. */
  enableType?: boolean;
  /** Namespaces only: also federate the resources inside the namespace. */
  contents?: boolean;
  /** Offline mode: convert the objects of this YAML file (`-` for stdin) and print them. */
  filename?: string;
  /** Names (short name, kind, plural, plural.group) or groups to leave out of --contents. */
  skipApiResources?: string[];
  /** Federated group/version of types that are enabled (or, with -o yaml / -f, assumed) by this command. */
  federatedGroup?: string;
  federatedVersion?: string;
  /** Run every check and print what would be done, but write nothing. */
  dryRun?: boolean;
  out?: (line: string) => void;
  warn?: (line: string) => void;
  /** Reads the -f input; the default reads the file, or stdin for `-`. */
  readInput?: (filename: string) => string;
  /**
   * Creation retries NotFound (a just-enabled CRD not served yet) this long, this often (KubeFed: 10 s, 1 s).
   */
  createRetryTimeoutMs?: number;
  createRetryIntervalMs?: number;
}

export interface FederateResult {
  /** Every federated object built (printed with output yaml, created otherwise). */
  objects: FederatedObjectFromTarget[];
  /** FTC names of the types this run enabled (or with dryRun would enable). */
  enabledTypes: string[];
}

/**
 * Resources that controllers create in every namespace; they are never federated with --contents (KubeFed).
 */
const CONTROLLER_CREATED_RESOURCES = [
  'endpoints',
  'events',
  'events.events.k8s.io',
  'propagatedversions.core.kubefed.io',
];

/**
 * KubeFed's Complete: flag and argument rules, checked before any cluster is contacted. Returns the parsed
 * type and resource names (absent with a filename) and the output format.
 */
export function validateFederateArgs(
  args: readonly string[],
  opts: { output?: string; filename?: string; enableType?: boolean },
): { typeName?: string; resourceName?: string; output?: 'yaml' } {
  const output = parseOutputFlag(opts.output);
  if (opts.filename) {
    if (args.length > 0)
      throw new CommandError(`Flag '--filename' does not take any args. Got args: [${args.join(' ')}]`);
    return { output };
  }
  const [typeName, resourceName] = args;
  if (!typeName) throw new CommandError('TYPE-NAME is required');
  if (!resourceName) throw new CommandError('RESOURCE-NAME is required');
  if (opts.enableType && output === 'yaml')
    throw new CommandError("Flag '--enable-type' cannot be used with '--output [yaml]'");
  return { typeName, resourceName, output };
}

/**
 * What one type contributes: its FTC (installed, or generated to be enabled/assumed) and federated objects.
 */
interface Artifact {
  ftc: FederatedTypeConfigObject;
  installed: boolean;
  objects: FederatedObjectFromTarget[];
}

/**
 * kubefedctl federate (KubeFed pkg/kubefedctl/federate/federate.go, (*federateResource).Run): builds the
 * federated object of a host resource (with --contents, also of everything in a namespace) and creates it,
 * enabling missing types first with --enable-type. Every read and check happens before the first write; with
 * -o yaml or -f nothing is written at all.
 */
export async function federate(opts: FederateOptions): Promise<FederateResult> {
  const out = opts.out ?? (() => {});
  const userWarn = opts.warn ?? (() => {});
  const args = [opts.typeName, opts.resourceName].filter((a): a is string => Boolean(a));
  const { typeName, resourceName, output } = validateFederateArgs(args, {
    output: opts.output,
    filename: opts.filename,
    enableType: opts.enableType,
  });
  if (opts.filename) return federateFile(opts.filename, opts, out, userWarn);
  if (!typeName || !resourceName) throw new CommandError('TYPE-NAME is required');
  const host = opts.host;
  if (!host) throw new CommandError('no host cluster to federate from');
  // Warnings wait until every check has passed: a run that fails prints its error line alone.
  const pending: string[] = [];
  let warnNow = false;
  const warn = (line: string) => (warnNow ? userWarn(line) : pending.push(line));
  const flushWarnings = () => {
    warnNow = true;
    for (const line of pending.splice(0)) userWarn(line);
  };
  const ctx: LookupContext = { host, opts, output, warn };

  // --- Reads: nothing is written in this phase ----------------------------------------------------------
  let resource: ApiResourceInfo;
  try {
    resource = await findApiResource(host, typeName, { warn });
  } catch (e) {
    throw new CommandError(`Failed to find target API resource ${typeName}: ${errorMessage(e)}`);
  }
  const tc = await typeConfigFor(ctx, resource);
  if ('missing' in tc) {
    throw new CommandError(
      `${errorMessage(tc.missing)}. Consider using '--enable-type' to optionally enable type while federating the resource`,
    );
  }
  const targetType = resourceTypeOf(tc.ftc.spec.targetType);
  const targetName = qualifiedName(resourceName, targetType.namespaced ? opts.namespace : undefined);
  let target: KubeObject;
  try {
    target = await host.get(targetType, resourceName, opts.namespace);
  } catch (e) {
    throw apiFailure(host, `Error retrieving target ${targetType.kind} "${targetName}"`, e);
  }
  const artifacts: Artifact[] = [{ ...tc, objects: [convert(tc.ftc, target, warn)] }];

  const isNamespace = tc.ftc.spec.targetType.kind === 'Namespace';
  if (opts.contents && !isNamespace)
    throw new CommandError("Flag '--contents' can only be used with type 'namespaces'.");
  if (opts.contents) artifacts.push(...(await containedArtifacts(ctx, resourceName)));

  const objects = artifacts.flatMap((a) => a.objects);
  if (output === 'yaml') {
    flushWarnings();
    out(toYamlDocuments(objects));
    return { objects, enabledTypes: [] };
  }

  // --- Checks: enabling must be possible, and no federated object may exist yet ------------------------
  const toEnable = artifacts.filter((a) => !a.installed);
  for (const a of toEnable) await enableType(enableOptions(ctx, a, { dryRun: true, out: () => {} }));
  await ensureNoneExist(host, artifacts);
  flushWarnings();

  // --- Writes -------------------------------------------------------------------------------------------
  const created: string[] = [];
  const suffix = opts.dryRun ? ' (dry run)' : '';
  try {
    for (const a of artifacts) {
      if (!a.installed) await enableType(enableOptions(ctx, a, { dryRun: opts.dryRun, out }));
      const fedType = resourceTypeOf(a.ftc.spec.federatedType);
      for (const obj of a.objects) {
        const name = qualifiedName(obj.metadata.name, obj.metadata.namespace);
        if (!opts.dryRun) await createWithRetry(host, fedType, obj, opts);
        created.push(`${obj.kind} "${name}"`);
        out(`Successfully created ${obj.kind} "${name}" from ${a.ftc.spec.targetType.kind}${suffix}`);
      }
    }
  } catch (e) {
    const message = errorMessage(e);
    if (created.length === 0 || opts.dryRun) throw e instanceof CommandError ? e : new CommandError(message);
    throw new CommandError(`${message} (created before the failure: ${created.join(', ')})`);
  }
  return { objects, enabledTypes: toEnable.map((a) => a.ftc.metadata.name) };
}

/** `-f`: convert the file's objects offline and print them as YAML (KubeFed's FederateResources). */
function federateFile(
  filename: string,
  opts: FederateOptions,
  out: (line: string) => void,
  warn: (line: string) => void,
): FederateResult {
  let targets: KubeObject[];
  try {
    const read = opts.readInput ?? readInput;
    targets = parseTargetDocuments(read(filename));
  } catch (e) {
    throw new CommandError(`Failed to load yaml from file "${filename}": ${errorMessage(e)}`);
  }
  const { objects, warnings } = federateOffline(targets, {
    federatedGroup: opts.federatedGroup,
    federatedVersion: opts.federatedVersion,
  });
  for (const w of warnings) warn(w);
  if (objects.length > 0) out(toYamlDocuments(objects));
  return { objects, enabledTypes: [] };
}

function readInput(filename: string): string {
  return readFileSync(filename === '-' ? 0 : filename, 'utf8');
}

interface LookupContext {
  host: KubeClient;
  opts: FederateOptions;
  output: 'yaml' | undefined;
  warn: (line: string) => void;
}

/**
 * KubeFed's getTypeConfig: the installed FTC of a type; if there is none, the FTC enable would generate,
 * either to be enabled (--enable-type) or assumed (-o yaml, whatever the lookup error). Otherwise the
 * NotFound error is handed back for the caller to report.
 */
async function typeConfigFor(
  ctx: LookupContext,
  resource: ApiResourceInfo,
): Promise<{ ftc: FederatedTypeConfigObject; installed: boolean } | { missing: unknown }> {
  const { host, opts } = ctx;
  const generated = federatedTypeConfigFor(toTargetTypeInfo(resource, { hasSchema: true, scalable: false }), {
    namespace: opts.kubefedNamespace,
    federatedGroup: opts.federatedGroup || FEDERATED_GROUP,
    federatedVersion: opts.federatedVersion || FEDERATED_VERSION,
  });
  const name = generated.metadata.name;
  try {
    const ftc = await host.get<FederatedTypeConfigObject>(
      FederatedTypeConfigType,
      name,
      opts.kubefedNamespace,
    );
    return { ftc, installed: true };
  } catch (e) {
    if (ctx.output === 'yaml' || (isNotFound(e) && opts.enableType))
      return { ftc: generated, installed: false };
    if (isNotFound(e)) return { missing: e };
    throw apiFailure(host, `Error retrieving FederatedTypeConfig "${opts.kubefedNamespace}/${name}"`, e);
  }
}

function convert(ftc: FederatedTypeConfigObject, target: KubeObject, warn: (line: string) => void) {
  const fed = ftc.spec.federatedType;
  const { object, warnings } = federatedResourceFromTarget(target, {
    federatedGroup: fed.group ?? '',
    federatedVersion: fed.version,
    federatedKind: fed.kind,
    isNamespace: ftc.spec.targetType.kind === 'Namespace',
    targetKind: ftc.spec.targetType.kind,
  });
  for (const w of warnings) warn(w);
  return object;
}

function enableOptions(
  ctx: LookupContext,
  a: Artifact,
  extra: { dryRun?: boolean; out: (line: string) => void },
): Parameters<typeof enableType>[0] {
  const fed = a.ftc.spec.federatedType;
  return {
    host: ctx.host,
    namespace: ctx.opts.kubefedNamespace,
    // The FTC name is `plural.group`, which names exactly this type in enable's lookup.
    name: a.ftc.metadata.name,
    federatedGroup: fed.group,
    federatedVersion: fed.version,
    warn: ctx.warn,
    ...extra,
  };
}

/**
 * Federating is creating: an existing federated object is an error (KubeFed fails on AlreadyExists). Checked
 * up front so that a namespace with contents is not left half federated.
 */
async function ensureNoneExist(host: KubeClient, artifacts: readonly Artifact[]): Promise<void> {
  for (const a of artifacts) {
    const fedType = resourceTypeOf(a.ftc.spec.federatedType);
    for (const obj of a.objects) {
      const { name, namespace } = obj.metadata;
      const qn = qualifiedName(name, namespace);
      try {
        await host.get(fedType, name, namespace);
      } catch (e) {
        // Also NotFound when the federated type itself is not served yet (it is to be enabled).
        if (isNotFound(e)) continue;
        throw apiFailure(host, `Error retrieving federated resource "${qn}"`, e);
      }
      throw new CommandError(
        `Error creating federated resource "${qn}": ${groupQualifiedName(fedType.plural, fedType.group)} "${name}" already exists`,
      );
    }
  }
}

/** Creation retries NotFound: the CRD of a type enabled a moment ago may not be served yet (KubeFed). */
async function createWithRetry(
  host: KubeClient,
  type: ResourceType,
  obj: FederatedObjectFromTarget,
  opts: FederateOptions,
): Promise<void> {
  const interval = opts.createRetryIntervalMs ?? 1000;
  const deadline = Date.now() + (opts.createRetryTimeoutMs ?? 10_000);
  const name = qualifiedName(obj.metadata.name, obj.metadata.namespace);
  for (;;) {
    try {
      await host.create(type, obj);
      return;
    } catch (e) {
      if (isNotFound(e) && Date.now() + interval <= deadline) {
        await sleep(interval);
        continue;
      }
      throw apiFailure(host, `Error creating federated resource "${name}"`, e);
    }
  }
}

/**
 * The namespaced resources --contents federates (KubeFed's namespacedAPIResourceMap): preferred versions,
 * without the deprecated `extensions` group, federated types, controller-created resources and whatever the
 * user skips by name or group. kubefed-ts also leaves out resources that cannot be listed (KubeFed ignored
 * their list errors).
 */
export function contentResourceTypes(
  discovered: readonly ApiResourceInfo[],
  skip: readonly string[],
): ApiResourceInfo[] {
  const names = [...CONTROLLER_CREATED_RESOURCES, ...skip.filter(Boolean)];
  return discovered
    .filter(
      (r) =>
        r.namespaced &&
        r.verbs.includes('list') &&
        r.group !== 'extensions' &&
        !skip.some((s) => s !== '' && s === r.group) &&
        !(r.kind.startsWith('Federated') && r.group === FEDERATED_GROUP) &&
        !names.some((n) => nameMatchesResource(n, r)),
    )
    .sort((a, b) => {
      const x = groupQualifiedName(a.plural, a.group);
      const y = groupQualifiedName(b.plural, b.group);
      return x < y ? -1 : x > y ? 1 : 0;
    });
}

/**
 * Objects that exist because something else made them; federating them would copy one cluster's generated
 * state to all. kubefed-ts choices beyond KubeFed (which federated them all): objects with a controller
 * owner (a Deployment's ReplicaSets and Pods, a Service's EndpointSlices), and what Kubernetes creates in
 * every namespace: the `kube-root-ca.crt` ConfigMap, the `default` ServiceAccount and service-account token
 * Secrets (a token is signed by the host and useless elsewhere).
 */
export function isGeneratedObject(resource: { group: string; plural: string }, obj: KubeObject): boolean {
  const owners = obj.metadata.ownerReferences ?? [];
  if (owners.some((o) => typeof o === 'object' && o !== null && 'controller' in o && o.controller === true))
    return true;
  if (resource.group !== '') return false;
  const name = obj.metadata.name;
  if (resource.plural === 'configmaps') return name === 'kube-root-ca.crt';
  if (resource.plural === 'serviceaccounts') return name === 'default';
  if (resource.plural === 'secrets') return obj['type'] === 'kubernetes.io/service-account-token';
  return false;
}

/**
 * KubeFed's GetContainedArtifactsList: the federated objects of every resource in the namespace, by type.
 * A type without an FTC is skipped with a warning unless --enable-type (kubefed-ts: KubeFed failed instead).
 */
async function containedArtifacts(ctx: LookupContext, namespace: string): Promise<Artifact[]> {
  const { host, opts, warn } = ctx;
  let discovered: DiscoveryResult;
  try {
    discovered = await discoverApiResources(host);
  } catch (e) {
    throw hostError(e, host.name);
  }
  for (const f of discovered.failures)
    warn(`Resources of ${f.groupVersion} are not federated: discovery failed: ${f.message}`);

  const artifacts: Artifact[] = [];
  for (const r of contentResourceTypes(discovered.resources, opts.skipApiResources ?? [])) {
    const type: ResourceType = { group: r.group, version: r.version, plural: r.plural, namespaced: true };
    let items: KubeObject[];
    try {
      items = (await host.listAll(type, { namespace })).items;
    } catch (e) {
      if (isNotFound(e)) continue;
      throw apiFailure(host, `Error listing resources for ${r.kind}`, e);
    }
    const targets = items
      .filter((o) => !isGeneratedObject(r, o))
      .filter((o) => {
        const errs = dns1123SubdomainErrors(o.metadata.name ?? '');
        if (errs.length === 0) return true;
        warn(
          `Skipping resource ${o.metadata.name} of type ${r.plural} because it does not conform to the ` +
            `DNS-1123 subdomain spec: ${errs.join('; ')}`,
        );
        return false;
      })
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    if (targets.length === 0) continue;

    const tc = await typeConfigFor(ctx, r);
    if ('missing' in tc) {
      const qn = groupQualifiedName(r.plural, r.group);
      warn(
        `Skipping ${targets.length} ${qn} in namespace "${namespace}": FederatedTypeConfig ` +
          `"${opts.kubefedNamespace}/${qn}" not found. Consider using '--enable-type' to optionally enable ` +
          `type while federating the resource`,
      );
      continue;
    }
    artifacts.push({ ...tc, objects: targets.map((t) => convert(tc.ftc, t, warn)) });
  }
  return artifacts;
}
