import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { ApiError, type KubeClient, type KubeObject } from '../../../../src/kube/client/index.ts';
import {
  overridesHash,
  type PropagatedVersionStatus,
  templateHash,
} from '../../../../src/propagation/versions.ts';
import {
  propagatedVersionName,
  propagatedVersionOf,
  seedVersions,
  type VersionBackend,
  VersionStore,
} from '../../../../src/sources/federated/version-store.ts';

const NS = 'apps';
const owner = {
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedConfigMap',
  name: 'web',
  namespace: NS,
  uid: 'u1',
};
const spec = { template: { data: { a: '1' } }, overrides: undefined };
const T1 = templateHash(spec.template);
const O1 = overridesHash(spec.overrides);
const both = new Set(['c1', 'c2']);
const pv = (versions: Record<string, string>, t = T1, o = O1): PropagatedVersionStatus => ({
  templateVersion: t,
  overridesVersion: o,
  clusterVersions: Object.entries(versions).map(([clusterName, version]) => ({ clusterName, version })),
});

/** A host that records every call; `list` answers with `items`, or throws `listError`. */
function fakeHost(opts: { items?: KubeObject[]; listError?: unknown } = {}) {
  const calls: string[] = [];
  let rv = 10;
  const client = {
    listAll: async (type: { plural: string }, o: { namespace?: string }) => {
      calls.push(`list ${type.plural} ${o.namespace ?? ''}`);
      if (opts.listError) throw opts.listError;
      return { metadata: {}, items: opts.items ?? [] };
    },
    create: async (type: { plural: string }, obj: KubeObject) => {
      calls.push(`create ${type.plural} ${obj.metadata.name}`);
      return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv) } };
    },
    update: async (type: { plural: string }, obj: KubeObject, o: { subresource?: string }) => {
      calls.push(`update ${type.plural}/${o.subresource ?? ''} ${obj.metadata.name}`);
      return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv) } };
    },
    get: async () => {
      throw new Error('unexpected get');
    },
  };
  return { client: client as unknown as KubeClient, calls };
}

const storeOn = (client: KubeClient, backend?: VersionBackend, logger?: pino.Logger) =>
  new VersionStore({ client, namespaced: true, targetKind: 'ConfigMap', backend, logger });

const pvObject = (name: string, status: PropagatedVersionStatus, namespace = NS): KubeObject & object => ({
  apiVersion: 'core.kubefed.io/v1alpha1',
  kind: 'PropagatedVersion',
  metadata: { name, namespace, resourceVersion: '3' },
  status,
});

