// imageOverrider (karmada pkg/util/overridemanager/imageoverride.go, pkg/util/imageparser): parses each image
// with the distribution reference grammar (github.com/distribution/reference, Parse: no normalisation, so
// `nginx` has no registry), changes one component and writes the image back with a JSON patch `replace`.

import type { ImageOverrider } from '../../../api/policy/v1alpha1/index.ts';
import { isPlainObject, type JsonObject } from '../../../propagation/json.ts';
import { resolveListKeys } from './key-path.ts';
import type { PatchOperation } from './patch.ts';

export class ImageOverrideError extends Error {
  override name = 'ImageOverrideError';
}

// distribution/reference regexp.go.
const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_NAME = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*`;
const HOST = `(?:${DOMAIN_NAME}|\\[(?:[a-fA-F0-9:]+)\\])`;
const DOMAIN_AND_PORT = `${HOST}(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const NAME = `(?:${DOMAIN_AND_PORT}/)?${REMOTE_NAME}`;
const REFERENCE_RE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const ANCHORED_NAME_RE = new RegExp(`^(?:(${DOMAIN_AND_PORT})/)?(${REMOTE_NAME})$`);
const ANCHORED_TAG_RE = new RegExp(`^${TAG}$`);
const ANCHORED_DIGEST_RE = new RegExp(`^${DIGEST}$`);
const NAME_TOTAL_LENGTH_MAX = 255;
/** go-digest algorithms Karmada links in (crypto/sha256, crypto/sha512), with their hex lengths. */
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
const GO_DIGEST_RE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

/** Karmada's imageparser.Components: a tag and a digest never both survive parsing. */
export interface ImageComponents {
  hostname: string;
  repository: string;
  tag: string;
  digest: string;
}

/** go-digest Digest.Validate; returns the error text or undefined. */
function digestError(digest: string): string | undefined {
  const i = digest.indexOf(':');
  if (i <= 0 || i + 1 === digest.length) return 'invalid checksum digest format';
  const algorithm = digest.slice(0, i);
  const encoded = digest.slice(i + 1);
  const size = DIGEST_HEX_LENGTH[algorithm];
  if (size === undefined)
    return GO_DIGEST_RE.test(digest) ? 'unsupported digest algorithm' : 'invalid checksum digest format';
  if (encoded.length !== size) return 'invalid checksum digest length';
  return /^[a-f0-9]+$/.test(encoded) ? undefined : 'invalid checksum digest format';
}

/** imageparser.SplitHostname: the first component is a registry only if it looks like one. */
function splitHostname(name: string): { hostname: string; repository: string } {
  const i = name.indexOf('/');
  if (i === -1 || (!/[.:]/.test(name.slice(0, i)) && name.slice(0, i) !== 'localhost'))
    return { hostname: '', repository: name };
  return { hostname: name.slice(0, i), repository: name.slice(i + 1) };
}

/** imageparser.Parse (reference.Parse). Throws ImageOverrideError with the library's message. */
export function parseImage(image: string): ImageComponents {
  const m = REFERENCE_RE.exec(image);
  if (!m) {
    if (image === '') throw new ImageOverrideError('repository name must have at least one component');
    if (REFERENCE_RE.test(image.toLowerCase()))
      throw new ImageOverrideError('repository name must be lowercase');
    throw new ImageOverrideError('invalid reference format');
  }
  const name = m[1]!;
  const path = ANCHORED_NAME_RE.exec(name)?.[2] ?? name;
  if (path.length > NAME_TOTAL_LENGTH_MAX)
    throw new ImageOverrideError(`repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`);
  const digest = m[3] ?? '';
  if (digest !== '') {
    const err = digestError(digest);
    if (err) throw new ImageOverrideError(err);
  }
  const tag = m[2] ?? '';
  // A reference with both is Tagged, and Parse keeps only the tag.
  return { ...splitHostname(name), tag, digest: tag !== '' ? '' : digest };
}

/** Components.String. */
export function formatImage(c: ImageComponents): string {
  const full = c.hostname === '' ? c.repository : `${c.hostname}/${c.repository}`;
  if (c.tag !== '') return `${full}:${c.tag}`;
  if (c.digest !== '') return `${full}@${c.digest}`;
  return full;
}

/** Components.SetTagOrDigest: a value that is neither a tag nor a digest changes nothing. */
function setTagOrDigest(c: ImageComponents, input: string): ImageComponents {
  if (ANCHORED_TAG_RE.test(input)) return { ...c, tag: input, digest: '' };
  if (ANCHORED_DIGEST_RE.test(input)) return { ...c, digest: input, tag: '' };
  return c;
}

/** overrideImage: `add` appends the value to the component as a string, `remove` empties it. */
export function overrideImage(image: string, o: ImageOverrider): string {
  let c: ImageComponents;
  try {
    c = parseImage(image);
  } catch (err) {
    throw new ImageOverrideError(`failed to parse image value(${image}), error: ${(err as Error).message}`);
  }
  const value = o.value ?? '';
  switch (o.component) {
    case 'Registry':
      if (o.operator === 'add') c = { ...c, hostname: c.hostname + value };
      else if (o.operator === 'replace') c = { ...c, hostname: value };
      else if (o.operator === 'remove') c = { ...c, hostname: '' };
      return formatImage(c);
    case 'Repository':
      if (o.operator === 'add') c = { ...c, repository: c.repository + value };
      else if (o.operator === 'replace') c = { ...c, repository: value };
      else if (o.operator === 'remove') c = { ...c, repository: '' };
      return formatImage(c);
    case 'Tag': {
      const tagOrDigest = c.tag !== '' ? c.tag : c.digest;
      if (o.operator === 'add') c = setTagOrDigest(c, tagOrDigest + value);
      else if (o.operator === 'replace') c = setTagOrDigest(c, value);
      else if (o.operator === 'remove') c = c.tag !== '' ? { ...c, tag: '' } : { ...c, digest: '' };
      return formatImage(c);
    }
    default:
      throw new ImageOverrideError(`unsupported image component(${String(o.component)})`);
  }
}

/** Kinds whose containers an imageOverrider without predicate rewrites, and where their pod spec is. */
const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
  Pod: ['spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  Deployment: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
};

/** Karmada matches the kind alone (util.PodKind etc.), whatever the group. */
export function podSpecPath(kind: string | undefined): readonly string[] | undefined {
  return kind !== undefined && Object.hasOwn(POD_SPEC_PATHS, kind) ? POD_SPEC_PATHS[kind] : undefined;
}

function at(obj: JsonObject, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) cur = isPlainObject(cur) && Object.hasOwn(cur, p) ? cur[p] : undefined;
  return cur;
}

