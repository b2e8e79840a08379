import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ManifestConfigOption } from '../../../../src/api/ocm/work/v1/index.ts';
import {
  manifestOptions,
  matchesIdentifier,
  wildcardMatch,
} from '../../../../src/engine/agent/config-match.ts';

const deploy = { group: 'apps', resource: 'deployments', namespace: 'ns1', name: 'web1' };

describe('wildcardMatch (ocm helpers.go wildcardMatch)', () => {
  const cases: [string, string, boolean][] = [
    ['web1', 'web1', true],
    ['web1', '*', true],
    ['web1', '*1', true],
    ['web1', 'w*', true],
    ['web1', 'w*b*', true],
    ['web1', 'web', false],
    ['web1', '*2', false],
    ['', '*', true],
    ['', '', true],
    ['a.b', 'a.*', true],
    ['axb', 'a.b', false],
    ['a(b', 'a(*', true],
  ];
  for (const [value, pattern, want] of cases) {
    test(`${JSON.stringify(value)} ~ ${JSON.stringify(pattern)} → ${want}`, () => {
      assert.equal(wildcardMatch(value, pattern), want);
    });
  }
});

describe('matchesIdentifier', () => {
  test('group and resource are exact, namespace and name may be wildcards', () => {
    assert.ok(
      matchesIdentifier({ group: 'apps', resource: 'deployments', namespace: 'ns1', name: 'web1' }, deploy),
    );
    assert.ok(
      matchesIdentifier({ group: 'apps', resource: 'deployments', namespace: '*', name: '*1' }, deploy),
    );
    assert.ok(!matchesIdentifier({ group: '', resource: 'deployments', namespace: '*', name: '*' }, deploy));
    assert.ok(!matchesIdentifier({ group: 'apps', resource: 'deploy*', namespace: '*', name: '*' }, deploy));
    assert.ok(
      !matchesIdentifier({ group: 'apps', resource: 'deployments', name: 'web1' }, deploy),
      'namespace omitted is ""',
    );
    assert.ok(
      matchesIdentifier(
        { resource: 'namespaces', name: 'ns1' },
        { group: '', resource: 'namespaces', namespace: '', name: 'ns1' },
      ),
    );
  });
});

describe('manifestOptions (ocm FindManifestConfiguration)', () => {
  test('defaults when nothing matches', () => {
    assert.deepEqual(manifestOptions(undefined, deploy), {
      updateStrategy: { type: 'Update' },
      feedbackRules: [],
      conditionRules: [],
    });
  });

  test('the first matching entry wins; a later match fills only what the first left out', () => {
    const configs: ManifestConfigOption[] = [
      {
        resourceIdentifier: { group: 'apps', resource: 'deployments', namespace: 'ns2', name: '*' },
        updateStrategy: { type: 'ReadOnly' },
      },
      {
        resourceIdentifier: { group: 'apps', resource: 'deployments', namespace: 'ns1', name: 'web*' },
        feedbackRules: [{ type: 'WellKnownStatus' }],
      },
      {
        resourceIdentifier: { group: 'apps', resource: 'deployments', namespace: '*', name: '*' },
        feedbackRules: [{ type: 'JSONPaths', jsonPaths: [{ name: 'x', path: '.status.x' }] }],
        updateStrategy: { type: 'CreateOnly' },
      },
    ];
    const got = manifestOptions(configs, deploy);
    assert.deepEqual(got.feedbackRules, [{ type: 'WellKnownStatus' }]);
    assert.deepEqual(got.updateStrategy, { type: 'CreateOnly' });
    assert.equal(got.config, configs[1]);
  });

  test('ServerSideApply gets field manager work-agent and force false unless set', () => {
    const base = {
      resourceIdentifier: { group: 'apps', resource: 'deployments', namespace: 'ns1', name: 'web1' },
    };
    assert.deepEqual(
      manifestOptions([{ ...base, updateStrategy: { type: 'ServerSideApply' } }], deploy).updateStrategy,
      {
        type: 'ServerSideApply',
        serverSideApply: { force: false, fieldManager: 'work-agent' },
      },
    );
    const custom = manifestOptions(
      [
        {
          ...base,
          updateStrategy: {
            type: 'ServerSideApply',
            serverSideApply: { force: true, fieldManager: 'work-agent-2' },
          },
        },
      ],
      deploy,
    );
    assert.deepEqual(custom.updateStrategy.serverSideApply, { force: true, fieldManager: 'work-agent-2' });
  });
});
