import {
  API_VERSION,
  FEDERATED_TYPE_CONFIG_KIND,
  type FederatedTypeConfigSpec,
  type FederatedTypeConfigStatus,
  PropagationMode,
  StatusCollectionMode,
} from '../api/core/v1beta1/index.ts';
import type { CustomResourceDefinition, JsonSchemaProps, PrinterColumn } from '../api/crd.ts';
import type { KubeObject, ObjectMeta } from '../kube/client/index.ts';
import { groupQualifiedName } from '../kube/client/index.ts';
import { dropUndefined } from '../util/drop-undefined.ts';
import { federatedKindFor, federatedPluralFor, ftcNameFor } from './federate-names.ts';
import { FEDERATED_GROUP, FEDERATED_VERSION } from './group.ts';
import type { TargetTypeInfo } from './target.ts';

/** A FederatedTypeConfig as written to and read from the API server. */
export interface FederatedTypeConfigObject extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { name: string };
  spec: FederatedTypeConfigSpec;
  status?: FederatedTypeConfigStatus;
}

export interface FederatedTypeOptions {
  federatedGroup?: string;
  federatedVersion?: string;
}

/**
 * FederatedNamespace lives inside the namespace it federates, so it is namespaced although Namespace is not.
 */
function federatedScope(target: TargetTypeInfo): 'Namespaced' | 'Cluster' {
  if (target.group === '' && target.plural === 'namespaces') return 'Namespaced';
  return target.namespaced ? 'Namespaced' : 'Cluster';
}

/**
 * The FTC `kubefedctl enable` writes for a target (KubeFed pkg/kubefedctl/enable/enable.go,
 * GenerateTypeConfigForTarget).
 */
export function federatedTypeConfigFor(
  target: TargetTypeInfo,
  opts: FederatedTypeOptions & { namespace: string; statusCollection?: boolean },
): FederatedTypeConfigObject {
  const spec: FederatedTypeConfigSpec = {
    targetType: dropUndefined({
      group: target.group || undefined,
      version: target.version,
      kind: target.kind,
      pluralName: target.plural,
      scope: target.namespaced ? 'Namespaced' : 'Cluster',
    }),
    propagation: PropagationMode.Enabled,
    federatedType: {
      group: opts.federatedGroup ?? FEDERATED_GROUP,
      version: opts.federatedVersion ?? FEDERATED_VERSION,
      kind: federatedKindFor(target.kind),
      pluralName: federatedPluralFor(target.plural),
      scope: federatedScope(target),
    },
  };
  if (opts.statusCollection !== undefined) {
    spec.statusCollection = opts.statusCollection
      ? StatusCollectionMode.Enabled
      : StatusCollectionMode.Disabled;
  }
  return {
    apiVersion: API_VERSION,
    kind: FEDERATED_TYPE_CONFIG_KIND,
    metadata: { name: ftcNameFor(target), namespace: opts.namespace },
    spec,
  };
}

/** The name of the CRD an FTC's federated type lives in, e.g. `federateddeployments.types.kubefed.io`. */
export function federatedCrdName(ftc: { spec: FederatedTypeConfigSpec }): string {
  return groupQualifiedName(ftc.spec.federatedType.pluralName, ftc.spec.federatedType.group ?? '');
}

/**
 * The Federated<Kind> CRD for a target, shaped as KubeFed's generator makes it
 * (pkg/kubefedctl/enable/enable.go, federatedTypeCRD; validation.go, federatedTypeValidationSchema) plus
 * kubefed-ts columns.
 */
export function federatedCrdFor(
  target: TargetTypeInfo,
  opts: FederatedTypeOptions = {},
): CustomResourceDefinition {
  const group = opts.federatedGroup ?? FEDERATED_GROUP;
  const version = opts.federatedVersion ?? FEDERATED_VERSION;
  const kind = federatedKindFor(target.kind);
  const plural = federatedPluralFor(target.plural);
  const names: CustomResourceDefinition['spec']['names'] = {
    kind,
    listKind: `${kind}List`,
    plural,
    singular: `federated${target.singular}`,
  };
  if (target.shortNames.length > 0) names.shortNames = target.shortNames.map((s) => `f${s}`);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: groupQualifiedName(plural, group) },
    spec: {
      group,
      names,
      scope: federatedScope(target),
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          additionalPrinterColumns: printerColumnsFor(target.kind),
          schema: { openAPIV3Schema: federatedSchema(target) },
          subresources: { status: {} },
        },
      ],
    },
  };
}

