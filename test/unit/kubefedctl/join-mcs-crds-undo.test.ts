import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeClient, KubeObject } from '../../../src/kube/client/index.ts';
import type { CrdLike } from '../../../src/kubefedctl/crd-takeover.ts';
import { writeMcsCrds } from '../../../src/kubefedctl/join.ts';
import { labelledMcsCrds, planMcsCrds } from '../../../src/kubefedctl/mcs-crds.ts';

/** A member holding CRDs by name, as the API server would (resourceVersion bumped on every write). */
function memberWith(crds: CrdLike[]) {
  const stored = new Map(
    crds.map((c) => [c.metadata.name ?? '', structuredClone(c) as unknown as KubeObject]),
  );
  let version = 100;
  const client = {
    get: async (_type: unknown, name: string) => structuredClone(stored.get(name)),
    update: async (_type: unknown, object: KubeObject) => {
      const name = object.metadata.name ?? '';
      const next = structuredClone(object);
      next.metadata.resourceVersion = String(++version);
      stored.set(name, next);
      return next;
    },
  } as unknown as KubeClient;
  return { client, stored };
}

test("join's undo journal puts back an MCS CRD it updated as it was (spec, labels, annotations)", async () => {
  // kubefed-ts's older copies: no printer columns, and an annotation someone else set.
  const older = labelledMcsCrds().map((c) => {
    const old = structuredClone(c);
    old.metadata.annotations = { ...old.metadata.annotations, 'someone/else': 'x' };
    (old.metadata as Record<string, unknown>).resourceVersion = '42';
    for (const v of old.spec.versions as unknown as Array<Record<string, unknown>>)
      delete v.additionalPrinterColumns;
    return old;
  });
  const { client, stored } = memberWith(older);
  const steps = planMcsCrds(new Map(older.map((c) => [c.metadata.name ?? '', c])));
  assert.ok(steps.some((s) => s.action === 'update'));
  const undo: Array<() => Promise<unknown>> = [];
  const silent = { out: () => undefined, warn: () => undefined, cluster: 'member' };
  await writeMcsCrds(client, steps, undo, 'cluster member', silent);
  const updated = steps.filter((s) => s.action === 'update').map((s) => s.name);
  for (const name of updated)
    assert.notDeepEqual(
      (stored.get(name) as KubeObject).spec,
      older.find((c) => c.metadata.name === name)?.spec,
    );

  assert.equal(undo.length, updated.length);
  for (const step of undo.reverse()) await step();
  for (const name of updated) {
    const now = stored.get(name) as KubeObject;
    const was = older.find((c) => c.metadata.name === name) as CrdLike;
    assert.deepEqual(now.spec, was.spec, name);
    assert.deepEqual(now.metadata.labels, was.metadata.labels, name);
    assert.deepEqual(now.metadata.annotations, was.metadata.annotations, name);
  }
});
