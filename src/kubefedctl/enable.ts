import { readFileSync } from 'node:fs';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { FederatedTypeConfigType } from '../api/core/v1beta1/index.ts';
import type { CustomResourceDefinition } from '../api/crd.ts';
import { isEquivalentApi } from '../federation-types/deprecated-apis.ts';
import {
  type FederatedTypeConfigObject,
  federatedCrdFor,
  federatedCrdName,
  federatedTypeConfigFor,
} from '../federation-types/federated-crd.ts';
import { FEDERATED_GROUP, FEDERATED_VERSION } from '../federation-types/group.ts';
import {
  ApiError,
  CoreTypes,
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
  resourceTypeName,
} from '../kube/client/index.ts';
import { findApiResource, targetSchemaInfo, toTargetTypeInfo } from './api-resources.ts';
import { hostError } from './context.ts';
import { CommandError } from './errors.ts';

export interface EnableTypeOptions {
  /** Client of the host cluster; its name (the host context) appears in connection errors. */
  host: KubeClient;
  /** The KubeFed system namespace. */
  namespace: string;
  /** Target type name (plural, singular, kind, short name or plural.group); not needed with filename. */
  name?: string;
  targetVersion?: string;
  federatedGroup?: string;
  federatedVersion?: string;
  /** Print the FTC and CRD as YAML instead of writing them. */
  output?: 'yaml';
  /** An EnableTypeDirective file; it replaces name, targetVersion, federatedGroup and federatedVersion. */
  filename?: string;
  /** Run every check and report what would be written, but write nothing. */
  dryRun?: boolean;
  out?: (line: string) => void;
  warn?: (line: string) => void;
  /**
   * Called once the CRD is served and just before the FTC is written (not with dryRun or output), so that
   * members joined with --scoped-rbac are granted the type before its sync controller starts.
   */
  beforeFtcWrite?: (ftc: FederatedTypeConfigObject) => Promise<void>;
  /** How long to wait for a written CRD to be Established. */
  establishTimeoutMs?: number;
}

export interface EnableTypeResult {
  ftc: FederatedTypeConfigObject;
  crd: CustomResourceDefinition;
  /** What happened (or with dryRun would happen) to each; 'none' with output yaml. */
  crdAction: 'created' | 'updated' | 'none';
  ftcAction: 'created' | 'updated' | 'none';
}

/** What enable is asked to do, from flags or an EnableTypeDirective file (KubeFed's defaults applied). */
export interface EnableTypeDirective {
  name: string;
  targetVersion?: string;
  federatedGroup: string;
  federatedVersion: string;
}

/** `-o/--output` accepts only `yaml`, as in KubeFed. */
export function parseOutputFlag(value: string | undefined): 'yaml' | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'yaml') return 'yaml';
  throw new CommandError(`Invalid value for --output: ${value}`);
}

/** Reads `{metadata.name, spec: {targetVersion, federatedGroup, federatedVersion}}` from a YAML file. */
export function loadEnableTypeDirective(filename: string): EnableTypeDirective {
  const fail = (why: string) => new CommandError(`Failed to load yaml from file "${filename}": ${why}`);
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(filename, 'utf8'));
  } catch (e) {
    throw fail(errorMessage(e));
  }
  const d = (doc ?? {}) as {
    metadata?: { name?: unknown };
    spec?: { targetVersion?: unknown; federatedGroup?: unknown; federatedVersion?: unknown };
  };
  const str = (v: unknown, field: string): string | undefined => {
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw fail(`${field} must be a string`);
    return v;
  };
  const name = str(d.metadata?.name, 'metadata.name');
  if (!name) throw fail('metadata.name is required');
  return {
    name,
    targetVersion: str(d.spec?.targetVersion, 'spec.targetVersion'),
    federatedGroup: str(d.spec?.federatedGroup, 'spec.federatedGroup') ?? FEDERATED_GROUP,
    federatedVersion: str(d.spec?.federatedVersion, 'spec.federatedVersion') ?? FEDERATED_VERSION,
  };
}

function directiveFrom(opts: EnableTypeOptions): EnableTypeDirective {
  if (opts.filename) return loadEnableTypeDirective(opts.filename);
  if (!opts.name) throw new CommandError('NAME is required');
  return {
    name: opts.name,
    targetVersion: opts.targetVersion || undefined,
    federatedGroup: opts.federatedGroup || FEDERATED_GROUP,
    federatedVersion: opts.federatedVersion || FEDERATED_VERSION,
  };
}

/** The FTC and CRD enable would write for a directive: discovery, lookup and the target's schema. */
export async function generateEnableResources(
  host: KubeClient,
  namespace: string,
  directive: EnableTypeDirective,
  warn?: (line: string) => void,
): Promise<{ ftc: FederatedTypeConfigObject; crd: CustomResourceDefinition }> {
  const resource = await findApiResource(host, directive.name, { version: directive.targetVersion, warn });
  let schema: Awaited<ReturnType<typeof targetSchemaInfo>>;
  try {
    schema = await targetSchemaInfo(host, resource);
  } catch (e) {
    throw apiFailure(host, `Error initializing validation schema accessor`, e);
  }
  const target = toTargetTypeInfo(resource, schema);
  const fed = { federatedGroup: directive.federatedGroup, federatedVersion: directive.federatedVersion };
  return { ftc: federatedTypeConfigFor(target, { ...fed, namespace }), crd: federatedCrdFor(target, fed) };
}

