import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ImageOverrider } from '../../../../../src/api/policy/v1alpha1/index.ts';
import {
  ImageOverrideError,
  imagePatches,
  overrideImage,
  parseImage,
} from '../../../../../src/sources/policy/overrides/image.ts';

const DIGEST = 'sha256:dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9c';
const IMAGE = 'fictional.registry.example/imagename:v1.0.0';

function workload(kind: string, images: string[], prefix: 'pod' | 'template' = 'template') {
  const containers = images.map((image, i) => ({ name: `c${i}`, image }));
  const spec = { containers, initContainers: [{ name: 'init', image: 'busybox:1' }] };
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name: 'w' },
    spec: prefix === 'pod' ? spec : { template: { spec } },
  };
}

const io = (component: ImageOverrider['component'], operator: ImageOverrider['operator'], value?: string) =>
  ({ component, operator, ...(value === undefined ? {} : { value }) }) as ImageOverrider;

describe('parseImage (distribution reference.Parse, no normalisation)', () => {
  test('splits registry, repository, tag and digest', () => {
    assert.deepEqual(parseImage('nginx'), { hostname: '', repository: 'nginx', tag: '', digest: '' });
    assert.deepEqual(parseImage('library/nginx:1.25'), {
      hostname: '',
      repository: 'library/nginx',
      tag: '1.25',
      digest: '',
    });
    assert.deepEqual(parseImage('localhost/app'), {
      hostname: 'localhost',
      repository: 'app',
      tag: '',
      digest: '',
    });
    assert.deepEqual(parseImage(`reg.io:5000/a/b@${DIGEST}`), {
      hostname: 'reg.io:5000',
      repository: 'a/b',
      tag: '',
      digest: DIGEST,
    });
  });

  test('a reference with a tag and a digest keeps only the tag, as Karmada does', () => {
    assert.deepEqual(parseImage(`nginx:1.0@${DIGEST}`), {
      hostname: '',
      repository: 'nginx',
      tag: '1.0',
      digest: '',
    });
  });

  test('refuses what the reference grammar refuses, with its messages', () => {
    assert.throws(() => parseImage(''), /repository name must have at least one component/);
    assert.throws(() => parseImage('Nginx'), /repository name must be lowercase/);
    assert.throws(() => parseImage('nginx:'), /invalid reference format/);
    assert.throws(() => parseImage('nginx@sha256:abc'), /invalid reference format/);
    assert.throws(() => parseImage(`nginx@sha256:${'a'.repeat(63)}`), /invalid checksum digest length/);
    assert.throws(() => parseImage(`nginx@sha256:${'a'.repeat(65)}`), /invalid checksum digest length/);
    assert.throws(() => parseImage(`nginx@sha256:${'A'.repeat(64)}`), /invalid checksum digest format/);
    assert.throws(() => parseImage(`nginx@md5:${'a'.repeat(32)}`), /unsupported digest algorithm/);
  });
});

describe('overrideImage (Karmada imageoverride_test.go cases)', () => {
  const cases: [ImageOverrider, string, string][] = [
    [io('Registry', 'add', '.test'), IMAGE, 'fictional.registry.example.test/imagename:v1.0.0'],
    [io('Registry', 'add', 'registry.k8s.io'), 'perl:5.34.0', 'registry.k8s.io/perl:5.34.0'],
    [io('Registry', 'replace', 'fictional.registry.us'), IMAGE, 'fictional.registry.us/imagename:v1.0.0'],
    [io('Registry', 'remove', 'ignored'), IMAGE, 'imagename:v1.0.0'],
    [io('Repository', 'add', '/nginx'), IMAGE, 'fictional.registry.example/imagename/nginx:v1.0.0'],
    [io('Repository', 'replace', 'nginx'), IMAGE, 'fictional.registry.example/nginx:v1.0.0'],
    [io('Repository', 'remove', 'nginx'), IMAGE, 'fictional.registry.example/:v1.0.0'],
    // "v1.0.0sha256:..." is neither a tag nor a digest: nothing changes.
    [io('Tag', 'add', DIGEST), IMAGE, IMAGE],
    [io('Tag', 'add', '-debug'), IMAGE, 'fictional.registry.example/imagename:v1.0.0-debug'],
    [io('Tag', 'add', 'v1'), 'nginx', 'nginx:v1'],
    [io('Tag', 'replace', DIGEST), IMAGE, `fictional.registry.example/imagename@${DIGEST}`],
    [io('Tag', 'replace', 'v2'), `nginx@${DIGEST}`, 'nginx:v2'],
    [io('Tag', 'replace', 'not a tag'), IMAGE, IMAGE],
    [io('Tag', 'remove', DIGEST), IMAGE, 'fictional.registry.example/imagename'],
    [io('Tag', 'remove'), `nginx@${DIGEST}`, 'nginx'],
  ];
  for (const [o, from, to] of cases)
    test(`${o.component} ${o.operator} ${o.value ?? ''} on ${from}`, () => {
      assert.equal(overrideImage(from, o), to);
    });

  test('an image that does not parse fails with Karmada wording', () => {
    assert.throws(
      () => overrideImage('Bad:Image', io('Tag', 'replace', 'v1')),
      (e: unknown) =>
        e instanceof ImageOverrideError &&
        e.message.startsWith('failed to parse image value(Bad:Image), error: '),
    );
  });
});

