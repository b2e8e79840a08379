// The container image without Docker: hack/image/build-app.sh (what the Dockerfile RUNs) assembles the
// application tree outside a container, and the tree is then run on the project's Node 24 with no dev
// dependency, no home directory and nothing of the repository, and must be left unchanged (the pods run with
// a read-only root filesystem).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { CoreTypes, type KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { freePort, waitFor } from '../../src/testing/ports.ts';
import { ManagedProcess } from '../../src/testing/process.ts';
import { NS, prepareHost } from './helpers.ts';

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(cmd, args, { ...opts, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Every path under a tree with its size and mtime. Tests run as root, for whom write bits mean nothing, so a
 * read-only root filesystem is checked by comparing the tree before and after the processes ran.
 */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    const st = lstatSync(join(root, rel));
    out.set(rel, st.isDirectory() ? 'dir' : `${st.size}@${st.mtimeMs}`);
    if (st.isDirectory()) for (const name of readdirSync(join(root, rel))) walk(join(rel, name));
  };
  walk('.');
  return out;
}

describe('the image application tree (hack/image/build-app.sh, run outside a container)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubefed-ts-image-'));
  const app = join(dir, 'app');
  // The pods' environment: the image's node (here the project's Node 24), HOME pointing nowhere writable.
  const podEnv: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: join(dir, 'no-home'),
    NODE_ENV: 'production',
  };
  // KubeFed's layout as the Dockerfile makes it: /hyperfed a symlink to the tree's hyperfed/, first on PATH.
  const hyperfed = join(dir, 'hyperfed');
  const hyperfedEnv: NodeJS.ProcessEnv = {
    ...podEnv,
    PATH: [hyperfed, dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter),
  };
  const processes: ManagedProcess[] = [];
  let fed: Federation | undefined;
  let built: RunResult;
  let pristine: Map<string, string> | undefined;

  before(async () => {
    // npm runs on Node 24, as in the image's build stage: put this Node first on PATH.
    const env = {
      ...process.env,
      PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}`,
    };
    built = await run('bash', [join(REPO_ROOT, 'hack/image/build-app.sh'), app], { env });
    if (built.code === 0) pristine = snapshot(app);
    if (built.code === 0) symlinkSync(join(app, 'hyperfed'), hyperfed);
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await fed?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the script builds the tree with production dependencies only', () => {
    assert.equal(built.code, 0, `build-app.sh failed:\n${built.stderr}`);
    for (const p of [
      'package.json',
      'package-lock.json',
      'src/cmd/controller-manager.ts',
      'src/cmd/webhook.ts',
      'src/cmd/agent.ts',
    ]) {
      assert.ok(existsSync(join(app, p)), `${p} is missing`);
    }
    assert.ok(existsSync(join(app, 'config/crds/core.kubefed.io_kubefedclusters.yaml')));
    // KubeFed's binary names (images/kubefed/Dockerfile), executable.
    for (const name of ['controller-manager', 'webhook', 'kubefedctl', 'agent'])
      accessSync(join(app, 'hyperfed', name), constants.X_OK);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const dep of Object.keys(pkg.dependencies)) {
      assert.ok(existsSync(join(app, 'node_modules', dep, 'package.json')), `dependency ${dep} missing`);
    }
    // @types/node may come in as some runtime dependency's own dependency; the other dev dependencies may not.
    for (const dev of Object.keys(pkg.devDependencies).filter((d) => d !== '@types/node')) {
      assert.ok(!existsSync(join(app, 'node_modules', dev)), `dev dependency ${dev} in the image tree`);
    }
    assert.ok(!existsSync(join(app, 'node_modules/.bin/node')), 'no Node.js binary: the base image has it');
    assert.ok(!existsSync(join(app, 'test')) && !existsSync(join(app, 'charts')));
  });

  test('the Dockerfile runs this script and matches the chart (paths, user)', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    assert.match(dockerfile, /^RUN .*bash hack\/image\/build-app\.sh \/app$/m);
    assert.match(dockerfile, /^FROM \$\{NODE_IMAGE\}$/m);
    assert.match(dockerfile, /^ARG NODE_IMAGE=node:24-[a-z-]*slim$/m);
    assert.match(dockerfile, /^USER 65532:65532$/m);
    assert.match(dockerfile, /^COPY --from=build \/app \/app$/m);
    // KubeFed's chart runs /hyperfed/controller-manager; its e2e framework execs `controller-manager`.
    assert.match(dockerfile, /^RUN ln -s \/app\/hyperfed \/hyperfed$/m);
    assert.match(dockerfile, /^ {4}PATH=\/hyperfed:\$PATH$/m);
    const values = parseYaml(readFileSync(join(REPO_ROOT, 'charts/kubefed-ts/values.yaml'), 'utf8')) as {
      controllermanager: { controller: { tag: string } };
    };
    const chart = parseYaml(readFileSync(join(REPO_ROOT, 'charts/kubefed-ts/Chart.yaml'), 'utf8')) as {
      appVersion: string;
    };
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(chart.appVersion, pkg.version);
    assert.equal(values.controllermanager.controller.tag, pkg.version);
    assert.match(
      readFileSync(join(REPO_ROOT, 'charts/kubefed-ts/templates/_helpers.tpl'), 'utf8'),
      /runAsUser: 65532/,
    );
    const ignore = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const copied of ['!src', '!config', '!package.json', '!package-lock.json', '!hack/image']) {
      assert.ok(ignore.includes(copied), `.dockerignore lets ${copied.slice(1)} in`);
    }
  });

  test('every entry point starts from the tree: --version', async () => {
    assert.equal(built.code, 0);
    for (const [entry, args] of [
      ['src/cmd/controller-manager.ts', ['--version']],
      ['src/cmd/webhook.ts', ['--version']],
      ['src/cmd/agent.ts', ['--version']],
      ['src/cli/kubefedctl.ts', ['version']],
    ] as const) {
      const r = await run(process.execPath, [join(app, entry), ...args], { cwd: app, env: podEnv });
      assert.equal(r.code, 0, `${entry} ${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /v0\.1\.0/, entry);
      assert.equal(r.stderr, '', `${entry} printed to stderr`);
    }
    // The same under KubeFed's names, through the /hyperfed symlink and by PATH lookup.
    for (const [name, args] of [
      ['controller-manager', ['--version']],
      ['webhook', ['--version']],
      ['agent', ['--version']],
      ['kubefedctl', ['version']],
    ] as const) {
      for (const cmd of [join(hyperfed, name), name]) {
        const r = await run(cmd, [...args], { cwd: dir, env: hyperfedEnv });
        assert.equal(r.code, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stdout, /v0\.1\.0/, cmd);
      }
    }
  });

  test('the webhook serves /readyz over HTTPS from the tree', async () => {
    assert.equal(built.code, 0);
    const certDir = join(dir, 'serving-cert');
    mkdirSync(certDir);
    const port = await freePort();
    const proc = ManagedProcess.start(
      'image-webhook',
      process.execPath,
      [
        join(app, 'src/cmd/webhook.ts'),
        `--secure-port=${port}`,
        `--cert-dir=${certDir}`,
        '--bind-address=127.0.0.1',
        '--generate-self-signed-certs',
      ],
      { logFile: join(dir, 'webhook.log'), env: podEnv, cwd: app },
    );
    processes.push(proc);
    let status = 0;
    await waitFor(
      'the webhook to answer /readyz',
      async () => {
        if (!proc.running) throw new Error(`webhook exited:\n${proc.tail()}`);
        if (!existsSync(join(certDir, 'ca.crt'))) return false;
        status = await new Promise<number>((resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: '/readyz',
              ca: readFileSync(join(certDir, 'ca.crt')),
              timeout: 2000,
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end();
        });
        return status === 200;
      },
      { timeoutMs: 60_000, describe: () => `status ${status}\n${proc.tail()}` },
    );
    await proc.stop();
  });

  test('the controller manager from the tree serves /healthz and leads on a real apiserver', async () => {
    assert.equal(built.code, 0);
    fed = await startFederation({ members: [] });
    const host: KubeClient = fed.host.client();
    await prepareHost(host);
    const [hp, mp] = [await freePort(), await freePort()];
    // As KubeFed's e2e framework starts it (test/e2e/framework/controller.go: exec.Command("controller-manager")).
    const proc = ManagedProcess.start(
      'image-controller-manager',
      'controller-manager',
      [
        `--kubeconfig=${fed.kubeconfigPath}`,
        '--context=host',
        `--kubefed-namespace=${NS}`,
        `--healthz-addr=127.0.0.1:${hp}`,
        `--metrics-addr=127.0.0.1:${mp}`,
      ],
      { logFile: join(dir, 'controller-manager.log'), env: hyperfedEnv, cwd: app },
    );
    processes.push(proc);
    await waitFor(
      'the controller manager to serve /healthz',
      async () => {
        if (!proc.running) throw new Error(`controller manager exited:\n${proc.tail()}`);
        return (await fetch(`http://127.0.0.1:${hp}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
      },
      { timeoutMs: 60_000, describe: () => proc.tail() },
    );
    let lease: (KubeObject & { spec?: { holderIdentity?: string } }) | undefined;
    await waitFor(
      'the controller manager to take the Lease',
      async () => {
        lease = await host.get(CoreTypes.leases, 'kubefed-controller-manager', NS);
        return Boolean(lease.spec?.holderIdentity);
      },
      { timeoutMs: 60_000, describe: () => proc.tail() },
    );
    const metrics = await fetch(`http://127.0.0.1:${mp}/metrics`, { signal: AbortSignal.timeout(5000) });
    assert.equal(metrics.status, 200);
    // The lines KubeFed's e2e (test/e2e/defaulting.go) and scripts wait for, as plain substrings.
    const log = () => readFileSync(join(dir, 'controller-manager.log'), 'utf8');
    await waitFor(
      "KubeFed's start-up lines",
      async () =>
        log().includes(`Using valid KubeFedConfig "${NS}/kubefed"`) &&
        log().includes('Starting cluster controller'),
      { timeoutMs: 10_000, describe: () => log().slice(0, 2000) },
    );
    await proc.stop();
    assert.ok(!proc.running);
  });

  test('nothing was written into the tree or a home directory (read-only root filesystem)', () => {
    assert.equal(built.code, 0);
    assert.ok(pristine);
    const now = snapshot(app);
    const changed = [...new Set([...pristine.keys(), ...now.keys()])].filter(
      (k) => pristine?.get(k) !== now.get(k),
    );
    assert.deepEqual(changed, []);
    assert.ok(!existsSync(podEnv['HOME'] ?? ''), 'something created HOME');
  });
});
