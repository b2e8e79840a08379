import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { ExecConfig } from '../../../src/kube/kubeconfig/index.ts';
import {
  clearExecCredentialCache,
  KubeconfigError,
  loadKubeconfig,
  renderKubeconfig,
  resolveExecCredential,
  restConfigForContext,
  restConfigFromParts,
} from '../../../src/kube/kubeconfig/index.ts';

let dir: string;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kubefed-kubeconfig-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A kubeconfig with one cluster/user/context per name, all named alike. */
function kubeconfigYaml(opts: {
  current?: string;
  entries: Array<{ name: string; server: string }>;
}): string {
  const lines = ['apiVersion: v1', 'kind: Config', 'clusters:'];
  for (const e of opts.entries) lines.push(`- name: ${e.name}`, '  cluster:', `    server: ${e.server}`);
  lines.push('users:');
  for (const e of opts.entries) lines.push(`- name: ${e.name}`, '  user:', `    token: token-of-${e.server}`);
  lines.push('contexts:');
  for (const e of opts.entries) {
    lines.push(`- name: ${e.name}`, '  context:', `    cluster: ${e.name}`, `    user: ${e.name}`);
  }
  if (opts.current) lines.push(`current-context: ${opts.current}`);
  return `${lines.join('\n')}\n`;
}

async function writeTemp(name: string, content: string): Promise<string> {
  const file = path.join(dir, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

function assertKubeconfigError(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof KubeconfigError, `expected KubeconfigError, got ${String(err)}`);
    assert.match(err.message, pattern);
    assert.doesNotMatch(err.message, /\n/);
    return true;
  });
}

