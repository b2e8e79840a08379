import { parseAllDocuments, stringify as toYaml } from 'yaml';
import { pluralName } from '../api/core/v1beta1/index.ts';
import { federatedTypeConfigFor } from '../federation-types/federated-crd.ts';
import { FEDERATED_GROUP, FEDERATED_VERSION } from '../federation-types/group.ts';
import { apiVersionOf, type KubeObject } from '../kube/client/index.ts';
import type { FederatedObject } from '../sources/federated/federated-object.ts';

/** The federated type a target object is converted into. */
export interface FederatedTypeRef {
  federatedGroup: string;
  federatedVersion: string;
  federatedKind: string;
  /** The target is a Namespace: its FederatedNamespace lives inside the namespace itself. */
  isNamespace: boolean;
  /** Kind of the target type (from its FTC); defaults to the object's kind, which list items lack. */
  targetKind?: string;
}

/**
 * A Federated<Kind> object as `kubefedctl federate` creates it: the target as template, all clusters. The
 * sync controller's FederatedObject, with the fields federate always sets made required.
 */
export type FederatedObjectFromTarget = FederatedObject & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: {
    template: Record<string, unknown>;
    placement: { clusterSelector: { matchLabels: Record<string, string> } };
  };
};

export interface Conversion {
  object: FederatedObjectFromTarget;
  /** Lines for the user (without a `Warning:` prefix). */
  warnings: string[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** KubeFed's QualifiedName.String(): `ns/name`, or `name` without a namespace. */
export function qualifiedName(name: string, namespace?: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * KubeFed's FederatedResourceFromTargetResource (pkg/kubefedctl/federate/federate.go). The template is the
 * target without apiVersion, kind, status and every metadata field but labels (the rest is set by the system
 * or the sync controller), minus fields a controller of the host filled in that must not be copied to other
 * clusters.
 */
export function federatedResourceFromTarget(target: KubeObject, type: FederatedTypeRef): Conversion {
  const template = structuredClone(target) as Json;
  const targetKind = type.targetKind ?? target.kind ?? '';
  const spec = isObject(template['spec']) ? template['spec'] : undefined;
  switch (targetKind) {
    case 'Namespace':
      // Finalizers of a namespace (`kubernetes`) are the host's own bookkeeping.
      if (spec) delete spec['finalizers'];
      break;
    case 'ServiceAccount':
      // Token secrets are per cluster; members create their own.
      delete template['secrets'];
      break;
    case 'Service':
      if (spec) stripServiceAllocations(spec);
      break;
  }

  const name = target.metadata.name ?? '';
  const warnings: string[] = [];
  const annotations = target.metadata.annotations ?? {};
  const keys = Object.keys(annotations).sort();
  if (keys.length > 0) {
    // KubeFed prints the whole map (values too); the keys alone stay one line with
    // last-applied-configuration.
    warnings.push(
      `Annotations defined for ${targetKind} "${qualifiedName(name, target.metadata.namespace)}" will not ` +
        `appear in the template of the federated resource: ${keys.join(', ')}`,
    );
  }

  const { apiVersion: _a, kind: _k, status: _s, metadata: _m, ...body } = template;
  const labels = target.metadata.labels;
  // metadata first, where a reader expects it.
  const templateOut: Json =
    labels && Object.keys(labels).length > 0 ? { metadata: { labels: { ...labels } }, ...body } : body;

  const namespace = type.isNamespace ? name : target.metadata.namespace;
  const metadata: FederatedObjectFromTarget['metadata'] = namespace ? { name, namespace } : { name };
  return {
    object: {
      apiVersion: apiVersionOf({ group: type.federatedGroup, version: type.federatedVersion }),
      kind: type.federatedKind,
      metadata,
      spec: { template: templateOut, placement: { clusterSelector: { matchLabels: {} } } },
    },
    warnings,
  };
}

/**
 * Node ports and cluster IPs are allocated per cluster: copied, they would collide in the members. A headless
 * Service's `None` is kept (kubefed-ts choice): it is the user's choice, not an allocation, and without it
 * the members would get ordinary ClusterIP services. KubeFed removes it too.
 */
function stripServiceAllocations(spec: Json): void {
  if (Array.isArray(spec['ports'])) {
    for (const port of spec['ports']) if (isObject(port)) delete port['nodePort'];
  }
  if (spec['clusterIP'] !== 'None') {
    delete spec['clusterIP'];
    delete spec['clusterIPs'];
  }
}

/** Splits `group/version` (or a core `version`) as Kubernetes does. */
function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The objects of a multi-document YAML stream (`-f`). Empty documents are skipped; a `List` (what
 * `kubectl get -o yaml` prints) contributes its items (kubefed-ts addition). Throws on invalid input.
 */
export function parseTargetDocuments(text: string): KubeObject[] {
  const objects: KubeObject[] = [];
  const add = (value: unknown, where: string): void => {
    if (!isObject(value)) throw new Error(`${where}: not an object`);
    if (value['kind'] === 'List' && Array.isArray(value['items'])) {
      value['items'].forEach((item, i) => {
        add(item, `${where}, item ${i + 1}`);
      });
      return;
    }
    const metadata = value['metadata'];
    const { apiVersion, kind } = value;
    if (typeof apiVersion !== 'string' || !apiVersion || typeof kind !== 'string' || !kind)
      throw new Error(`${where}: apiVersion and kind are required`);
    if (!isObject(metadata) || typeof metadata['name'] !== 'string' || !metadata['name'])
      throw new Error(`${where}: metadata.name is required`);
    objects.push(value as KubeObject);
  };
  parseAllDocuments(text).forEach((doc, i) => {
    const where = `document ${i + 1}`;
    const [err] = doc.errors;
    if (err) throw new Error(`${where}: ${err.message.split('\n')[0]}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return;
    add(value, where);
  });
  return objects;
}

/**
 * Offline federation (`federate -f`, KubeFed's FederateResources): no API server is asked. The plural is
 * guessed from the kind, the object is namespaced iff it has a namespace, and the federated type is the one
 * `enable` would generate with the default (or given) federated group and version.
 */
export function federateOffline(
  targets: readonly KubeObject[],
  opts: { federatedGroup?: string; federatedVersion?: string } = {},
): { objects: FederatedObjectFromTarget[]; warnings: string[] } {
  const objects: FederatedObjectFromTarget[] = [];
  const warnings: string[] = [];
  for (const target of targets) {
    const { group, version } = splitApiVersion(target.apiVersion ?? '');
    const kind = target.kind ?? '';
    const ftc = federatedTypeConfigFor(
      {
        group,
        version,
        kind,
        plural: pluralName(kind),
        singular: kind.toLowerCase(),
        shortNames: [],
        namespaced: Boolean(target.metadata.namespace),
        scalable: false,
        hasSchema: true,
      },
      {
        namespace: '',
        federatedGroup: opts.federatedGroup || FEDERATED_GROUP,
        federatedVersion: opts.federatedVersion || FEDERATED_VERSION,
      },
    );
    const fed = ftc.spec.federatedType;
    const c = federatedResourceFromTarget(target, {
      federatedGroup: fed.group ?? FEDERATED_GROUP,
      federatedVersion: fed.version,
      federatedKind: fed.kind,
      isNamespace: group === '' && kind === 'Namespace',
      targetKind: kind,
    });
    objects.push(c.object);
    warnings.push(...c.warnings);
  }
  return { objects, warnings };
}

/** KubeFed's WriteUnstructuredObjsToYaml: each object preceded by `---`. */
export function toYamlDocuments(objects: readonly KubeObject[]): string {
  return objects.map((o) => `---\n${toYaml(o)}`).join('');
}