/**
 * extractPatchesBy: one `replace` per entry of `containers` (never `initContainers`, karmada#4283). A
 * container without an image fails, as parsing "" does in Karmada.
 */
function patchesWithoutPredicate(obj: JsonObject, o: ImageOverrider): PatchOperation[] {
  const specPath = podSpecPath(typeof obj['kind'] === 'string' ? obj['kind'] : undefined);
  if (!specPath) return [];
  const containers = at(obj, [...specPath, 'containers']);
  if (containers === undefined || containers === null) return [];
  if (!Array.isArray(containers))
    throw new ImageOverrideError(
      `failed to convert ${String(obj['kind'])} from unstructured object: containers is not a list`,
    );
  return containers.map((container, i) => {
    const image = isPlainObject(container) ? (container['image'] ?? '') : undefined;
    if (typeof image !== 'string')
      throw new ImageOverrideError(
        `failed to convert ${String(obj['kind'])} from unstructured object: containers[${i}].image is not a string`,
      );
    return {
      op: 'replace',
      path: `/${specPath.join('/')}/containers/${i}/image`,
      value: overrideImage(image, o),
    };
  });
}

/**
 * obtainImageValue: Karmada walks the predicate path itself (no `~` unescaping; an array token must be
 * followed by an index of an object element) and requires a string at its end.
 */
function imageAt(obj: JsonObject, predicatePath: string): string {
  const segments = predicatePath.replace(/^\/+|\/+$/g, '').split('/');
  let cur: JsonObject = obj;
  for (let i = 0; i < segments.length - 1; i++) {
    const seg = segments[i]!;
    const next = Object.hasOwn(cur, seg) ? cur[seg] : undefined;
    if (isPlainObject(next)) cur = next;
    else if (Array.isArray(next)) {
      const idxText = segments[i + 1] ?? '';
      const idx = /^[+-]?[0-9]+$/.test(idxText) ? Number(idxText) : Number.NaN;
      if (!Number.isInteger(idx) || idx > 2147483647 || idx < -2147483648)
        throw new ImageOverrideError(`path(${idxText}) of rawObj's is not number`);
      const el = next[idx];
      if (!isPlainObject(el))
        throw new ImageOverrideError(`path(${idxText}) of rawObj's is not an object element of the list`);
      cur = el;
      i++;
    } else
      throw new ImageOverrideError(
        `path(${seg}) of rawObj's type is not map[string]interface{} and []interface{}`,
      );
  }
  const lastSeg = segments[segments.length - 1]!;
  const image = Object.hasOwn(cur, lastSeg) ? cur[lastSeg] : undefined;
  if (typeof image !== 'string') throw new ImageOverrideError(`failed to convert path(${lastSeg}) to string`);
  return image;
}

/** buildPatches: the JSON patch one imageOverrider makes for the object. */
export function imagePatches(obj: JsonObject, o: ImageOverrider): PatchOperation[] {
  if (!o.predicate) return patchesWithoutPredicate(obj, o);
  const original = o.predicate.path;
  let path: string;
  let image: string;
  try {
    path = resolveListKeys(obj, original).path;
    image = imageAt(obj, path);
  } catch (err) {
    throw new ImageOverrideError(
      `failed to obtain imageValue with predicate path(${original}), error: ${(err as Error).message}`,
    );
  }
  if (!path.startsWith('/')) throw new ImageOverrideError('imagePath should be start with / character');
  return [{ op: 'replace', path, value: overrideImage(image, o) }];
}