describe('loadKubeconfig', () => {
  it('loads only the explicit file, ignoring KUBECONFIG', async () => {
    const explicit = await writeTemp(
      'explicit/config',
      kubeconfigYaml({ current: 'one', entries: [{ name: 'one', server: 'https://one:6443' }] }),
    );
    const other = await writeTemp(
      'explicit/other',
      kubeconfigYaml({ current: 'two', entries: [{ name: 'two', server: 'https://two:6443' }] }),
    );
    const cfg = loadKubeconfig({ kubeconfig: explicit, env: { KUBECONFIG: other }, homeDir: dir });
    assert.deepEqual(cfg.sources, [explicit]);
    assert.equal(cfg.currentContext, 'one');
    assert.deepEqual([...cfg.contexts.keys()], ['one']);
  });

  it('fails when the explicit file does not exist', () => {
    const missing = path.join(dir, 'nope', 'config');
    assertKubeconfigError(
      () => loadKubeconfig({ kubeconfig: missing, env: {} }),
      new RegExp(`^kubeconfig file "${missing}" not found$`),
    );
  });

  it('merges KUBECONFIG files first-wins, current-context from the first file that sets it', async () => {
    const a = await writeTemp(
      'merge/a',
      kubeconfigYaml({
        entries: [
          { name: 'shared', server: 'https://from-a' },
          { name: 'only-a', server: 'https://only-a' },
        ],
      }),
    );
    const b = await writeTemp(
      'merge/b',
      kubeconfigYaml({
        current: 'only-b',
        entries: [
          { name: 'shared', server: 'https://from-b' },
          { name: 'only-b', server: 'https://only-b' },
        ],
      }),
    );
    const c = await writeTemp(
      'merge/c',
      kubeconfigYaml({ current: 'shared', entries: [{ name: 'shared', server: 'https://from-c' }] }),
    );
    const KUBECONFIG = ['', a, b, '', a, c].join(path.delimiter);
    const cfg = loadKubeconfig({ env: { KUBECONFIG }, homeDir: dir });
    assert.deepEqual(cfg.sources, [a, b, c]);
    assert.equal(cfg.currentContext, 'only-b');
    assert.equal(cfg.clusters.get('shared')?.server, 'https://from-a');
    assert.equal(cfg.users.get('shared')?.token, 'token-of-https://from-a');
    assert.deepEqual([...cfg.contexts.keys()].sort(), ['only-a', 'only-b', 'shared']);
    assert.equal(restConfigForContext(cfg).server, 'https://only-b');
    assert.equal(restConfigForContext(cfg, 'shared').token, 'token-of-https://from-a');
  });

  it('ignores missing KUBECONFIG files and does not fall back to ~/.kube/config', async () => {
    const home = path.join(dir, 'home-missing');
    await writeTemp(
      'home-missing/.kube/config',
      kubeconfigYaml({ current: 'home', entries: [{ name: 'home', server: 'https://home' }] }),
    );
    const real = await writeTemp(
      'missing/real',
      kubeconfigYaml({ current: 'real', entries: [{ name: 'real', server: 'https://real' }] }),
    );
    const KUBECONFIG = [path.join(dir, 'missing/none1'), real, path.join(dir, 'missing/none2')].join(
      path.delimiter,
    );
    const cfg = loadKubeconfig({ env: { KUBECONFIG }, homeDir: home });
    assert.deepEqual(cfg.sources, [real]);
    assert.equal(cfg.currentContext, 'real');

    const none = loadKubeconfig({ env: { KUBECONFIG: path.join(dir, 'missing/none1') }, homeDir: home });
    assert.deepEqual(none.sources, []);
    assert.equal(none.contexts.size, 0);
    assert.equal(none.currentContext, undefined);
  });

  it('uses ~/.kube/config without KUBECONFIG, else an empty config', async () => {
    const home = path.join(dir, 'home');
    const file = await writeTemp(
      'home/.kube/config',
      kubeconfigYaml({ current: 'home', entries: [{ name: 'home', server: 'https://home' }] }),
    );
    const cfg = loadKubeconfig({ env: { KUBECONFIG: '' }, homeDir: home });
    assert.deepEqual(cfg.sources, [file]);
    assert.equal(cfg.currentContext, 'home');

    const empty = loadKubeconfig({ env: { HOME: path.join(dir, 'no-home') } });
    assert.deepEqual(empty.sources, []);
    assert.equal(empty.clusters.size, 0);
    assertKubeconfigError(() => restConfigForContext(empty), /current-context is not set/);
  });

  it('resolves relative file references against the directory of their file', async () => {
    await writeTemp('rel/sub/ca.crt', 'CA PEM');
    await writeTemp('rel/sub/certs/client.crt', 'CERT PEM');
    await writeTemp('rel/key.pem', 'KEY PEM');
    const file = await writeTemp(
      'rel/sub/config',
      [
        'clusters:',
        '- name: c',
        '  cluster:',
        '    server: https://c.example:6443/',
        '    certificate-authority: ca.crt',
        '    tls-server-name: kubernetes',
        'users:',
        '- name: u',
        '  user:',
        '    client-certificate: certs/client.crt',
        '    client-key: ../key.pem',
        '    tokenFile: token',
        '- name: plugin-by-path',
        '  user:',
        '    exec: {apiVersion: client.authentication.k8s.io/v1, command: ./bin/plugin}',
        '- name: plugin-in-path',
        '  user:',
        '    exec: {apiVersion: client.authentication.k8s.io/v1, command: gke-gcloud-auth-plugin}',
        'contexts:',
        '- name: ctx',
        '  context: {cluster: c, user: u, namespace: team}',
        'current-context: ctx',
        '',
      ].join('\n'),
    );
    const cfg = loadKubeconfig({ kubeconfig: file });
    const sub = path.join(dir, 'rel', 'sub');
    assert.equal(cfg.clusters.get('c')?.['certificate-authority'], path.join(sub, 'ca.crt'));
    assert.equal(cfg.users.get('u')?.['client-key'], path.join(dir, 'rel', 'key.pem'));
    assert.equal(cfg.users.get('u')?.tokenFile, path.join(sub, 'token'));
    assert.equal(cfg.users.get('plugin-by-path')?.exec?.command, path.join(sub, 'bin', 'plugin'));
    assert.equal(cfg.users.get('plugin-in-path')?.exec?.command, 'gke-gcloud-auth-plugin');

    const rc = restConfigForContext(cfg);
    assert.equal(rc.server, 'https://c.example:6443');
    assert.equal(rc.namespace, 'team');
    assert.equal(rc.tlsServerName, 'kubernetes');
    assert.equal(rc.caData?.toString(), 'CA PEM');
    assert.equal(rc.certData?.toString(), 'CERT PEM');
    assert.equal(rc.keyData?.toString(), 'KEY PEM');
    assert.equal(rc.tokenFile, path.join(sub, 'token'));
    assert.equal(rc.insecureSkipTLSVerify, false);
  });

  it('reports invalid files with the file name', async () => {
    const bad = await writeTemp('invalid/yaml', 'clusters: [\n');
    assertKubeconfigError(
      () => loadKubeconfig({ kubeconfig: bad }),
      /^kubeconfig file ".*" is not valid YAML: /,
    );
    const wrongType = await writeTemp('invalid/type', 'users:\n- name: u\n  user:\n    token: 12345\n');
    assertKubeconfigError(
      () => loadKubeconfig({ kubeconfig: wrongType }),
      /^kubeconfig file ".*": user "u": "token" must be a string$/,
    );
  });
});