describe('imagePatches', () => {
  test('without predicate: one replace per container of the six workload kinds, never initContainers', () => {
    for (const kind of ['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'Job'])
      assert.deepEqual(
        imagePatches(
          workload(kind, [IMAGE, 'registry.k8s.io/nginx-slim:0.8']),
          io('Repository', 'replace', 'nginx'),
        ),
        [
          {
            op: 'replace',
            path: '/spec/template/spec/containers/0/image',
            value: 'fictional.registry.example/nginx:v1.0.0',
          },
          {
            op: 'replace',
            path: '/spec/template/spec/containers/1/image',
            value: 'registry.k8s.io/nginx:0.8',
          },
        ],
      );
    assert.deepEqual(imagePatches(workload('Pod', [IMAGE], 'pod'), io('Repository', 'replace', 'nginx')), [
      { op: 'replace', path: '/spec/containers/0/image', value: 'fictional.registry.example/nginx:v1.0.0' },
    ]);
  });

  test('without predicate: other kinds (CronJob) get nothing; the kind alone decides', () => {
    assert.deepEqual(imagePatches(workload('CronJob', [IMAGE]), io('Tag', 'replace', 'v2')), []);
    const custom = { ...workload('Deployment', [IMAGE]), apiVersion: 'example.com/v1' };
    assert.equal(imagePatches(custom, io('Tag', 'replace', 'v2')).length, 1);
  });

  test('without predicate: a container without image fails (parsing "")', () => {
    const obj = workload('Deployment', [IMAGE]);
    delete (obj.spec as { template: { spec: { containers: { image?: string }[] } } }).template.spec
      .containers[0]!.image;
    assert.throws(() => imagePatches(obj, io('Tag', 'replace', 'v2')), /failed to parse image value\(\)/);
  });

  test('with a predicate: that path only, initContainers included when named', () => {
    const obj = workload('Deployment', [IMAGE]);
    assert.deepEqual(
      imagePatches(obj, {
        ...io('Tag', 'replace', '2'),
        predicate: { path: '/spec/template/spec/initContainers/0/image' },
      }),
      [{ op: 'replace', path: '/spec/template/spec/initContainers/0/image', value: 'busybox:2' }],
    );
  });

  test('with a keyed predicate (kubefed-ts): the list key becomes the index', () => {
    const obj = workload('Deployment', [IMAGE, 'redis:7']);
    assert.deepEqual(
      imagePatches(obj, {
        ...io('Tag', 'replace', '8'),
        predicate: { path: '/spec/template/spec/containers/[name=c1]/image' },
      }),
      [{ op: 'replace', path: '/spec/template/spec/containers/1/image', value: 'redis:8' }],
    );
    assert.throws(
      () =>
        imagePatches(obj, {
          ...io('Tag', 'replace', '8'),
          predicate: { path: '/spec/template/spec/containers/[name=x]/image' },
        }),
      /failed to obtain imageValue with predicate path\(\/spec\/template\/spec\/containers\/\[name=x\]\/image\)/,
    );
  });

  test('with a predicate that reaches no string: Karmada errors', () => {
    const obj = workload('Deployment', [IMAGE]);
    assert.throws(
      () =>
        imagePatches(obj, {
          ...io('Tag', 'replace', '2'),
          predicate: { path: '/spec/template/spec/containers/0/name2' },
        }),
      /failed to convert path\(name2\) to string/,
    );
    assert.throws(
      () =>
        imagePatches(obj, {
          ...io('Tag', 'replace', '2'),
          predicate: { path: '/spec/template/spec/containers/x/image' },
        }),
      /path\(x\) of rawObj's is not number/,
    );
    assert.throws(
      () =>
        imagePatches(obj, {
          ...io('Tag', 'replace', '2'),
          predicate: { path: 'spec/template/spec/containers/0/image' },
        }),
      /imagePath should be start with \/ character/,
    );
  });
});
