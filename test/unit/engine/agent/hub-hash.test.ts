import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { appliedManifestWorkName, hubHash, workNameOf } from '../../../../src/engine/agent/hub-hash.ts';

describe('hubHash (ocm helpers.go HubHash)', () => {
  test('is the hex sha256 of the URL string', () => {
    assert.equal(
      hubHash('https://127.0.0.1:6443'),
      '6c5003f4dd1691967bd3047645092380ef15affc718a40bf6cc43496f96e552a',
    );
    assert.equal(hubHash('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(hubHash('').length, 64);
    assert.notEqual(hubHash('https://a'), hubHash('https://a/'));
  });
  test('names the AppliedManifestWork <hubHash>-<workName> and reads it back', () => {
    const h = hubHash('https://hub');
    const name = appliedManifestWorkName(h, 'web');
    assert.equal(name, `${h}-web`);
    assert.equal(workNameOf(h, name), 'web');
    assert.equal(workNameOf(hubHash('https://other'), name), undefined);
  });
});
