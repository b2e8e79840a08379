import type { JsonSchemaProps } from '../api/crd.ts';
import type { TargetTypeInfo } from '../federation-types/target.ts';
import {
  CoreTypes,
  groupQualifiedName,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../kube/client/index.ts';
import { type ApiResourceInfo, type DiscoveryResult, discoverApiResources } from '../kube/discovery.ts';
import { hostError } from './context.ts';
import { CommandError } from './errors.ts';

/**
 * KubeFed's NameMatchesResource: plural, singular, kind, plural.group or a short name, case-insensitively.
 */
export function nameMatchesResource(name: string, r: ApiResourceInfo): boolean {
  const n = name.toLowerCase();
  return (
    n === r.plural ||
    n === r.singular ||
    n === r.kind.toLowerCase() ||
    n === `${r.plural}.${r.group}` ||
    r.shortNames.some((s) => s.toLowerCase() === n)
  );
}

/**
 * KubeFed's LookupAPIResource (pkg/kubefedctl/enable/util.go): a core-group match wins outright (there is no
 * other way to name a core type that shares its name with a CRD); otherwise exactly one match is required.
 */
export function lookupApiResource(resources: readonly ApiResourceInfo[], name: string): ApiResourceInfo {
  const matches = resources.filter((r) => nameMatchesResource(name, r));
  const core = matches.find((r) => r.group === '');
  if (core) return core;
  if (matches.length > 1) {
    const names = matches.map((r) => groupQualifiedName(r.plural, r.group)).sort();
    throw new CommandError(
      `Multiple resources are matched by "${name}": ${names.join(', ')}. A group-qualified plural name must be provided.`,
    );
  }
  const [only] = matches;
  if (!only) throw new CommandError(`Unable to find api resource named "${name}".`);
  return only;
}

export interface TargetSchemaInfo {
  hasSchema: boolean;
  scalable: boolean;
}

interface CrdTarget extends KubeObject {
  spec?: {
    versions?: Array<{
      name: string;
      schema?: { openAPIV3Schema?: JsonSchemaProps };
      subresources?: { scale?: { specReplicasPath?: string } };
    }>;
  };
}

const isInt32 = (s: { type?: string; format?: string } | undefined): boolean =>
  s?.type === 'integer' && s.format === 'int32';

/**
 * Whether the target has a schema and a `spec.replicas` int32 (KubeFed pkg/kubefedctl/enable/schema.go,
 * newSchemaAccessor; validation.go adds retainReplicas). A CRD target is judged by its own schema for that
 * version (or a scale subresource on `.spec.replicas`); a built-in one by the server's OpenAPI v3 document.
 * If OpenAPI cannot be read, assume a schema and trust discovery's `scale` subresource.
 */
export async function targetSchemaInfo(
  client: KubeClient,
  resource: ApiResourceInfo,
): Promise<TargetSchemaInfo> {
  if (resource.group !== '') {
    let crd: CrdTarget | undefined;
    try {
      crd = await client.get<CrdTarget>(CoreTypes.crds, `${resource.plural}.${resource.group}`);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (crd) {
      const v = crd.spec?.versions?.find((x) => x.name === resource.version);
      const schema = v?.schema?.openAPIV3Schema;
      const replicas = schema?.properties?.['spec']?.properties?.['replicas'];
      return {
        hasSchema: schema !== undefined,
        scalable: isInt32(replicas) || v?.subresources?.scale?.specReplicasPath === '.spec.replicas',
      };
    }
  }
  try {
    return await openApiSchemaInfo(client, resource);
  } catch {
    return { hasSchema: true, scalable: resource.subresources.includes('scale') };
  }
}

interface OpenApiSchema {
  type?: string;
  format?: string;
  $ref?: string;
  allOf?: OpenApiSchema[];
  properties?: Record<string, OpenApiSchema>;
  'x-kubernetes-group-version-kind'?: Array<{ group: string; version: string; kind: string }>;
}
interface OpenApiDoc {
  components?: { schemas?: Record<string, OpenApiSchema> };
}

async function openApiSchemaInfo(client: KubeClient, r: ApiResourceInfo): Promise<TargetSchemaInfo> {
  const index = await client.request<{ paths?: Record<string, { serverRelativeURL?: string }> }>(
    'GET',
    '/openapi/v3',
  );
  const key = r.group ? `apis/${r.group}/${r.version}` : `api/${r.version}`;
  const doc = await client.request<OpenApiDoc>(
    'GET',
    index.paths?.[key]?.serverRelativeURL ?? `/openapi/v3/${key}`,
  );
  const schemas = doc.components?.schemas ?? {};
  const component = Object.values(schemas).find((s) =>
    s['x-kubernetes-group-version-kind']?.some(
      (gvk) => gvk.group === r.group && gvk.version === r.version && gvk.kind === r.kind,
    ),
  );
  if (!component) throw new Error(`no OpenAPI schema for ${key} ${r.kind}`);
  const spec = resolve(component.properties?.['spec'], schemas);
  const replicas = resolve(spec?.properties?.['replicas'], schemas);
  return { hasSchema: true, scalable: isInt32(replicas) };
}

/** Follows `$ref` and single-branch `allOf` (how OpenAPI v3 wraps references that carry a default). */
function resolve(
  s: OpenApiSchema | undefined,
  schemas: Record<string, OpenApiSchema>,
): OpenApiSchema | undefined {
  for (let depth = 0; s && depth < 10; depth++) {
    if (s.$ref) {
      s = schemas[s.$ref.replace('#/components/schemas/', '')];
    } else if (!s.type && !s.properties && s.allOf?.length === 1) {
      s = s.allOf[0];
    } else {
      return s;
    }
  }
  return s;
}

/** The discovery entry plus its schema facts, as the federation-types generators take it. */
export function toTargetTypeInfo(r: ApiResourceInfo, schema: TargetSchemaInfo): TargetTypeInfo {
  return {
    group: r.group,
    version: r.version,
    kind: r.kind,
    plural: r.plural,
    singular: r.singular,
    shortNames: [...r.shortNames],
    namespaced: r.namespaced,
    scalable: schema.scalable,
    hasSchema: schema.hasSchema,
  };
}

/**
 * Discovery plus lookup, as enable and disable use it. Discovery failures of single group versions only
 * matter when nothing matched (then they may be why); when a match is found they are a warning (as KubeFed's
 * LookupAPIResource since v0.6.1).
 */
export async function findApiResource(
  client: KubeClient,
  name: string,
  opts: { version?: string; warn?: (line: string) => void } = {},
): Promise<ApiResourceInfo> {
  let found: DiscoveryResult;
  try {
    found = await discoverApiResources(client, { version: opts.version });
  } catch (e) {
    throw hostError(e, client.name);
  }
  const failed = found.failures.map((f) => `${f.groupVersion}: ${f.message}`).join('; ');
  try {
    const r = lookupApiResource(found.resources, name);
    if (failed)
      opts.warn?.(`some API groups could not be discovered (ignored, "${name}" was found): ${failed}`);
    return r;
  } catch (e) {
    if (failed && e instanceof CommandError)
      throw new CommandError(`${e.message} Discovery failed for ${failed}`);
    throw e;
  }
}