describe('VersionStore, status backend (default): no PropagatedVersion written', () => {
  test('a cold create records in memory; the versions go to the status, owed because members were written', async () => {
    const { client, calls } = fakeHost();
    const store = storeOn(client);
    await store.load();
    const round = store.round(owner, spec, undefined);
    assert.equal(round.recorded.size, 0);
    const written = round.record(
      both,
      new Map([
        ['c2', 'rv:7'],
        ['c1', 'rv:5'],
      ]),
      true,
    );
    assert.equal(written, undefined);
    assert.deepEqual(round.statusVersions(), {
      propagatedVersion: pv({ c1: 'rv:5', c2: 'rv:7' }),
      unsaved: true,
    });
    assert.deepEqual(calls, ['list propagatedversions ']);
  });

  test('the next round, before the informer shows our status write, still sees what was recorded', () => {
    const store = storeOn(fakeHost().client);
    store.round(owner, spec, undefined).record(both, new Map([['c1', 'rv:5']]), true);
    const next = store.round(owner, spec, { observedGeneration: 1 } as object);
    assert.deepEqual([...next.recorded], [['c1', 'rv:5']]);
  });

  test('once saved and shown by the status, the status alone is used (the memory entry goes)', () => {
    const store = storeOn(fakeHost().client);
    const first = store.round(owner, spec, undefined);
    first.record(both, new Map([['c1', 'rv:5']]), true);
    const sent = first.statusVersions()?.propagatedVersion as PropagatedVersionStatus;
    store.saved(owner, sent, sent);
    const next = store.round(owner, spec, { propagatedVersion: structuredClone(sent) });
    assert.equal(store.get(owner.name, NS), undefined);
    assert.deepEqual([...next.recorded], [['c1', 'rv:5']]);
  });

  test('an unsaved change stays owed across rounds until a status write carries it', () => {
    const store = storeOn(fakeHost().client);
    const stale = { propagatedVersion: pv({ c1: 'rv:5' }) };
    store.round(owner, spec, stale).record(both, new Map([['c1', 'rv:6']]), true);
    // The status write failed; the next round finds the member up to date and writes nothing.
    const again = store.round(owner, spec, stale);
    again.record(both, new Map([['c1', 'rv:6']]), false);
    assert.deepEqual(again.statusVersions(), { propagatedVersion: pv({ c1: 'rv:6' }), unsaved: true });
    store.saved(owner, pv({ c1: 'rv:6' }), pv({ c1: 'rv:6' }));
    const third = store.round(owner, spec, stale);
    third.record(both, new Map([['c1', 'rv:6']]), false);
    assert.equal(third.statusVersions()?.unsaved, false);
  });

  test('a restart seeds from the status: nothing changed, nothing owed', async () => {
    const { client, calls } = fakeHost();
    const store = storeOn(client);
    await store.load();
    const status = { propagatedVersion: pv({ c1: 'rv:5', c2: 'rv:7' }) };
    const round = store.round(owner, spec, status);
    assert.deepEqual(Object.fromEntries(round.recorded), { c1: 'rv:5', c2: 'rv:7' });
    round.record(
      both,
      new Map([
        ['c1', 'rv:5'],
        ['c2', 'rv:7'],
      ]),
      false,
    );
    assert.deepEqual(round.statusVersions(), { propagatedVersion: status.propagatedVersion, unsaved: false });
    assert.equal(store.get(owner.name, NS), undefined, 'nothing kept in memory');
    assert.deepEqual(calls, ['list propagatedversions ']);
  });

  test("a migration seeds from KubeFed's PropagatedVersions, read once and never written", async () => {
    const { client, calls } = fakeHost({
      items: [
        pvObject('configmap-web', pv({ c1: 'rv:5', c2: 'rv:7' })),
        pvObject('deployment-web', pv({ c1: 'gen:1' })),
      ],
    });
    const store = storeOn(client);
    await store.load();
    const round = store.round(owner, spec, {});
    assert.deepEqual(Object.fromEntries(round.recorded), { c1: 'rv:5', c2: 'rv:7' });
    round.record(
      both,
      new Map([
        ['c1', 'rv:5'],
        ['c2', 'rv:7'],
      ]),
      false,
    );
    // The status may carry it along another change, but owes no write for it.
    assert.equal(round.statusVersions()?.unsaved, false);
    const other = store.round({ ...owner, name: 'deployment-web' }, spec, {});
    assert.equal(other.recorded.size, 0, 'another kind prefix is not ours');
    assert.deepEqual(calls, ['list propagatedversions ']);
  });

  test('the PropagatedVersion API not served (404) or not granted (403): start without seeds', async () => {
    for (const statusCode of [404, 403]) {
      const err = new ApiError({ statusCode, reason: 'x', message: 'x', method: 'GET', path: '/x' });
      const store = storeOn(fakeHost({ listError: err }).client);
      await store.load();
      assert.equal(store.round(owner, spec, undefined).recorded.size, 0);
      await assert.rejects(storeOn(fakeHost({ listError: err }).client, 'objects').load());
    }
    const other = new Error('connection refused');
    await assert.rejects(storeOn(fakeHost({ listError: other }).client).load(), /connection refused/);
  });

  test('a template change: nothing recorded applies; the new versions are owed', () => {
    const store = storeOn(fakeHost().client);
    const status = { propagatedVersion: pv({ c1: 'rv:5' }, 'old-template') };
    const round = store.round(owner, spec, status);
    assert.equal(round.recorded.size, 0);
    round.record(both, new Map([['c1', 'rv:8']]), true);
    assert.deepEqual(round.statusVersions(), { propagatedVersion: pv({ c1: 'rv:8' }), unsaved: true });
  });

  test('forget drops what was recorded', () => {
    const store = storeOn(fakeHost().client);
    store.round(owner, spec, undefined).record(both, new Map([['c1', 'rv:5']]), true);
    store.forget(owner.name, NS);
    assert.equal(store.round(owner, spec, undefined).recorded.size, 0);
  });

  test('a CRD that prunes status.propagatedVersion is reported once', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (l: string) => lines.push(l) });
    const store = storeOn(fakeHost().client, 'status', logger);
    const sent = pv({ c1: 'rv:5' });
    store.saved(owner, sent, sent);
    assert.equal(lines.length, 0);
    store.saved(owner, sent, undefined);
    store.saved(owner, sent, undefined);
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /prunes status\.propagatedVersion/);
  });
});

