import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Type } from 'typebox';
import { buildCrd, toStructuralSchema } from '../../../src/api/crd.ts';
import { ObjectMetaSchema } from '../../../src/api/meta.ts';
import { StringEnum } from '../../../src/api/schema-helpers.ts';

describe('toStructuralSchema', () => {
  test('drops TypeBox internals and $id, keeps only plain JSON', () => {
    const out = toStructuralSchema(Type.Object({ a: Type.Optional(Type.String()) }, { $id: 'X' }));
    assert.deepEqual(out, { type: 'object', properties: { a: { type: 'string' } } });
    assert.deepEqual(Reflect.ownKeys(out.properties!['a']!), ['type']);
  });

  test('orders keys: description, type, format, then children and required', () => {
    const out = toStructuralSchema(
      Type.Object({ n: Type.Integer({ format: 'int64', description: 'd' }) }, { description: 'top' }),
    );
    assert.deepEqual(Object.keys(out), ['description', 'type', 'properties', 'required']);
    assert.deepEqual(Object.keys(out.properties!['n']!), ['description', 'type', 'format']);
  });

  test('unions of string literals and const become enum', () => {
    const out = toStructuralSchema(
      Type.Object({ u: Type.Union([Type.Literal('a'), Type.Literal('b')]), c: Type.Literal('x') }),
    );
    assert.deepEqual(out.properties!['u'], { type: 'string', enum: ['a', 'b'] });
    assert.deepEqual(out.properties!['c'], { type: 'string', enum: ['x'] });
  });

  test('StringEnum emits type and enum', () => {
    assert.deepEqual(toStructuralSchema(StringEnum(['A', 'B'], { description: 'd' })), {
      description: 'd',
      type: 'string',
      enum: ['A', 'B'],
    });
  });

  test('Record becomes additionalProperties; additionalProperties: false is dropped', () => {
    const out = toStructuralSchema(
      Type.Object({ labels: Type.Record(Type.String(), Type.String()) }, { additionalProperties: false }),
    );
    assert.deepEqual(out, {
      type: 'object',
      properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
      required: ['labels'],
    });
  });

  test('x-kubernetes escapes pass through and may omit type', () => {
    const out = toStructuralSchema(
      Type.Object({
        any: Type.Unsafe({ 'x-kubernetes-preserve-unknown-fields': true }),
        list: Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set' }),
      }),
    );
    assert.deepEqual(out.properties!['any'], { 'x-kubernetes-preserve-unknown-fields': true });
    assert.equal(out.properties!['list']!['x-kubernetes-list-type'], 'set');
  });

  test('rejects nodes without a type', () => {
    assert.throws(() => toStructuralSchema(Type.Object({ x: Type.Any() })), /\.x: every node needs a type/);
    assert.throws(
      () => toStructuralSchema(Type.Object({ x: Type.Unknown() })),
      /\.x: every node needs a type/,
    );
  });

  test('rejects non-literal unions and unsupported keywords', () => {
    assert.throws(
      () => toStructuralSchema(Type.Object({ x: Type.Union([Type.String(), Type.Number()]) })),
      /every node needs a type/,
    );
    assert.throws(() => toStructuralSchema({ type: 'string', $ref: '#/x' }), /keyword "\$ref"/);
    assert.throws(
      () => toStructuralSchema({ type: 'object', additionalProperties: true }),
      /preserve-unknown/,
    );
  });
});

describe('buildCrd', () => {
  const schema = Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(ObjectMetaSchema),
    spec: Type.Object({ a: Type.String() }),
  });

  test('fills names, defaults listKind, omits empty optional parts', () => {
    const crd = buildCrd({
      group: 'example.io',
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
      singular: 'widget',
      scope: 'Cluster',
      schema,
      statusSubresource: false,
      printerColumns: [],
      shortNames: [],
    });
    assert.equal(crd.metadata.name, 'widgets.example.io');
    assert.deepEqual(crd.spec.names, {
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      singular: 'widget',
    });
    assert.equal(crd.spec.scope, 'Cluster');
    const [v] = crd.spec.versions;
    assert.deepEqual(Object.keys(v!), ['name', 'served', 'storage', 'schema']);
  });

  test('adds categories, short names, printer columns and the status subresource', () => {
    const crd = buildCrd({
      group: 'example.io',
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
      singular: 'widget',
      scope: 'Namespaced',
      schema,
      statusSubresource: true,
      shortNames: ['wd'],
      categories: ['all'],
      printerColumns: [{ name: 'a', type: 'string', jsonPath: '.spec.a' }],
    });
    assert.deepEqual(crd.spec.names.shortNames, ['wd']);
    assert.deepEqual(crd.spec.names.categories, ['all']);
    assert.deepEqual(crd.spec.versions[0]!.subresources, { status: {} });
    assert.deepEqual(crd.spec.versions[0]!.additionalPrinterColumns, [
      { name: 'a', type: 'string', jsonPath: '.spec.a' },
    ]);
  });

  test('rejects a metadata schema the API server would refuse', () => {
    assert.throws(
      () =>
        buildCrd({
          group: 'example.io',
          version: 'v1',
          kind: 'Widget',
          plural: 'widgets',
          singular: 'widget',
          scope: 'Namespaced',
          schema: Type.Object({ metadata: Type.Object({ name: Type.String() }) }),
          statusSubresource: false,
          printerColumns: [],
        }),
      /metadata must be exactly \{type: object\}/,
    );
  });
});
