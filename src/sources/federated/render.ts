// A Federated<Kind> as a Work: the same object in every selected cluster, rendered as KubeFed's
// pkg/controller/sync/resource.go ObjectForCluster does — template → identity → field retention
// (dispatch/retain.go) → overrides (RFC 6902) → managed label — against each member's live copy.

import { FEDERATED_SOURCE } from '../../engine/ownership.ts';
import {
  type DesiredObject,
  type EventSink,
  type ObjectRef,
  RenderError,
  type Work,
} from '../../engine/work.ts';
import type { KubeObject, ResourceType } from '../../kube/client/index.ts';
import { ClusterStatus } from '../../propagation/constants.ts';
import { buildClusterObject } from '../../propagation/desired.ts';
import { JsonPatchError } from '../../propagation/json-patch.ts';
import { type OverrideOperation, OverridesError, parseOverrides } from '../../propagation/overrides.ts';
import { FieldRetentionError } from '../../propagation/retain.ts';
import type { FederatedObject } from './federated-object.ts';

export type TargetType = ResourceType & { kind: string };

export interface FederatedWorkInput {
  fed: FederatedObject;
  /** Kind of the federated type (FederatedConfigMap). */
  federatedKind: string;
  target: TargetType;
  /** Name and namespace of the member object (a FederatedNamespace's target has no namespace). */
  name: string;
  namespace?: string;
  selected: ReadonlySet<string>;
  /** Member versions recorded for this template and these overrides. */
  recorded: ReadonlyMap<string, string>;
  adopt: boolean;
  /** For the namespaces type: the uid of the host's own Namespace of that name (kept, never deleted). */
  hostNamespaceUid?: string;
  event: EventSink;
}

/** The member object a federated object stands for. */
export function federatedTarget(target: TargetType, name: string, namespace: string | undefined): ObjectRef {
  return { type: target, name, namespace: target.namespaced ? namespace : undefined };
}

export function federatedOwner(fed: FederatedObject, federatedKind: string): Work['owner'] {
  return {
    source: FEDERATED_SOURCE,
    kind: federatedKind,
    namespace: fed.metadata.namespace,
    name: fed.metadata.name ?? '',
    uid: fed.metadata.uid ?? '',
  };
}

/** KubeFed never deletes the host's own Namespace from a member that is the host itself: it only unlabels it. */
export function keepHostNamespace(target: TargetType, hostNamespaceUid: string | undefined) {
  return (_cluster: string, live: KubeObject): boolean =>
    target.kind === 'Namespace' && !!hostNamespaceUid && live.metadata.uid === hostNamespaceUid;
}

/**
 * The Work for one federated object, and the overrides error if they do not parse (every selected cluster
 * then reports ApplyOverridesFailed and keeps its copy as it is, as KubeFed does).
 */
export function federatedWork(input: FederatedWorkInput): { work: Work; overridesError?: string } {
  const { fed, target } = input;
  let overrides: ReadonlyMap<string, readonly OverrideOperation[]> = new Map();
  let overridesError: string | undefined;
  try {
    overrides = parseOverrides(fed.spec?.overrides);
  } catch (e) {
    overridesError = e instanceof Error ? e.message : String(e);
  }
  const ref = federatedTarget(target, input.name, input.namespace);
  const clusters = new Map<string, DesiredObject[]>();
  for (const cluster of input.selected) {
    clusters.set(cluster, [
      {
        ...ref,
        recordedVersion: input.recorded.get(cluster),
        invalid:
          overridesError === undefined
            ? undefined
            : { status: ClusterStatus.ApplyOverridesFailed, message: overridesError },
        render: (live) =>
          renderFederated(() =>
            buildClusterObject({
              template: fed.spec?.template,
              name: input.name,
              namespace: ref.namespace,
              target,
              retainReplicas: fed.spec?.retainReplicas === true,
              member: live,
              overrides: overrides.get(cluster) ?? [],
            }),
          ),
      },
    ]);
  }
  return {
    work: {
      owner: federatedOwner(fed, input.federatedKind),
      objects: [ref],
      clusters,
      adopt: input.adopt,
      keep: keepHostNamespace(target, input.hostNamespaceUid),
      event: input.event,
    },
    overridesError,
  };
}

/** The errors of buildClusterObject as the member statuses KubeFed reports for them. */
function renderFederated<T>(build: () => T): T {
  try {
    return build();
  } catch (e) {
    if (e instanceof FieldRetentionError)
      throw new RenderError(ClusterStatus.FieldRetentionFailed, e.message);
    if (e instanceof JsonPatchError || e instanceof OverridesError) {
      throw new RenderError(ClusterStatus.ApplyOverridesFailed, e.message);
    }
    throw e;
  }
}
