import type { TSchema } from 'typebox';

/** One node of an apiextensions.k8s.io/v1 JSONSchemaProps, restricted to what kubefed-ts emits. */
export interface JsonSchemaProps {
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  properties?: Record<string, JsonSchemaProps>;
  required?: string[];
  items?: JsonSchemaProps;
  additionalProperties?: JsonSchemaProps;
  anyOf?: JsonSchemaProps[];
  allOf?: JsonSchemaProps[];
  oneOf?: JsonSchemaProps[];
  not?: JsonSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: {
    rule: string;
    message?: string;
    messageExpression?: string;
    reason?: string;
  }[];
}

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface CrdOptions {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  /** Defaults to `${kind}List`. */
  listKind?: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
  scope: 'Namespaced' | 'Cluster';
  /** The whole object's schema (apiVersion, kind, metadata, spec, status). */
  schema: TSchema;
  statusSubresource: boolean;
  printerColumns: readonly PrinterColumn[];
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      additionalPrinterColumns?: PrinterColumn[];
      schema: { openAPIV3Schema: JsonSchemaProps };
      subresources?: { status?: Record<string, never> };
    }[];
  };
}

/** Wraps a TypeBox object schema into a single-version apiextensions.k8s.io/v1 CRD. */
export function buildCrd(opts: CrdOptions): CustomResourceDefinition {
  const names: CustomResourceDefinition['spec']['names'] = {
    kind: opts.kind,
    listKind: opts.listKind ?? `${opts.kind}List`,
    plural: opts.plural,
    singular: opts.singular,
  };
  if (opts.shortNames && opts.shortNames.length > 0) names.shortNames = [...opts.shortNames];
  if (opts.categories && opts.categories.length > 0) names.categories = [...opts.categories];

  const openAPIV3Schema = toStructuralSchema(opts.schema);
  checkRootSchema(openAPIV3Schema, opts.kind);

  const version: CustomResourceDefinition['spec']['versions'][number] = {
    name: opts.version,
    served: true,
    storage: true,
    ...(opts.printerColumns.length > 0
      ? { additionalPrinterColumns: opts.printerColumns.map((c) => ({ ...c })) }
      : {}),
    schema: { openAPIV3Schema },
    ...(opts.statusSubresource ? { subresources: { status: {} } } : {}),
  };

  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${opts.plural}.${opts.group}` },
    spec: { group: opts.group, names, scope: opts.scope, versions: [version] },
  };
}

/** Keys of JSONSchemaProps we pass through unchanged (after recursing where they hold schemas). */
const SCALAR_KEYS = new Set([
  'description',
  'type',
  'format',
  'enum',
  'default',
  'nullable',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'multipleOf',
  'required',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

/** Output key order, so generated YAML reads top-down: docs, type, constraints, children. */
const KEY_ORDER = [
  'description',
  'type',
  'format',
  'enum',
  'default',
  'nullable',
  'pattern',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'multipleOf',
  'anyOf',
  'allOf',
  'oneOf',
  'not',
  'items',
  'properties',
  'additionalProperties',
  'required',
];

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class SchemaError extends Error {
  constructor(path: string, message: string) {
    super(`CRD schema at ${path || '<root>'}: ${message}`);
    this.name = 'SchemaError';
  }
}

/**
 * Converts a TypeBox schema into a structural CRD schema (a plain JSON object):
 * drops TypeBox's non-enumerable `~kind`/`~optional` keys and `$id`/`$schema`, turns
 * `const` and unions of string literals into `enum`, `Record` patternProperties into
 * `additionalProperties`, drops `additionalProperties: false` (the API server prunes
 * unknown fields anyway and v1 CRDs forbid it), and throws on anything a kube-apiserver
 * would reject (missing `type`, `$ref`, unknown keywords).
 */
export function toStructuralSchema(schema: unknown, path = ''): JsonSchemaProps {
  if (!isObject(schema)) throw new SchemaError(path, 'schema must be an object');
  const out: Json = {};

  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (key.startsWith('~') || key === '$id' || key === '$schema') continue;
    if (SCALAR_KEYS.has(key)) {
      out[key] = structuredClone(value);
      continue;
    }
    switch (key) {
      case 'const':
        out['enum'] = [structuredClone(value)];
        break;
      case 'properties': {
        if (!isObject(value)) throw new SchemaError(path, 'properties must be an object');
        const props: Record<string, JsonSchemaProps> = {};
        for (const [name, child] of Object.entries(value)) {
          props[name] = toStructuralSchema(child, `${path}.${name}`);
        }
        out['properties'] = props;
        break;
      }
      case 'items':
        if (Array.isArray(value)) throw new SchemaError(path, 'tuple items are not allowed in CRD schemas');
        out['items'] = toStructuralSchema(value, `${path}[*]`);
        break;
      case 'additionalProperties':
        if (value === false) break;
        if (value === true) {
          throw new SchemaError(
            path,
            'use x-kubernetes-preserve-unknown-fields instead of additionalProperties: true',
          );
        }
        out['additionalProperties'] = toStructuralSchema(value, `${path}.*`);
        break;
      case 'patternProperties': {
        // TypeBox's Record(String, X) emits { '^.*$': X }: the same as a string-keyed map.
        const entries = isObject(value) ? Object.entries(value) : [];
        const only = entries[0];
        if (entries.length !== 1 || !only || (only[0] !== '^.*$' && only[0] !== '^(.*)$')) {
          throw new SchemaError(path, 'patternProperties is not supported in CRD schemas');
        }
        out['additionalProperties'] = toStructuralSchema(only[1], `${path}.*`);
        break;
      }
      case 'anyOf':
      case 'allOf':
      case 'oneOf': {
        if (!Array.isArray(value)) throw new SchemaError(path, `${key} must be an array`);
        const literals = key === 'anyOf' ? literalUnion(value) : undefined;
        if (literals) {
          out['type'] = literals.type;
          out['enum'] = literals.values;
        } else {
          out[key] = value.map((v, i) => toStructuralSchema(v, `${path}<${key}[${i}]>`));
        }
        break;
      }
      case 'not':
        out['not'] = toStructuralSchema(value, `${path}<not>`);
        break;
      default:
        throw new SchemaError(path, `keyword "${key}" is not allowed in a CRD schema`);
    }
  }

  checkNode(out, path);
  return orderKeys(out) as JsonSchemaProps;
}

/** anyOf [{type: string, const: a}, {type: string, const: b}] → {type: string, enum: [a, b]}. */
function literalUnion(branches: unknown[]): { type: string; values: unknown[] } | undefined {
  let type: string | undefined;
  const values: unknown[] = [];
  for (const b of branches) {
    if (!isObject(b) || !('const' in b) || typeof b['type'] !== 'string') return undefined;
    if (type !== undefined && type !== b['type']) return undefined;
    type = b['type'];
    values.push(b['const']);
  }
  return type === undefined ? undefined : { type, values };
}

function checkNode(node: Json, path: string): void {
  const untyped =
    node['x-kubernetes-int-or-string'] === true || node['x-kubernetes-preserve-unknown-fields'] === true;
  if (typeof node['type'] !== 'string' && !untyped) {
    throw new SchemaError(
      path,
      'every node needs a type (or x-kubernetes-int-or-string/preserve-unknown-fields)',
    );
  }
  if (node['properties'] !== undefined && node['additionalProperties'] !== undefined) {
    throw new SchemaError(path, 'properties and additionalProperties are mutually exclusive');
  }
  const required = node['required'];
  if (Array.isArray(required)) {
    if (required.length === 0) {
      delete node['required'];
    } else {
      const props = isObject(node['properties']) ? node['properties'] : {};
      for (const name of required) {
        if (typeof name !== 'string' || !(name in props)) {
          throw new SchemaError(path, `required field "${String(name)}" is not declared in properties`);
        }
      }
    }
  }
}

function orderKeys(node: Json): Json {
  const out: Json = {};
  for (const key of KEY_ORDER) if (key in node) out[key] = node[key];
  for (const key of Object.keys(node).sort()) if (!(key in out)) out[key] = node[key];
  return out;
}

/** The API server only accepts `type: object` (plus name/generateName rules) for root metadata. */
function checkRootSchema(root: JsonSchemaProps, kind: string): void {
  if (root.type !== 'object' || !root.properties) {
    throw new SchemaError('', `${kind}: root schema must be an object with properties`);
  }
  const meta = root.properties['metadata'];
  if (meta !== undefined) {
    const extra = Object.keys(meta).filter((k) => k !== 'type' && k !== 'description');
    if (meta.type !== 'object' || extra.length > 0) {
      throw new SchemaError('.metadata', `${kind}: metadata must be exactly {type: object}`);
    }
  }
}
