import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { commandArgsPatches } from '../../../../../src/sources/policy/overrides/command-args.ts';
import { labelAnnotationPatches } from '../../../../../src/sources/policy/overrides/labels-annotations.ts';
import { applyPatch } from '../../../../../src/sources/policy/overrides/patch.ts';

const deployment = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web', 'example.com/tier': 'front' } as Record<string, string> },
  spec: {
    template: {
      spec: {
        containers: [
          { name: 'app', image: 'app:1', command: ['/bin/app', '--v=1'], args: ['a', 'b', 'a'] },
          { name: 'bare', image: 'bare:1' },
        ],
        initContainers: [{ name: 'app', image: 'init:1', command: ['x'] }],
      },
    },
  },
});

describe('commandOverrider / argsOverrider (commandargsoverride.go)', () => {
  test('add appends, remove drops every equal item; the patch replaces the whole list', () => {
    const obj = deployment();
    assert.deepEqual(
      commandArgsPatches('command', obj, { containerName: 'app', operator: 'add', value: ['--v=2'] }),
      [
        {
          op: 'replace',
          path: '/spec/template/spec/containers/0/command',
          value: ['/bin/app', '--v=1', '--v=2'],
        },
      ],
    );
    assert.deepEqual(
      commandArgsPatches('args', obj, { containerName: 'app', operator: 'remove', value: ['a'] }),
      [{ op: 'replace', path: '/spec/template/spec/containers/0/args', value: ['b'] }],
    );
  });

  test('a container without the field gets it with add (remove leaves an empty list)', () => {
    const obj = deployment();
    assert.deepEqual(
      commandArgsPatches('args', obj, { containerName: 'bare', operator: 'add', value: ['-x'] }),
      [{ op: 'add', path: '/spec/template/spec/containers/1/args', value: ['-x'] }],
    );
    assert.deepEqual(
      commandArgsPatches('command', obj, { containerName: 'bare', operator: 'remove', value: ['-x'] }),
      [{ op: 'add', path: '/spec/template/spec/containers/1/command', value: [] }],
    );
  });

  test('no matching container, initContainers and other kinds: nothing', () => {
    const obj = deployment();
    assert.deepEqual(
      commandArgsPatches('command', obj, { containerName: 'nope', operator: 'add', value: ['x'] }),
      [],
    );
    assert.deepEqual(
      commandArgsPatches(
        'command',
        { ...obj, kind: 'CronJob' },
        { containerName: 'app', operator: 'add', value: ['x'] },
      ),
      [],
    );
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'app', image: 'a' }] },
    };
    assert.deepEqual(
      commandArgsPatches('command', pod, { containerName: 'app', operator: 'add', value: ['x'] }),
      [{ op: 'add', path: '/spec/containers/0/command', value: ['x'] }],
    );
  });

  test('containers that are not a list fail', () => {
    const obj = { kind: 'Pod', metadata: { name: 'p' }, spec: { containers: 'x' } };
    assert.throws(
      () => commandArgsPatches('args', obj, { containerName: 'a', operator: 'add', value: [] }),
      /failed to retrieves path\(spec\/containers\)/,
    );
  });
});

describe('labelsOverrider / annotationsOverrider (labelannotationoverrider.go)', () => {
  const run = (
    obj: ReturnType<typeof deployment>,
    operator: 'add' | 'remove' | 'replace',
    value: Record<string, string>,
    map: 'labels' | 'annotations' = 'labels',
  ) => {
    const copy = structuredClone(obj);
    return applyPatch(copy, labelAnnotationPatches(copy, { operator, value }, map));
  };

  test('add sets keys, escaping / as ~1', () => {
    assert.deepEqual(run(deployment(), 'add', { app: 'api', 'example.com/zone': 'a' }).metadata.labels, {
      app: 'api',
      'example.com/tier': 'front',
      'example.com/zone': 'a',
    });
  });

  test('add creates the map when missing', () => {
    assert.deepEqual(
      (run(deployment(), 'add', { note: 'x' }, 'annotations').metadata as Record<string, unknown>)[
        'annotations'
      ],
      { note: 'x' },
    );
    const noMeta = { kind: 'ConfigMap' } as unknown as ReturnType<typeof deployment>;
    assert.deepEqual(run(noMeta, 'add', { a: 'b' }).metadata, { labels: { a: 'b' } });
  });

  test('replace and remove skip keys the object does not have (Karmada: missing keys are skipped)', () => {
    assert.deepEqual(run(deployment(), 'replace', { app: 'api', missing: 'x' }).metadata.labels, {
      app: 'api',
      'example.com/tier': 'front',
    });
    assert.deepEqual(
      run(deployment(), 'remove', { 'example.com/tier': 'ignored', missing: '' }).metadata.labels,
      { app: 'web' },
    );
    const obj = deployment();
    assert.deepEqual(
      labelAnnotationPatches(obj, { operator: 'remove', value: { a: '' } }, 'annotations'),
      [],
    );
  });
});
