// The hash OCM's work agent stamps on what it applies, so an unchanged manifest is not written again (ocm
// pkg/work/spoke/apply hashOfResourceStruct): md5 of Go's `fmt.Sprintf("%v", obj)` of the *unstructured
// object. OCM's ServerSideApply writes it as open-cluster-management.io/config-spec-hash (after dropping the
// OnSpokePresent ignore fields); its older update applier wrote it as open-cluster-management.io/object-hash.
// Reproducing Go's formatting exactly keeps the value the same as OCM's for the same manifest.

import { createHash } from 'node:crypto';
import { OBJECT_HASH_ANNOTATION } from '../../api/ocm/work/v1/index.ts';
import type { KubeObject } from '../../kube/client/index.ts';

/** md5 hex of the object as Go prints an *unstructured.Unstructured with %v. */
export function objectHash(manifest: KubeObject): string {
  return createHash('md5')
    .update(`&{${goValue(manifest)}}`, 'utf8')
    .digest('hex');
}

/** A copy of `obj` with the hash annotation set (OBJECT_HASH_ANNOTATION unless another key is given). */
export function withObjectHash<T extends KubeObject>(
  obj: T,
  hash: string,
  annotation = OBJECT_HASH_ANNOTATION,
): T {
  return {
    ...obj,
    metadata: { ...obj.metadata, annotations: { ...obj.metadata.annotations, [annotation]: hash } },
  };
}

/** Go's %v of a JSON value decoded the unstructured way (integers int64, other numbers float64). */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return goNumber(value);
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (typeof value === 'object') {
    // fmt prints map keys sorted (internal/fmtsort: byte order of the strings).
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
    return `map[${entries.map(([k, v]) => `${k}:${goValue(v)}`).join(' ')}]`;
  }
  return String(value);
}

const INT64_LIMIT = 2 ** 63;

function goNumber(n: number): string {
  // unstructured decodes a JSON number to int64 when it parses as one, else float64.
  if (Number.isInteger(n) && Math.abs(n) < INT64_LIMIT) return BigInt(n).toString();
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  // %v of a float64 is strconv 'g' with the shortest digits; for the shortest form Go switches to the
  // exponent form when the exponent is < -4 or >= 6, and writes at least two exponent digits (1e+06).
  const [mantissa, e] = n.toExponential().split('e') as [string, string];
  const exponent = Number(e);
  if (exponent < -4 || exponent >= 6) {
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(n);
}
