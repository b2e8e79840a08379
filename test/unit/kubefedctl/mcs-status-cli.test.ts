// Runs the real kubefedctl binary for `mcs status` where no federation is needed: flags and failures are
// one line and a non-zero exit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../src/cli/kubefedctl.ts', import.meta.url));

function kubefedctl(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('kubefedctl mcs status (CLI)', () => {
  let dir: string;
  let kubeconfig: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubefedctl-mcs-'));
    kubeconfig = join(dir, 'kubeconfig');
    // A host nothing listens on (port 1).
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: host',
        'clusters: [{name: host, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
        'users: [{name: admin, user: {token: t}}]',
        'contexts: [{name: host, context: {cluster: host, user: admin}}]',
      ].join('\n'),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a bad -o is one line and exit 1, before any cluster is called', () => {
    const r = kubefedctl(['mcs', 'status', '-o', 'xml', '--kubeconfig', kubeconfig]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'Error: invalid output format "xml": valid values are table, json, yaml\n');
  });

  test('an unreachable host is one line naming it, and exit 1', () => {
    const r = kubefedctl(['mcs', 'status', '-A', '--kubeconfig', kubeconfig]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^Error: cannot reach the host cluster \(context "host"\): .*ECONNREFUSED.*\n$/);
  });

  test('help names the command under mcs, and join offers --skip-mcs-crds', () => {
    assert.match(kubefedctl(['mcs', '--help']).stdout, /status \[options\] \[service\]/);
    assert.match(kubefedctl(['join', '--help']).stdout, /--skip-mcs-crds/);
  });
});