/**
 * kubefedctl enable (KubeFed pkg/kubefedctl/enable/enable.go, (*enableType).Run, GetResources and
 * CreateResources): generates the Federated<Kind> CRD and the FTC for a target type and writes them to the
 * host. Every check runs before the first write; if the FTC cannot be written after the CRD was, the CRD is
 * put back as it was (deleted if this run created it).
 */
export async function enableType(opts: EnableTypeOptions): Promise<EnableTypeResult> {
  const out = opts.out ?? (() => {});
  const { host, namespace: ns } = opts;
  const directive = directiveFrom(opts);
  const { ftc, crd } = await generateEnableResources(host, ns, directive, opts.warn);

  if (opts.output === 'yaml') {
    // Like KubeFed's -o yaml: print, check nothing, write nothing.
    out(`---\n${toYaml(ftc)}---\n${toYaml(crd)}`);
    return { ftc, crd, crdAction: 'none', ftcAction: 'none' };
  }

  // --- Checks: read-only --------------------------------------------------------------------------------
  try {
    await host.get(CoreTypes.namespaces, ns);
  } catch (e) {
    if (isNotFound(e)) {
      throw new CommandError(
        `KubeFed system namespace "${ns}" does not exist. Is a KubeFed control plane running in this namespace?`,
      );
    }
    throw apiFailure(
      host,
      `Error attempting to determine whether KubeFed system namespace "${ns}" exists`,
      e,
    );
  }
  const existingFtc = await getOrUndefined<FederatedTypeConfigObject>(
    host,
    () => host.get(FederatedTypeConfigType, ftc.metadata.name, ns),
    `Error retrieving FederatedTypeConfig "${ftc.metadata.name}"`,
  );
  if (existingFtc) {
    const had = existingFtc.spec.federatedType;
    const want = ftc.spec.federatedType;
    if (had.pluralName !== want.pluralName || had.version !== want.version || had.group !== want.group) {
      throw new CommandError(
        `Federation is already enabled for "${qualifiedApiName(existingFtc.spec.targetType)}" with federated type ` +
          `"${qualifiedApiName(had)}". Changing the federated type to "${qualifiedApiName(want)}" is not supported.`,
      );
    }
  }
  const crdName = crd.metadata.name;
  const existingCrd = await getOrUndefined<KubeObject & { spec?: unknown }>(
    host,
    () => host.get(CoreTypes.crds, crdName),
    `Error getting CRD "${crdName}"`,
  );
  if (existingCrd) await checkCrdConflicts(host, ns, ftc, crdName);

  const crdAction = existingCrd ? 'updated' : 'created';
  const ftcAction = existingFtc ? 'updated' : 'created';
  if (opts.dryRun) {
    // kubectl's convention: the lines a real run would print, marked.
    out(`customresourcedefinition.apiextensions.k8s.io/${crdName} ${crdAction} (dry run)`);
    out(`federatedtypeconfig.core.kubefed.io/${ftc.metadata.name} ${ftcAction} in namespace ${ns} (dry run)`);
    return { ftc, crd, crdAction, ftcAction };
  }

  // --- Writes -------------------------------------------------------------------------------------------
  if (existingCrd) {
    try {
      await host.update(CoreTypes.crds, { ...existingCrd, spec: crd.spec });
    } catch (e) {
      throw apiFailure(host, `Error updating CRD "${crdName}"`, e);
    }
  } else {
    try {
      await host.create(CoreTypes.crds, { ...crd });
    } catch (e) {
      throw apiFailure(host, `Error creating CRD "${crdName}"`, e);
    }
  }
  out(`customresourcedefinition.apiextensions.k8s.io/${crdName} ${crdAction}`);

  try {
    await waitForEstablished(host, crdName, opts.establishTimeoutMs ?? 30_000);
    await opts.beforeFtcWrite?.(ftc);
    if (existingFtc) {
      const patch = {
        metadata: { resourceVersion: existingFtc.metadata.resourceVersion },
        spec: mergePatch(existingFtc.spec, ftc.spec),
      };
      try {
        await host.patch(FederatedTypeConfigType, ftc.metadata.name, patch, { namespace: ns });
      } catch (e) {
        throw apiFailure(host, `Error updating FederatedTypeConfig "${ftc.metadata.name}"`, e);
      }
    } else {
      try {
        await host.create(FederatedTypeConfigType, ftc);
      } catch (e) {
        throw apiFailure(host, `Error creating FederatedTypeConfig "${ftc.metadata.name}"`, e);
      }
    }
  } catch (e) {
    const undone = await restoreCrd(host, crdName, existingCrd).then(
      () => true,
      () => false,
    );
    const note = existingCrd
      ? undone
        ? ` (CRD "${crdName}" restored)`
        : ` (CRD "${crdName}" could not be restored)`
      : undone
        ? ` (CRD "${crdName}" deleted again)`
        : ` (CRD "${crdName}" could not be deleted again)`;
    throw new CommandError(`${errorMessage(e)}${note}`);
  }
  out(`federatedtypeconfig.core.kubefed.io/${ftc.metadata.name} ${ftcAction} in namespace ${ns}`);
  return { ftc, crd, crdAction, ftcAction };
}