describe('VersionStore, objects backend (--propagated-versions=true): PropagatedVersions as KubeFed', () => {
  test('a cold create writes the PropagatedVersion: POST, then PUT status', async () => {
    const { client, calls } = fakeHost();
    const store = storeOn(client, 'objects');
    await store.load();
    const round = store.round(owner, spec, undefined);
    await round.record(both, new Map([['c1', 'rv:5']]), true);
    assert.equal(round.statusVersions(), undefined);
    assert.deepEqual(calls, [
      `list propagatedversions `,
      'create propagatedversions configmap-web',
      'update propagatedversions/status configmap-web',
    ]);
    const next = store.round(owner, spec, undefined);
    assert.deepEqual([...next.recorded], [['c1', 'rv:5']]);
    assert.equal(next.record(both, new Map([['c1', 'rv:5']]), false), undefined, 'unchanged: no write');
  });

  test('without a PropagatedVersion, the status a default run left: members kept, the object written', async () => {
    const { client, calls } = fakeHost();
    const store = storeOn(client, 'objects');
    await store.load();
    const round = store.round(owner, spec, { propagatedVersion: pv({ c1: 'rv:5' }) });
    assert.deepEqual([...round.recorded], [['c1', 'rv:5']]);
    await round.record(both, new Map([['c1', 'rv:5']]), false);
    assert.deepEqual(calls.slice(1), [
      'create propagatedversions configmap-web',
      'update propagatedversions/status configmap-web',
    ]);
  });

  test('an existing PropagatedVersion wins over the status', async () => {
    const { client } = fakeHost({ items: [pvObject('configmap-web', pv({ c1: 'rv:9' }))] });
    const store = storeOn(client, 'objects');
    await store.load();
    const round = store.round(owner, spec, { propagatedVersion: pv({ c1: 'rv:5' }) });
    assert.deepEqual([...round.recorded], [['c1', 'rv:9']]);
  });
});

describe('propagatedVersionName', () => {
  test("KubeFed's name: the target kind lower-cased, a dash, the object's name", () => {
    assert.equal(propagatedVersionName('ConfigMap', 'cm-00001'), 'configmap-cm-00001');
    assert.equal(propagatedVersionName('Deployment', 'web'), 'deployment-web');
  });
});

describe('seedVersions and propagatedVersionOf', () => {
  test('the seed recorded for the current template and overrides wins; the status first', () => {
    const s = pv({ c1: 'rv:1' });
    const o = pv({ c1: 'rv:2' });
    assert.equal(seedVersions(s, o, T1, O1), s);
    assert.equal(seedVersions(pv({ c1: 'rv:1' }, 'old'), o, T1, O1), o);
    assert.equal(seedVersions(s, pv({ c1: 'rv:2' }, T1, 'old'), T1, O1), s);
    const stale = pv({}, 'old');
    assert.equal(seedVersions(stale, undefined, T1, O1), stale);
    assert.equal(seedVersions(undefined, undefined, T1, O1), undefined);
  });

  test('only the PropagatedVersion status shape is read from a status', () => {
    assert.deepEqual(propagatedVersionOf({ templateVersion: 't', overridesVersion: 'o' }), {
      templateVersion: 't',
      overridesVersion: 'o',
      clusterVersions: [],
    });
    assert.deepEqual(
      propagatedVersionOf({
        templateVersion: 't',
        overridesVersion: 'o',
        clusterVersions: [{ clusterName: 'c1', version: 'rv:1', extra: true }],
      }),
      {
        templateVersion: 't',
        overridesVersion: 'o',
        clusterVersions: [{ clusterName: 'c1', version: 'rv:1' }],
      },
    );
    for (const bad of [
      undefined,
      null,
      'x',
      [],
      { templateVersion: 't' },
      { templateVersion: 't', overridesVersion: 1 },
      { templateVersion: 't', overridesVersion: 'o', clusterVersions: {} },
      { templateVersion: 't', overridesVersion: 'o', clusterVersions: [{ clusterName: 'c1' }] },
    ])
      assert.equal(propagatedVersionOf(bad), undefined, JSON.stringify(bad));
  });
});
