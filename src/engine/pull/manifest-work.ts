// The ManifestWork the engine hands a Pull cluster's agent instead of applying a Work's objects itself
// (pure). One per owner and cluster: the owner's desired objects for that cluster, rendered as for a create
// (the hub has no live copy) and stamped exactly as the applier stamps them, applied by the agent with
// server-side apply so that fields the member owns are kept, with feedback of the status the sources read.

import { createHash } from 'node:crypto';
import {
  API_VERSION,
  DEFAULT_FIELD_MANAGER,
  type DeleteOption,
  type Manifest,
  type ManifestConfigOption,
  type ManifestWork,
  MW_KIND,
} from '../../api/ocm/work/v1/index.ts';
import { apiVersionOf, errorMessage, type KubeObject } from '../../kube/client/index.ts';
import { ClusterStatus, MANAGED_LABEL } from '../../propagation/constants.ts';
import { canonicalJson } from '../../propagation/json.ts';
import { OWNER_ANNOTATION, ownerId, stampOwner } from '../ownership.ts';
import type { PlannedEvent } from '../plan.ts';
import { type DesiredObject, type ObjectRef, RenderError, type WorkOwner } from '../work.ts';
import { manifestWorkLabels, manifestWorkName, WORK_SPEC_HASH_ANNOTATION } from './names.ts';

/** The feedback values the agent reports for every manifest: what the sources read of a member object. */
export const STATUS_FEEDBACK = 'status';
export const GENERATION_FEEDBACK = 'generation';

/** One object for the agent: what it is, and the object to apply. */
export interface PullManifest {
  ref: ObjectRef;
  object: KubeObject;
}

export interface ManifestWorkOptions {
  /** Objects never deleted, only released (Work.keep): orphaned when they leave the work or it goes. */
  keep?: (ref: ObjectRef, object: KubeObject) => boolean;
  /**
   * The owner lets everything go (KubeFed's orphaning deletion): the manifests lose the managed label, which
   * the agent's server-side apply removes from the member objects, and deleting the work orphans them.
   */
  release?: boolean;
}

/** The ManifestWork for one owner's objects in one Pull cluster. */
export function manifestWorkFor(
  owner: WorkOwner,
  cluster: string,
  objects: readonly PullManifest[],
  opts: ManifestWorkOptions = {},
): ManifestWork {
  const manifests: Manifest[] = [];
  const configs: ManifestConfigOption[] = [];
  const kept: ObjectRef[] = [];
  for (const { ref, object } of objects) {
    const m = manifestOf(ref, object, owner, opts.release === true);
    manifests.push(m);
    configs.push(manifestConfigFor(ref));
    if (opts.keep?.(ref, m)) kept.push(ref);
  }
  const spec: ManifestWork['spec'] = {
    workload: { manifests },
    deleteOption: deleteOptionFor(opts.release === true, kept),
    manifestConfigs: configs,
  };
  return {
    apiVersion: API_VERSION,
    kind: MW_KIND,
    metadata: {
      name: manifestWorkName(owner),
      namespace: cluster,
      labels: manifestWorkLabels(owner),
      annotations: { [OWNER_ANNOTATION]: ownerId(owner), [WORK_SPEC_HASH_ANNOTATION]: specHash(spec) },
    },
    spec,
  };
}

/** The hash written in WORK_SPEC_HASH_ANNOTATION. */
export function specHash(spec: ManifestWork['spec']): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
}

/** Whether `existing` already holds what `desired` would write (so no hub write is needed). */
export function sameManifestWork(existing: ManifestWork, desired: ManifestWork): boolean {
  const ann = (mw: ManifestWork) => mw.metadata.annotations?.[WORK_SPEC_HASH_ANNOTATION];
  return ann(existing) !== undefined && ann(existing) === ann(desired);
}

const SERVER_SET_METADATA = [
  'resourceVersion',
  'uid',
  'creationTimestamp',
  'generation',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
] as const;

/** The manifest of one object: a fresh object for the agent to apply, marked as `owner`'s. */
function manifestOf(ref: ObjectRef, object: KubeObject, owner: WorkOwner, release: boolean): Manifest {
  const m = structuredClone(object) as Manifest;
  m.apiVersion = apiVersionOf(ref.type);
  m.kind = ref.type.kind;
  // The hub's copy of a member object has no server-set fields: none of them can be applied.
  const meta: Record<string, unknown> = { ...m.metadata };
  for (const f of SERVER_SET_METADATA) delete meta[f];
  m.metadata = meta as Manifest['metadata'];
  delete m.status;
  stampOwner(m, owner);
  // Named for every source, Federated<Kind> included: the agent lets a manifest take a managed object only
  // when both name the same owner, so that a user's ManifestWork never takes one (engine/agent).
  m.metadata.annotations = { ...(m.metadata.annotations ?? {}), [OWNER_ANNOTATION]: ownerId(owner) };
  if (release) unmark(m);
  return m;
}