const str = (extra: JsonSchemaProps = {}): JsonSchemaProps => ({ type: 'string', ...extra });
const arr = (items: JsonSchemaProps): JsonSchemaProps => ({ type: 'array', items });
const obj = (properties: Record<string, JsonSchemaProps>, required?: string[]): JsonSchemaProps =>
  required ? { type: 'object', properties, required } : { type: 'object', properties };
const anyObject = (): JsonSchemaProps => ({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });

function federatedSchema(target: TargetTypeInfo): JsonSchemaProps {
  const spec: Record<string, JsonSchemaProps> = {};
  // Without a target schema KubeFed declares no template at all (and pruning then drops it).
  if (target.hasSchema) spec['template'] = anyObject();
  spec['placement'] = obj({
    clusters: arr(obj({ name: str() }, ['name'])),
    clusterSelector: obj({
      matchLabels: { type: 'object', additionalProperties: str() },
      matchExpressions: arr(obj({ key: str(), operator: str(), values: arr(str()) }, ['key', 'operator'])),
    }),
  });
  spec['overrides'] = arr(
    obj({
      clusterName: str(),
      clusterOverrides: arr(
        obj(
          {
            op: str({ pattern: '^(add|remove|replace)?$' }),
            path: str(),
            value: { 'x-kubernetes-preserve-unknown-fields': true },
          },
          ['path'],
        ),
      ),
    }),
  );
  // Only scalable targets get retainReplicas: it lets an HPA in each member own spec.replicas.
  if (target.scalable) spec['retainReplicas'] = { type: 'boolean' };

  const dateTime = str({ format: 'date-time' });
  const status = obj({
    observedGeneration: { type: 'integer', format: 'int64' },
    conditions: arr(
      obj(
        { type: str(), status: str(), reason: str(), lastUpdateTime: dateTime, lastTransitionTime: dateTime },
        ['type', 'status'],
      ),
    ),
    clusters: arr(obj({ name: str(), status: str(), message: str(), remoteStatus: anyObject() }, ['name'])),
    // kubefed-ts extension: workload health summed over the member clusters.
    aggregate: anyObject(),
    // kubefed-ts extension: the member versions last written, in the shape of a PropagatedVersion's status.
    propagatedVersion: obj(
      {
        templateVersion: str(),
        overridesVersion: str(),
        clusterVersions: arr(obj({ clusterName: str(), version: str() }, ['clusterName', 'version'])),
      },
      ['templateVersion', 'overridesVersion'],
    ),
  });
  return obj(
    {
      apiVersion: str(),
      kind: str(),
      metadata: { type: 'object' },
      spec: obj(spec),
      status,
    },
    // A spec is required (even empty) to catch malformed objects of spec-less targets like ConfigMap.
    ['spec'],
  );
}

const WORKLOAD_KINDS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet']);

/** Columns over `.status.aggregate` for workload kinds (kubefed-ts addition); none for other kinds. */
export function workloadColumnsFor(kind: string): PrinterColumn[] {
  const agg = (name: string, field: string): PrinterColumn => ({
    name,
    type: 'integer',
    jsonPath: `.status.aggregate.${field}`,
  });
  const clusters = [agg('Healthy-Clusters', 'healthyClusters'), agg('Clusters', 'clusters')];
  if (WORKLOAD_KINDS.has(kind)) {
    return [
      agg('Replicas', 'replicas'),
      agg('Ready', 'readyReplicas'),
      agg('Available', 'availableReplicas'),
      ...clusters,
    ];
  }
  if (kind === 'Job')
    return [agg('Active', 'active'), agg('Succeeded', 'succeeded'), agg('Failed', 'failed'), ...clusters];
  return [];
}

function printerColumnsFor(kind: string): PrinterColumn[] {
  return [
    { name: 'Propagated', type: 'string', jsonPath: ".status.conditions[?(@.type=='Propagation')].status" },
    ...workloadColumnsFor(kind),
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ];
}
