import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { holdsManifest } from '../../../../src/engine/agent/drift.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';

const manifest: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'app', labels: { app: 'web' } },
  spec: {
    replicas: 2,
    template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }] } },
  },
} as KubeObject;

type Dep = KubeObject & {
  spec: {
    replicas: number;
    progressDeadlineSeconds?: number;
    template: { spec: { containers: Array<Record<string, string>> } };
  };
  status?: Record<string, unknown>;
};

function live(patch: (o: Dep) => void): KubeObject {
  const o = structuredClone(manifest) as Dep;
  const [container] = o.spec.template.spec.containers;
  assert.ok(container);
  o.metadata.labels = { ...(o.metadata.labels ?? {}), 'added-by-member': 'x' };
  o.metadata.resourceVersion = '7';
  o.spec.progressDeadlineSeconds = 600;
  container['terminationMessagePath'] = '/dev/termination-log';
  o.status = { readyReplicas: 1 };
  patch(o);
  return o;
}

describe('holdsManifest', () => {
  test('fields the member adds (defaults, labels, status) are not drift', () => {
    assert.equal(
      holdsManifest(
        manifest,
        live(() => {}),
      ),
      true,
    );
  });
  test('an edited field the manifest sets is drift', () => {
    assert.equal(
      holdsManifest(
        manifest,
        live((o) => {
          o.spec.replicas = 3;
        }),
      ),
      false,
    );
    assert.equal(
      holdsManifest(
        manifest,
        live((o) => {
          const [c] = o.spec.template.spec.containers;
          if (c) c['image'] = 'nginx:2';
        }),
      ),
      false,
    );
  });
  test('a removed label or an extra list item is drift', () => {
    assert.equal(
      holdsManifest(
        manifest,
        live((o) => {
          delete o.metadata.labels?.['app'];
        }),
      ),
      false,
    );
    assert.equal(
      holdsManifest(
        manifest,
        live((o) => {
          o.spec.template.spec.containers.push({ name: 'sidecar', image: 'x' });
        }),
      ),
      false,
    );
  });
  test('status and metadata the manifest carries are not compared (but its labels are)', () => {
    const withStatus = { ...manifest, status: { readyReplicas: 9 } } as KubeObject;
    assert.equal(
      holdsManifest(
        withStatus,
        live(() => {}),
      ),
      true,
    );
  });
  test('what the apiserver drops or folds (empty maps, lists, strings; Secret stringData) is not drift', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { password: 'x' },
      data: {},
      immutable: false,
    } as KubeObject;
    const stored = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', resourceVersion: '3' },
      data: { password: 'eA==' },
      immutable: false,
      type: 'Opaque',
    } as KubeObject;
    const storedWithoutData = { ...stored, data: undefined } as KubeObject;
    assert.equal(holdsManifest(secret, stored), true);
    assert.equal(
      holdsManifest({ ...secret, data: {}, stringData: undefined } as KubeObject, storedWithoutData),
      true,
    );
    assert.equal(holdsManifest({ ...secret, immutable: true } as KubeObject, stored), false);
  });
});
