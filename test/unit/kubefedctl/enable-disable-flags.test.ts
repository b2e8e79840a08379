import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { validateDisableFlags } from '../../../src/kubefedctl/disable.ts';
import { loadEnableTypeDirective, parseOutputFlag } from '../../../src/kubefedctl/enable.ts';
import { CommandError } from '../../../src/kubefedctl/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'kubefedctl-enable-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('enable flags', () => {
  test('--output accepts only yaml, with KubeFed message otherwise', () => {
    assert.equal(parseOutputFlag(undefined), undefined);
    assert.equal(parseOutputFlag('yaml'), 'yaml');
    assert.throws(() => parseOutputFlag('json'), new CommandError('Invalid value for --output: json'));
  });

  test('an EnableTypeDirective file gives name and spec; missing fields take the defaults', () => {
    const full = file(
      'full.yaml',
      [
        'apiVersion: core.kubefed.io/v1beta1',
        'kind: EnableTypeDirective',
        'metadata:',
        '  name: deployments.apps',
        'spec:',
        '  targetVersion: v1',
        '  federatedGroup: fed.example.io',
        '  federatedVersion: v1alpha1',
        '',
      ].join('\n'),
    );
    assert.deepEqual(loadEnableTypeDirective(full), {
      name: 'deployments.apps',
      targetVersion: 'v1',
      federatedGroup: 'fed.example.io',
      federatedVersion: 'v1alpha1',
    });
    const minimal = file('min.yaml', 'metadata:\n  name: configmaps\n');
    assert.deepEqual(loadEnableTypeDirective(minimal), {
      name: 'configmaps',
      targetVersion: undefined,
      federatedGroup: 'types.kubefed.io',
      federatedVersion: 'v1beta1',
    });
  });

  test("unreadable or incomplete directive files fail with KubeFed's prefix", () => {
    const missing = join(dir, 'nope.yaml');
    assert.throws(
      () => loadEnableTypeDirective(missing),
      (e: unknown) => {
        assert.ok(e instanceof CommandError);
        assert.match(e.message, new RegExp(`^Failed to load yaml from file "${missing}": .*ENOENT`));
        return true;
      },
    );
    assert.throws(
      () => loadEnableTypeDirective(file('noname.yaml', 'spec:\n  targetVersion: v1\n')),
      /Failed to load yaml from file ".*noname\.yaml": metadata\.name is required/,
    );
    assert.throws(
      () => loadEnableTypeDirective(file('bad.yaml', 'metadata: [\n')),
      /Failed to load yaml from file ".*bad\.yaml": /,
    );
  });
});

describe('disable flags (KubeFed pkg/kubefedctl/disable.go)', () => {
  test('--version and --federated-group are only valid with --delete-crd', () => {
    assert.throws(
      () => validateDisableFlags({ targetVersion: 'v1' }),
      new CommandError('--version flag valid only with --delete-crd'),
    );
    // KubeFed's message says --kubefed-group (sic).
    assert.throws(
      () => validateDisableFlags({ federatedGroup: 'other.example.io' }),
      new CommandError('--kubefed-group flag valid only with --delete-crd'),
    );
    validateDisableFlags({});
    validateDisableFlags({ federatedGroup: 'types.kubefed.io' });
    validateDisableFlags({ deleteCrd: true, targetVersion: 'v1', federatedGroup: 'other.example.io' });
  });
});
