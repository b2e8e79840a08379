import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KubeFedClusterType } from '../../src/api/core/v1beta1/index.ts';
import { buildSea, elfArch, hasSeaBlob, nodeFromNpm, type SeaArch } from '../../src/build/sea.ts';
import { MIN_NODE } from '../../src/cmd/node-version.ts';
import { CoreTypes, type KubeClient } from '../../src/kube/client/index.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import {
  registerAdmissionWebhooks,
  startAdmissionWebhook,
} from '../../src/testing/admission-webhook-process.ts';
import { binary } from '../../src/testing/binaries.ts';
import { startKubefedControllerManager } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import type { ManagedProcess } from '../../src/testing/process.ts';
import {
  createFederatedNamespace,
  eventually,
  federatedConfigMap,
  getOrUndefined,
  T,
} from './federation-helpers.ts';
import { type CliResult, NS, prepareHost, waitForCluster } from './helpers.ts';

function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(cmd, args, { ...opts, timeout: 180_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function ok(r: CliResult, what: string): CliResult {
  assert.equal(r.code, 0, `${what} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
}

/** What the tarball may hold: the bundles, the runtime files in `files`, and npm's own. */
const ALLOWED = [
  /^package\/(package\.json|README\.md|LICENSE)$/,
  /^package\/dist\/[\w.-]+\.js$/,
  // config/crds/members: the MCS member CRDs, for members joined before join installed them.
  /^package\/config\/crds\/(members\/)?[\w.-]+\.yaml$/,
  /^package\/config\/samples\/local-up\.yaml$/,
  /^package\/hack\/install-[\w-]+\.sh$/,
];

describe('kubefed-ts as an npm package and a single executable, used outside the repository', () => {
  let fed: Federation;
  let host: KubeClient;
  let tmp: string;
  let tarball: string;
  let prefix: string;
  /** An empty directory with no clone above it: every command runs there. */
  let work: string;
  /** The installed commands first, then this Node (the bins' `#!/usr/bin/env node`), then the system's. */
  let env: NodeJS.ProcessEnv;
  let sea: Record<SeaArch, string | undefined>;
  /** The installed controller manager and webhook, once started. */
  const started: ManagedProcess[] = [];
  const kc = () => ['--kubeconfig', fed.kubeconfigPath, '--host-cluster-context', 'host'];
  const installed = (name: string) => join(prefix, 'bin', name);

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'kubefed-ts-npm-'));
    prefix = join(tmp, 'prefix');
    work = join(tmp, 'work');
    mkdirSync(work);
    env = {
      ...process.env,
      PATH: [join(prefix, 'bin'), dirname(process.execPath), process.env.PATH].join(delimiter),
    };
    // One after the other: npm, esbuild and the apiservers side by side starve each other on a small machine.
    fed = await startFederation({ members: ['cluster1'] });
    host = fed.host.client();
    await prepareHost(host);
    // `npm pack` runs prepack (the bundles) in the clone, as a release would.
    const packed = ok(
      await run('npm', ['pack', '--pack-destination', tmp, '--silent'], { cwd: REPO_ROOT, env }),
      'npm pack',
    );
    tarball = join(tmp, packed.stdout.trim().split('\n').at(-1) ?? '');
    ok(
      await run('npm', ['install', '-g', '--prefix', prefix, tarball, '--no-audit', '--no-fund'], {
        cwd: work,
        env,
      }),
      'npm install -g',
    );
    sea = await buildSea({ outDir: join(tmp, 'sea'), log: () => {} });
  });
  after(async () => {
    for (const p of started) await p.stop();
    await fed?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test('the tarball holds the bundles and runtime files only: no sources, tests or docs', async () => {
    const entries = ok(await run('tar', ['-tzf', tarball], { cwd: work, env }), 'tar')
      .stdout.trim()
      .split('\n');
    for (const e of entries)
      assert.ok(
        ALLOWED.some((re) => re.test(e)),
        `unexpected file in the package: ${e}`,
      );
    for (const needed of [
      'package/dist/kubefedctl.js',
      'package/dist/kubefed-controller-manager.js',
      'package/dist/kubefed-admission-webhook.js',
      'package/dist/kubefed-agent.js',
      'package/config/crds/core.kubefed.io_kubefedclusters.yaml',
      'package/config/crds/members/multicluster.x-k8s.io_serviceexports.yaml',
      'package/config/samples/local-up.yaml',
      'package/hack/install-k8s-binaries.sh',
    ])
      assert.ok(entries.includes(needed), `${needed} is in the package`);
    const manifest = JSON.parse(
      readFileSync(join(prefix, 'lib/node_modules/kubefed-ts/package.json'), 'utf8'),
    ) as { engines: { node: string }; bin: Record<string, string> };
    assert.equal(manifest.engines.node, `>=${MIN_NODE}`);
    assert.deepEqual(Object.keys(manifest.bin).sort(), [
      'kubectl-kubefed',
      'kubefed-admission-webhook',
      'kubefed-agent',
      'kubefed-controller-manager',
      'kubefedctl',
    ]);
  });

  test('kubefedctl and kubectl-kubefed run from an empty directory, and kubectl finds the plugin', async () => {
    const v = ok(await run('kubefedctl', ['version'], { cwd: work, env }), 'kubefedctl version');
    assert.match(
      v.stdout,
      /^kubefedctl version: v\d+\.\d+\.\d+ \(kubefed-ts, KubeFed v0\.10 compatible\)\n$/,
    );
    const plugin = ok(await run('kubectl-kubefed', ['version'], { cwd: work, env }), 'kubectl-kubefed');
    assert.equal(plugin.stdout, v.stdout);
    const help = ok(await run('kubectl-kubefed', ['--help'], { cwd: work, env }), 'kubectl-kubefed --help');
    assert.match(help.stdout, /^Usage: kubectl kubefed \[options\] \[command\]/);
    // kubectl runs kubectl-kubefed from PATH for `kubectl kubefed`.
    const viaKubectl = ok(
      await run(binary('kubectl'), ['kubefed', 'version', '--v=2'], { cwd: work, env }),
      'kubectl kubefed version',
    );
    assert.equal(viaKubectl.stdout, v.stdout);
  });

  test('join and enable with kubectl-style and klog flags against a real host and member', async () => {
    ok(
      await run(
        'kubefedctl',
        ['--v=4', '--logtostderr', 'join', 'cluster1', '--cluster-context=cluster1', ...kc(), '-v', '2'],
        { cwd: work, env },
      ),
      'kubefedctl join',
    );
    const cluster = await host.get(KubeFedClusterType, 'cluster1', NS);
    assert.equal(cluster.metadata.name, 'cluster1');
    for (const type of ['namespaces', 'configmaps'])
      ok(
        await run('kubectl-kubefed', ['enable', type, ...kc(), '--alsologtostderr=true', '--log_dir', work], {
          cwd: work,
          env,
        }),
        `kubectl-kubefed enable ${type}`,
      );
    for (const crd of ['federatednamespaces.types.kubefed.io', 'federatedconfigmaps.types.kubefed.io'])
      assert.equal((await host.get(CoreTypes.crds, crd)).metadata.name, crd);
    // A klog value the way klog refuses it: one line, exit 1, nothing done.
    const bad = await run('kubefedctl', ['join', 'cluster2', ...kc(), '--v=high'], { cwd: work, env });
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'Error: invalid argument "high" for "-v, --v" flag: not a 32-bit integer\n');
    assert.equal(await getOrUndefined(host, KubeFedClusterType, 'cluster2', NS), undefined);
  });

  test("the installed controller manager and webhook run with only the package's files", async () => {
    const cm = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      logFile: join(fed.dir, 'installed-controller-manager.log'),
      command: installed('kubefed-controller-manager'),
      cwd: work,
      env,
    });
    started.push(cm.process);
    await waitForCluster(host, 'cluster1', 'Ready', (c) =>
      (c.status?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True'),
    );
    await createFederatedNamespace(host, 'demo', ['cluster1']);
    await host.create(T.fcm, federatedConfigMap('settings', 'demo', { mode: 'installed' }, ['cluster1']));
    const member = fed.cluster('cluster1').client();
    await eventually(
      'the ConfigMap propagated into cluster1',
      () => getOrUndefined(member, T.configmaps, 'settings', 'demo'),
      (cm) => (cm as { data?: Record<string, string> } | undefined)?.data?.mode === 'installed',
    );

    const webhook = await startAdmissionWebhook({
      dir: join(tmp, 'webhook'),
      logFile: join(fed.dir, 'installed-webhook.log'),
      command: installed('kubefed-admission-webhook'),
      cwd: work,
      env,
    });
    started.push(webhook.process);
    await registerAdmissionWebhooks(host, webhook);
    await assert.rejects(
      host.create(KubeFedClusterType, {
        apiVersion: 'core.kubefed.io/v1beta1',
        kind: 'KubeFedCluster',
        metadata: { name: 'bad', namespace: NS },
        spec: { apiEndpoint: '', secretRef: { name: 'bad' } },
      }),
      /spec\.apiEndpoint: Required value/,
    );
  });

  test(`the package runs on the oldest Node it supports (${MIN_NODE})`, async () => {
    const oldNode = nodeFromNpm('amd64', MIN_NODE);
    const script = join(prefix, 'lib/node_modules/kubefed-ts/dist/kubefedctl.js');
    const v = ok(
      await run(oldNode, [script, 'version'], { cwd: work, env }),
      `kubefedctl on Node ${MIN_NODE}`,
    );
    assert.match(v.stdout, /^kubefedctl version: /);
    const yaml = ok(
      await run(oldNode, [script, 'enable', 'secrets', '-o=yaml', ...kc()], { cwd: work, env }),
      `kubefedctl enable -o yaml on Node ${MIN_NODE}`,
    );
    assert.match(yaml.stdout, /name: federatedsecrets\.types\.kubefed\.io/);
  });

  test('the single executables: amd64 runs version, --help and a command; arm64 is an arm64 ELF with the blob', async () => {
    const amd64 = sea.amd64 ?? assert.fail('no amd64 executable');
    const arm64 = sea.arm64 ?? assert.fail('no arm64 executable');
    // No Node on PATH at all: the executable brings its own.
    const bare = { ...process.env, PATH: '/usr/bin:/bin' };
    const v = ok(await run(amd64, ['version'], { cwd: work, env: bare }), 'sea version');
    assert.match(v.stdout, /^kubefedctl version: v\d+\.\d+\.\d+ /);
    const help = ok(await run(amd64, ['--help'], { cwd: work, env: bare }), 'sea --help');
    assert.match(help.stdout, /^Usage: kubefedctl \[options\] \[command\]/);
    assert.match(help.stdout, /\n {2}join \[options\] <cluster-name>/);
    const yaml = ok(
      await run(amd64, ['enable', 'deployments.apps', '--output=yaml', ...kc()], { cwd: work, env: bare }),
      'sea enable -o yaml',
    );
    assert.match(yaml.stdout, /name: federateddeployments\.types\.kubefed\.io/);
    // Named as the kubectl plugin, it says so.
    const plugin = join(tmp, 'sea', 'kubectl-kubefed');
    if (!existsSync(plugin)) symlinkSync(amd64, plugin);
    assert.match(
      ok(await run(plugin, ['--help'], { cwd: work, env: bare }), 'sea plugin').stdout,
      /^Usage: kubectl kubefed/,
    );
    // local-up needs the package's files, which the executable does not carry: refused in one line.
    const up = await run(amd64, ['local-up', '--dir', join(tmp, 'up')], { cwd: work, env: bare });
    assert.equal(up.code, 1);
    assert.match(
      up.stderr,
      /^Error: local-up needs kubefed-ts's files \(.* is missing\): run it from the npm package/,
    );
    assert.equal(existsSync(join(tmp, 'up')), false);

    for (const [arch, file] of [
      ['amd64', amd64],
      ['arm64', arm64],
    ] as const) {
      const bytes = readFileSync(file);
      assert.equal(elfArch(bytes.subarray(0, 64)), arch, `${file} is a linux/${arch} ELF`);
      assert.ok(hasSeaBlob(bytes), `${file} carries the SEA blob`);
    }
    // The plain Node binary it was made from has no blob: the check can fail.
    assert.equal(hasSeaBlob(readFileSync(process.execPath)), false);
  });
});