/**
 * An existing CRD may only be taken over if no other FTC federates an equivalent (deprecated) API of the
 * same resource, and no other FTC already uses that CRD (KubeFed's checks, in its order).
 */
async function checkCrdConflicts(
  host: KubeClient,
  ns: string,
  ftc: FederatedTypeConfigObject,
  crdName: string,
): Promise<void> {
  let ftcs: FederatedTypeConfigObject[];
  try {
    ftcs = (await host.listAll<FederatedTypeConfigObject>(FederatedTypeConfigType, { namespace: ns })).items;
  } catch (e) {
    throw apiFailure(host, 'Error getting FederatedTypeConfig list', e);
  }
  const wanted = apiRef(ftc);
  for (const other of ftcs) {
    if (isEquivalentApi(apiRef(other), wanted)) {
      throw new CommandError(
        `Failed to enable "${qualifiedApiName(ftc.spec.targetType)}". Federation of this type is already enabled for ` +
          `equivalent type "${qualifiedApiName(other.spec.targetType)}" by FederatedTypeConfig ` +
          `"${other.metadata.namespace ?? ns}/${other.metadata.name}"`,
      );
    }
    if (other.metadata.name === ftc.metadata.name) continue;
    const used = federatedCrdName(other);
    if (used === crdName) {
      const n = ftc.metadata.name;
      throw new CommandError(
        `Failed to enable federation of "${n}" due to the FederatedTypeConfig for "${other.metadata.name}" already ` +
          `referencing a federated type CRD named "${used}". If these target types are distinct despite sharing ` +
          `the same kind, specifying a non-default --federated-group should allow "${n}" to be enabled.`,
      );
    }
  }
}

/** The target of an FTC; a group left out of the spec is taken from the FTC name, as KubeFed defaults it. */
function apiRef(ftc: FederatedTypeConfigObject): { plural: string; group: string; version: string } {
  const t = ftc.spec.targetType;
  const dot = ftc.metadata.name.indexOf('.');
  const group = t.group ?? (dot >= 0 ? ftc.metadata.name.slice(dot + 1) : '');
  return { plural: t.pluralName, group, version: t.version };
}

/** KubeFed's qualifiedAPIResourceName: `plural.group/version`, or `plural/version` for the core group. */
function qualifiedApiName(r: { pluralName: string; group?: string; version: string }): string {
  return resourceTypeName({ plural: r.pluralName, group: r.group ?? '', version: r.version });
}

async function getOrUndefined<T>(
  host: KubeClient,
  get: () => Promise<T>,
  what: string,
): Promise<T | undefined> {
  try {
    return await get();
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw apiFailure(host, what, e);
  }
}

/** An API answer keeps KubeFed's "<what>: <cause>"; no answer at all says the host cannot be reached. */
export function apiFailure(host: KubeClient, what: string, e: unknown): CommandError {
  if (e instanceof CommandError) return e;
  if (e instanceof ApiError) return new CommandError(`${what}: ${e.message}`);
  return hostError(e, host.name);
}

interface CrdStatus extends KubeObject {
  status?: { conditions?: Array<{ type: string; status: string; message?: string }> };
}

/** The federated type is only usable (and its FTC only sensible) once the API server serves the CRD. */
async function waitForEstablished(host: KubeClient, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = await host.get<CrdStatus>(CoreTypes.crds, name);
    const conds = c.status?.conditions ?? [];
    if (conds.some((x) => x.type === 'Established' && x.status === 'True')) return;
    const names = conds.find((x) => x.type === 'NamesAccepted' && x.status === 'False');
    if (names) throw new CommandError(`CRD "${name}" was not accepted: ${names.message ?? 'names conflict'}`);
    if (Date.now() > deadline)
      throw new CommandError(`CRD "${name}" was not established within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Undoes this run's CRD write: delete a CRD it created, or put back the spec of one it updated. */
async function restoreCrd(
  host: KubeClient,
  name: string,
  previous: (KubeObject & { spec?: unknown }) | undefined,
): Promise<void> {
  if (!previous) {
    await host.delete(CoreTypes.crds, name);
    return;
  }
  const current = await host.get(CoreTypes.crds, name);
  await host.update(CoreTypes.crds, { ...current, spec: previous.spec });
}

/** A JSON merge patch turning `from` into `to`: changed keys set, removed keys nulled (controller-runtime's MergeFrom). */
function mergePatch(from: unknown, to: unknown): unknown {
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObj(from) || !isObj(to)) return to;
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(from)) if (!(k in to)) patch[k] = null;
  for (const [k, v] of Object.entries(to)) {
    if (JSON.stringify(from[k]) !== JSON.stringify(v)) patch[k] = mergePatch(from[k], v);
  }
  return patch;
}
