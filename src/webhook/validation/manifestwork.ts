// OCM's admission rules for a ManifestWork (ocm pkg/work/webhook/v1/manifestwork_validating.go and
// pkg/work/webhook/common/validator.go), as pure functions: the manifests check (non-empty, total size under
// the limit, a name and no generateName, no duplicates) and the executor check, which needs a
// SubjectAccessReview on the hub and is therefore returned as a question for the shell to ask.

import { GROUP as WORK_GROUP } from '../../api/ocm/work/v1/group.ts';
import { MW_PLURAL } from '../../api/ocm/work/v1/manifestwork.ts';
import { isPlainObject, type JsonObject, jsonEqual } from '../../propagation/json.ts';

/** OCM's default --manifestLimit: 500 KiB of manifests per work. */
export const DEFAULT_MANIFEST_LIMIT = 500 * 1024;

/** The virtual verb a hub user needs on `manifestworks` to name an executor. */
export const EXECUTE_AS_VERB = 'execute-as';

/**
 * A value as Go's encoding/json writes it (keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped): the bytes
 * OCM measures, since the apiserver encodes the object that way and the webhook keeps each manifest raw.
 */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(
      /[<>&\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${goJson(k)}:${goJson(v)}`).join(',')}}`;
  }
  return 'null';
}

/** Bytes of a protobuf varint holding `n`. */
const varintLength = (n: number): number => {
  let bytes = 1;
  for (let v = n; v >= 0x80; v = Math.floor(v / 0x80)) bytes++;
  return bytes;
};

/**
 * The size OCM counts for one manifest: `Manifest.Size()`, which is RawExtension's protobuf size, the raw
 * JSON plus its field tag and length varint.
 */
export function manifestSize(manifest: unknown): number {
  const raw = Buffer.byteLength(goJson(manifest), 'utf8');
  return 1 + varintLength(raw) + raw;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const metadataOf = (o: JsonObject): JsonObject => (isPlainObject(o['metadata']) ? o['metadata'] : {});

/** OCM's validateManifest: decodable as an object with a kind, a name and no generateName. */
function manifestError(manifest: unknown): string | undefined {
  if (!isPlainObject(manifest))
    return `json: cannot unmarshal a non-object into Go value of type map[string]interface {}`;
  // unstructured.UnmarshalJSON requires a kind (runtime.NewMissingKindErr); apiVersion is not checked there.
  if (str(manifest['kind']) === '') return `Object 'Kind' is missing in '${goJson(manifest)}'`;
  const meta = metadataOf(manifest);
  if (str(meta['name']) === '') return 'name must be set in manifest';
  if (str(meta['generateName']) !== '') return 'generateName must not be set in manifest';
  return undefined;
}

/**
 * OCM's Validator.ValidateManifests: the first problem with a list of manifests, in OCM's order and words,
 * or undefined when they pass. Duplicates share apiVersion/kind/namespace/name (OCM's key).
 */
export function validateManifests(
  manifests: readonly unknown[] | undefined,
  limit = DEFAULT_MANIFEST_LIMIT,
): string | undefined {
  if (!manifests || manifests.length === 0) return 'Workload manifests should not be empty';
  const total = manifests.reduce<number>((sum, m) => sum + manifestSize(m), 0);
  if (total > limit) return `the size of manifests is ${total} bytes which exceeds the ${limit} limit`;
  const seen = new Set<string>();
  for (const manifest of manifests) {
    const err = manifestError(manifest);
    if (err) return err;
    const m = manifest as JsonObject;
    const meta = metadataOf(m);
    const [apiVersion, kind, namespace, name] = [
      m['apiVersion'],
      m['kind'],
      meta['namespace'],
      meta['name'],
    ].map(str) as [string, string, string, string];
    const key = `${apiVersion}/${kind}/${namespace}/${name}`;
    if (seen.has(key)) {
      return `duplicate manifest for resource ${namespace}/${name} with resource type ${apiVersion}.${kind}`;
    }
    seen.add(key);
  }
  return undefined;
}

/** The manifests of a ManifestWorkSpec (spec.workload.manifests), if it has a list there. */
export function specManifests(spec: unknown): unknown[] | undefined {
  if (!isPlainObject(spec) || !isPlainObject(spec['workload'])) return undefined;
  const manifests = spec['workload']['manifests'];
  return Array.isArray(manifests) ? manifests : undefined;
}

/** The admission request's user (authenticationv1.UserInfo). */
export interface AdmissionUserInfo {
  username: string;
  uid: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/**
 * What OCM's webhook decides about a ManifestWork without asking the API: a denial (400 BadRequest with
 * this message), an admission, or the executor whose `execute-as` permission the user must hold.
 */
export type ManifestWorkReview =
  | { kind: 'deny'; message: string }
  | { kind: 'allow' }
  | { kind: 'executeAs'; serviceAccount: ServiceAccountRef };

/**
 * OCM's validateRequest and the offline half of validateExecutor. `old` is the stored work on UPDATE; an
 * executor left as it was is not checked again. A nil executor is admitted (OCM's NilExecutorValidating gate,
 * off by default, is not offered).
 */
export function reviewManifestWork(
  work: JsonObject,
  old: JsonObject | undefined,
  limit = DEFAULT_MANIFEST_LIMIT,
): ManifestWorkReview {
  const spec = isPlainObject(work['spec']) ? work['spec'] : {};
  const manifests = specManifests(spec);
  if (!manifests || manifests.length === 0) return { kind: 'deny', message: 'manifests should not be empty' };
  const invalid = validateManifests(manifests, limit);
  if (invalid) return { kind: 'deny', message: invalid };
  const executor = spec['executor'];
  if (old) {
    const oldSpec = isPlainObject(old['spec']) ? old['spec'] : {};
    if (jsonEqual(oldSpec['executor'] ?? null, executor ?? null)) return { kind: 'allow' };
  }
  if (!isPlainObject(executor)) return { kind: 'allow' };
  const subject = isPlainObject(executor['subject']) ? executor['subject'] : {};
  const sa = subject['serviceAccount'];
  if (subject['type'] === 'ServiceAccount' && !isPlainObject(sa)) {
    return { kind: 'deny', message: 'executor service account can not be nil' };
  }
  if (!isPlainObject(sa)) return { kind: 'allow' };
  return { kind: 'executeAs', serviceAccount: { namespace: str(sa['namespace']), name: str(sa['name']) } };
}

/** `system:serviceaccount:<ns>:<name>`, the resourceName the `execute-as` permission is granted on. */
export const executorUserName = (sa: ServiceAccountRef): string =>
  `system:serviceaccount:${sa.namespace}:${sa.name}`;

/** The SubjectAccessReview OCM's webhook creates on the hub for an executor. */
export function executorAccessReview(
  user: AdmissionUserInfo,
  workNamespace: string,
  sa: ServiceAccountRef,
): JsonObject {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: user.username,
      uid: user.uid,
      groups: [...user.groups],
      resourceAttributes: {
        group: WORK_GROUP,
        resource: MW_PLURAL,
        verb: EXECUTE_AS_VERB,
        namespace: workNamespace,
        name: executorUserName(sa),
      },
    },
  };
}

/** OCM's denial when the SubjectAccessReview says no. */
export const executorDeniedMessage = (
  username: string,
  sa: ServiceAccountRef,
  workNamespace: string,
): string =>
  `user ${username} cannot manipulate the Manifestwork with executor ${sa.namespace}/${sa.name} in namespace ${workNamespace}`;