describe('restConfigForContext', () => {
  it('fails for an unknown context', async () => {
    const file = await writeTemp(
      'unknown/config',
      kubeconfigYaml({ current: 'one', entries: [{ name: 'one', server: 'https://one' }] }),
    );
    const cfg = loadKubeconfig({ kubeconfig: file });
    assertKubeconfigError(
      () => restConfigForContext(cfg, 'foo'),
      /^context "foo" does not exist in the kubeconfig$/,
    );
  });

  it('decodes base64 -data fields and rejects corrupt ones', async () => {
    const file = await writeTemp(
      'data/config',
      [
        'clusters:',
        '- name: c',
        '  cluster:',
        '    server: https://c',
        `    certificate-authority-data: ${b64('CA DATA')}`,
        '    certificate-authority: /does/not/exist',
        'users:',
        '- name: u',
        '  user:',
        `    client-certificate-data: ${b64('CERT DATA')}`,
        `    client-key-data: ${b64('KEY DATA')}`,
        '- name: broken',
        '  user:',
        '    client-certificate-data: not*base64',
        '    client-key-data: AAAA',
        'contexts:',
        '- {name: ok, context: {cluster: c, user: u}}',
        '- {name: broken, context: {cluster: c, user: broken}}',
        '',
      ].join('\n'),
    );
    const cfg = loadKubeconfig({ kubeconfig: file });
    const rc = restConfigForContext(cfg, 'ok');
    assert.equal(rc.caData?.toString(), 'CA DATA');
    assert.equal(rc.certData?.toString(), 'CERT DATA');
    assert.equal(rc.keyData?.toString(), 'KEY DATA');
    assert.equal(rc.userName, 'u');
    assert.equal(rc.clusterName, 'c');
    assertKubeconfigError(
      () => restConfigForContext(cfg, 'broken'),
      /client-certificate of user "broken" data is not valid base64/,
    );
  });

  it('builds a config from KubeFedCluster parts', () => {
    const rc = restConfigFromParts({
      name: 'member-1',
      server: 'https://10.0.0.1:6443//',
      caData: Buffer.from('CA'),
      token: 'sa-token',
    });
    assert.deepEqual(rc, {
      contextName: 'member-1',
      clusterName: 'member-1',
      userName: 'member-1',
      server: 'https://10.0.0.1:6443',
      caData: Buffer.from('CA'),
      token: 'sa-token',
      insecureSkipTLSVerify: false,
    });
  });
});