/**
 * The applier's release (unlabel): the managed label goes. The owner annotation stays, which the agent needs
 * to let the release through; without the label it claims nothing (ownership.ts).
 */
function unmark(m: Manifest): void {
  const { [MANAGED_LABEL]: _, ...labels } = m.metadata.labels ?? {};
  m.metadata.labels = labels;
}

function manifestConfigFor(ref: ObjectRef): ManifestConfigOption {
  return {
    resourceIdentifier: {
      group: ref.type.group,
      resource: ref.type.plural,
      name: ref.name,
      ...(ref.type.namespaced && ref.namespace ? { namespace: ref.namespace } : {}),
    },
    // Server-side apply as the agent's own manager: a field the member (or its controllers) set and the
    // manifest does not name is kept, which the push path gets by rendering against the live copy.
    updateStrategy: {
      type: 'ServerSideApply',
      serverSideApply: { force: true, fieldManager: DEFAULT_FIELD_MANAGER },
    },
    feedbackRules: [
      {
        type: 'JSONPaths',
        jsonPaths: [
          { name: STATUS_FEEDBACK, path: '.status' },
          { name: GENERATION_FEEDBACK, path: '.metadata.generation' },
        ],
      },
    ],
  };
}

function deleteOptionFor(release: boolean, kept: readonly ObjectRef[]): DeleteOption {
  if (release) return { propagationPolicy: 'Orphan' };
  if (kept.length === 0) return { propagationPolicy: 'Foreground' };
  return {
    propagationPolicy: 'SelectivelyOrphan',
    selectivelyOrphans: {
      orphaningRules: kept.map((r) => ({
        group: r.type.group,
        resource: r.type.plural,
        name: r.name,
        ...(r.type.namespaced && r.namespace ? { namespace: r.namespace } : {}),
      })),
    },
  };
}

/** What could not be put in the work, by object: reported as the push path reports a render failure. */
export interface PullFailure {
  ref: ObjectRef;
  status: string;
  message: string;
  event?: PlannedEvent;
}

export interface PullRendering {
  objects: PullManifest[];
  failures: PullFailure[];
  /** The sources' render warnings, to record as events. */
  warnings: PlannedEvent[];
}

/**
 * Renders a cluster's desired objects for the agent. An object that cannot be rendered, or that the source
 * marks invalid, keeps the manifest the previous work had for it (the push path leaves the member copy as it
 * is; leaving it out of the work would make the agent delete it), and its status is reported.
 */
export function renderForPull(
  cluster: string,
  desired: readonly DesiredObject[],
  previous: ManifestWork | undefined,
): PullRendering {
  const out: PullRendering = { objects: [], failures: [], warnings: [] };
  for (const d of desired) {
    const ref: ObjectRef = { type: d.type, namespace: d.namespace, name: d.name };
    const keepPrevious = () => {
      const prev = previousManifest(previous, ref);
      if (prev) out.objects.push({ ref, object: prev });
    };
    if (d.invalid) {
      out.failures.push({ ref, ...d.invalid });
      keepPrevious();
      continue;
    }
    try {
      const r = d.render(undefined);
      for (const w of r.warnings)
        out.warnings.push({ type: 'Warning', reason: w.reason, message: w.message });
      out.objects.push({ ref, object: r.object });
    } catch (e) {
      const status = e instanceof RenderError ? e.status : ClusterStatus.ComputeResourceFailed;
      const message = errorMessage(e);
      out.failures.push({
        ref,
        status,
        message,
        event: { type: 'Warning', reason: status, message: `Cluster "${cluster}": ${message}` },
      });
      keepPrevious();
    }
  }
  return out;
}

/** The manifest a ManifestWork holds for `ref`, if any, and its index in spec.workload.manifests. */
export function manifestIndex(mw: ManifestWork | undefined, ref: ObjectRef): number {
  const manifests = mw?.spec.workload?.manifests ?? [];
  return manifests.findIndex((m) => manifestIs(m, ref));
}

function previousManifest(mw: ManifestWork | undefined, ref: ObjectRef): KubeObject | undefined {
  const i = manifestIndex(mw, ref);
  return i < 0 ? undefined : structuredClone(mw?.spec.workload?.manifests?.[i]);
}

export function manifestIs(m: KubeObject, ref: ObjectRef): boolean {
  const group = (m.apiVersion ?? '').includes('/') ? (m.apiVersion ?? '').split('/')[0] : '';
  return (
    group === ref.type.group &&
    m.kind === ref.type.kind &&
    (m.metadata?.name ?? '') === ref.name &&
    (ref.type.namespaced ? (m.metadata?.namespace ?? '') === (ref.namespace ?? '') : true)
  );
}

/** The refs of the objects a ManifestWork holds that belong to an owner's inventory. */
export function refsIn(mw: ManifestWork, inventory: readonly ObjectRef[]): ObjectRef[] {
  const manifests = mw.spec.workload?.manifests ?? [];
  return inventory.filter((r) => manifests.some((m) => manifestIs(m, r)));
}
