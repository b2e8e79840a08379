// What a template needs in the same clusters for propagateDeps: Karmada's built-in GetDependencies (karmada
// pkg/resourceinterpreter/default/native/dependencies.go, helper.GetDependenciesFromPodTemplate and the lifted
// Kubernetes VisitPodSecretNames / VisitPodConfigmapNames in pkg/util/lifted/visitpod.go). From the pod spec:
// ConfigMaps and Secrets of every container's env/envFrom and of volumes (projected sources included), Secrets of
// imagePullSecrets and of the volume plugins that name one, the ServiceAccount unless it is "default", PVCs of
// volumes. A StatefulSet's volumeClaimTemplates are not dependencies: its controller makes those claims in each
// member. Ingress TLS Secrets too, as Karmada's getIngressDependencies. ReplicaSet is a kubefed-ts addition
// (Karmada has no dependency interpreter for it, though its pods reference the same objects a Deployment's do).

import type { KubeObject } from '../../kube/client/index.ts';
import { compareCodePoints, getOwn, isPlainObject, type JsonObject } from '../../propagation/json.ts';

export interface DependencyRef {
  apiVersion: 'v1';
  kind: 'ConfigMap' | 'Secret' | 'ServiceAccount' | 'PersistentVolumeClaim';
  namespace: string;
  name: string;
}

type DependencyKind = DependencyRef['kind'];

/** Lenient reads: a dependency scan of a malformed template finds what it can instead of failing. */
function obj(value: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = value === undefined ? undefined : getOwn(value, key);
  return isPlainObject(v) ? v : undefined;
}

function objs(value: JsonObject | undefined, key: string): JsonObject[] {
  const v = value === undefined ? undefined : getOwn(value, key);
  return Array.isArray(v) ? v.filter(isPlainObject) : [];
}

function str(value: JsonObject | undefined, key: string): string {
  const v = value === undefined ? undefined : getOwn(value, key);
  return typeof v === 'string' ? v : '';
}

/** The pod spec each kind runs, or undefined for a kind without dependencies. */
function podSpecOf(template: KubeObject): JsonObject | undefined {
  const spec = obj(template as JsonObject, 'spec');
  switch (template.kind) {
    case 'Deployment':
    case 'ReplicaSet':
    case 'DaemonSet':
    case 'StatefulSet':
    case 'Job':
      return obj(obj(spec, 'template'), 'spec');
    case 'CronJob':
      return obj(obj(obj(obj(spec, 'jobTemplate'), 'spec'), 'template'), 'spec');
    case 'Pod':
      return spec;
    default:
      return undefined;
  }
}

const POD_TEMPLATE_API_VERSIONS: Readonly<Record<string, string>> = {
  Deployment: 'apps/v1',
  ReplicaSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  StatefulSet: 'apps/v1',
  Job: 'batch/v1',
  CronJob: 'batch/v1',
  Pod: 'v1',
  Ingress: 'networking.k8s.io/v1',
};

/** Volume plugins whose `secretRef` names a Secret (lifted VisitPodSecretNames). */
const SECRET_REF_VOLUMES = ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos'];

function visitPodSpec(pod: JsonObject, add: (kind: DependencyKind, name: string) => void): void {
  for (const ref of objs(pod, 'imagePullSecrets')) add('Secret', str(ref, 'name'));
  const containers = [
    ...objs(pod, 'initContainers'),
    ...objs(pod, 'containers'),
    ...objs(pod, 'ephemeralContainers'),
  ];
  for (const c of containers) {
    for (const from of objs(c, 'envFrom')) {
      add('ConfigMap', str(obj(from, 'configMapRef'), 'name'));
      add('Secret', str(obj(from, 'secretRef'), 'name'));
    }
    for (const env of objs(c, 'env')) {
      const valueFrom = obj(env, 'valueFrom');
      add('ConfigMap', str(obj(valueFrom, 'configMapKeyRef'), 'name'));
      add('Secret', str(obj(valueFrom, 'secretKeyRef'), 'name'));
    }
  }
  for (const volume of objs(pod, 'volumes')) {
    add('ConfigMap', str(obj(volume, 'configMap'), 'name'));
    add('Secret', str(obj(volume, 'secret'), 'secretName'));
    add('Secret', str(obj(volume, 'azureFile'), 'secretName'));
    for (const plugin of SECRET_REF_VOLUMES)
      add('Secret', str(obj(obj(volume, plugin), 'secretRef'), 'name'));
    add('Secret', str(obj(obj(volume, 'csi'), 'nodePublishSecretRef'), 'name'));
    for (const source of objs(obj(volume, 'projected'), 'sources')) {
      add('ConfigMap', str(obj(source, 'configMap'), 'name'));
      add('Secret', str(obj(source, 'secret'), 'name'));
    }
    add('PersistentVolumeClaim', str(obj(volume, 'persistentVolumeClaim'), 'claimName'));
  }
  const serviceAccount = str(pod, 'serviceAccountName');
  if (serviceAccount !== 'default') add('ServiceAccount', serviceAccount);
}

/**
 * The ConfigMaps, Secrets, ServiceAccounts and PVCs the template references, in its namespace, deduplicated and
 * sorted by kind then name. Empty for kinds without a dependency interpreter (and for a CRD reusing a built-in
 * kind name in another group).
 */
export function dependenciesOf(template: KubeObject): DependencyRef[] {
  const kind = template.kind ?? '';
  if (!Object.hasOwn(POD_TEMPLATE_API_VERSIONS, kind)) return [];
  if (template.apiVersion !== undefined && template.apiVersion !== POD_TEMPLATE_API_VERSIONS[kind]) return [];
  const namespace = template.metadata.namespace ?? '';
  const found = new Map<string, DependencyRef>();
  const add = (k: DependencyKind, name: string): void => {
    // Kubernetes' visitors skip empty names: an unset reference names nothing.
    if (name !== '') found.set(`${k}/${name}`, { apiVersion: 'v1', kind: k, namespace, name });
  };
  if (kind === 'Ingress') {
    for (const tls of objs(obj(template as JsonObject, 'spec'), 'tls')) add('Secret', str(tls, 'secretName'));
  } else {
    const pod = podSpecOf(template);
    if (pod !== undefined) visitPodSpec(pod, add);
  }
  return [...found.values()].sort(
    (a, b) => compareCodePoints(a.kind, b.kind) || compareCodePoints(a.name, b.name),
  );
}