describe('resolveExecCredential', () => {
  let plugin: string;
  const apiVersion = 'client.authentication.k8s.io/v1';

  before(async () => {
    plugin = await writeTemp(
      'exec/plugin.sh',
      [
        '#!/bin/sh',
        'echo run >> "$COUNTER"',
        'printf "%s" "$KUBERNETES_EXEC_INFO" > "$INFO"',
        'if [ "$1" = "fail" ]; then echo "error: login required" >&2; exit 3; fi',
        'sleep 0.2',
        'cat <<EOF',
        `{"apiVersion":"${apiVersion}","kind":"ExecCredential",`,
        '"status":{"token":"tok-$SUFFIX","expirationTimestamp":"$EXPIRY"}}',
        'EOF',
        '',
      ].join('\n'),
    );
    await chmod(plugin, 0o755);
  });

  beforeEach(() => clearExecCredentialCache());

  function execFor(name: string, expiry: string, args: string[] = []): ExecConfig {
    return {
      apiVersion,
      command: plugin,
      args,
      env: [
        { name: 'COUNTER', value: path.join(dir, 'exec', `${name}.count`) },
        { name: 'INFO', value: path.join(dir, 'exec', `${name}.info`) },
        { name: 'SUFFIX', value: name },
        { name: 'EXPIRY', value: expiry },
      ],
      provideClusterInfo: true,
      interactiveMode: 'Never',
    };
  }

  const runs = async (name: string) =>
    (await readFile(path.join(dir, 'exec', `${name}.count`), 'utf8')).trim().split('\n').length;

  it('returns the token and runs the plugin once for concurrent and later calls', async () => {
    const exec = execFor('cached', '2999-01-01T00:00:00Z');
    const cluster = { server: 'https://c', caData: Buffer.from('CA') };
    const [first, second] = await Promise.all([
      resolveExecCredential(exec, cluster),
      resolveExecCredential(exec, cluster),
    ]);
    const third = await resolveExecCredential(exec, cluster);
    assert.equal(first.token, 'tok-cached');
    assert.equal(first.expiresAt, Date.parse('2999-01-01T00:00:00Z'));
    assert.deepEqual(second, first);
    assert.deepEqual(third, first);
    assert.equal(await runs('cached'), 1);

    const info = JSON.parse(await readFile(path.join(dir, 'exec', 'cached.info'), 'utf8'));
    assert.deepEqual(info, {
      apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: 'https://c', 'certificate-authority-data': b64('CA') } },
    });
  });

  it('runs the plugin again once the credential has expired', async () => {
    const exec = execFor('expired', '2000-01-01T00:00:00Z');
    await resolveExecCredential(exec);
    await resolveExecCredential(exec);
    assert.equal(await runs('expired'), 2);
  });

  it('reports a failing plugin with its stderr and does not cache the failure', async () => {
    const exec = execFor('failing', '2999-01-01T00:00:00Z', ['fail']);
    for (let i = 0; i < 2; i++) {
      await assert.rejects(resolveExecCredential(exec), (err: unknown) => {
        assert.ok(err instanceof KubeconfigError);
        assert.equal(err.message, `exec plugin "${plugin}" failed with exit code 3: error: login required`);
        return true;
      });
    }
    assert.equal(await runs('failing'), 2);
  });

  it('reports a missing plugin with its install hint', async () => {
    await assert.rejects(
      resolveExecCredential({
        apiVersion,
        command: path.join(dir, 'exec', 'absent'),
        installHint: 'install it',
      }),
      /exec plugin ".*absent" not found; install it$/,
    );
  });
});

describe('renderKubeconfig', () => {
  it('round-trips through loadKubeconfig and restConfigForContext', async () => {
    const yaml = renderKubeconfig(
      [
        {
          name: 'host',
          server: 'https://127.0.0.1:6443',
          caData: Buffer.from('HOST CA'.repeat(40)),
          token: 't0',
        },
        {
          name: 'member',
          server: 'https://127.0.0.1:7443/',
          caData: Buffer.from('MEMBER CA'),
          certData: Buffer.from('CERT'),
          keyData: Buffer.from('KEY'),
          namespace: 'kube-federation-system',
        },
      ],
      'host',
    );
    const file = await writeTemp('render/config', yaml);
    const cfg = loadKubeconfig({ kubeconfig: file });
    assert.equal(cfg.currentContext, 'host');

    const host = restConfigForContext(cfg);
    assert.equal(host.server, 'https://127.0.0.1:6443');
    assert.equal(host.caData?.toString(), 'HOST CA'.repeat(40));
    assert.equal(host.token, 't0');

    const member = restConfigForContext(cfg, 'member');
    assert.equal(member.server, 'https://127.0.0.1:7443');
    assert.equal(member.caData?.toString(), 'MEMBER CA');
    assert.equal(member.certData?.toString(), 'CERT');
    assert.equal(member.keyData?.toString(), 'KEY');
    assert.equal(member.namespace, 'kube-federation-system');
    assert.equal(member.token, undefined);
  });

  it('rejects a current-context that is not among the entries', () => {
    assertKubeconfigError(
      () => renderKubeconfig([{ name: 'a', server: 'https://a', caData: Buffer.from('CA') }], 'b'),
      /^context "b" is not among the kubeconfig entries$/,
    );
  });
});
