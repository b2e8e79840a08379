import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KubeFedClusterType } from '../../src/api/core/v1beta1/index.ts';
import { installControlPlane } from '../../src/install/control-plane.ts';
import type { KubeClient, KubeObject } from '../../src/kube/client/index.ts';
import { renderKubeconfig, writeKubeconfigFile } from '../../src/kube/kubeconfig/index.ts';
import { DEFAULT_FAILURE_LIMIT } from '../../src/runtime/failure-log.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation, type TestCluster } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';
import { generateWebhookCertificates } from '../../src/webhook/certs.ts';
import {
  createFederatedNamespace,
  eventually,
  federatedConfigMap,
  getOrUndefined,
  T,
} from './federation-helpers.ts';
import { type ClusterObject, condition, kubefedctl, NS, prepareHost, waitForCluster } from './helpers.ts';

const PREFIX = '/k8s/clusters/c-m-proxied';
const NSX = 'proxied';

/**
 * A path-prefix reverse proxy like Rancher's: it serves one member at https://127.0.0.1:<port>/k8s/clusters/<id>,
 * strips the prefix and forwards to the member's apiserver, streaming both ways (watches). A request without
 * the prefix is answered 404 and remembered.
 */
class PathPrefixProxy {
  readonly seen: string[] = [];
  readonly unprefixed: string[] = [];
  readonly caData: Buffer;
  readonly #server: Server;
  readonly #agent: Agent;
  #port = 0;

  constructor(upstream: TestCluster) {
    const certs = generateWebhookCertificates({ ipAddresses: ['127.0.0.1'] });
    this.caData = Buffer.from(certs.caCert);
    const target = new URL(upstream.server);
    this.#agent = new Agent({ keepAlive: true, ca: upstream.api.caData });
    this.#server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
      const url = req.url ?? '';
      this.seen.push(`${req.method} ${url}`);
      if (url !== PREFIX && !url.startsWith(`${PREFIX}/`) && !url.startsWith(`${PREFIX}?`)) {
        this.unprefixed.push(`${req.method} ${url}`);
        res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
        return;
      }
      const headers = { ...req.headers, host: target.host };
      const up = httpsRequest(
        {
          agent: this.#agent,
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: url.slice(PREFIX.length) || '/',
          headers,
        },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', (e) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`${e.message}\n`);
        else res.destroy();
      });
      // The client went away (a watch closed): stop the upstream request too.
      res.on('close', () => up.destroy());
      req.pipe(up);
    });
  }

  get server(): string {
    return `https://127.0.0.1:${this.#port}${PREFIX}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
    this.#agent.destroy();
  }
}

type LogLine = {
  level: string;
  msg: string;
  cluster?: string;
  failure?: string;
  suppressed?: number;
  err?: unknown;
};
function logLines(file: string): LogLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

describe('a member behind a path-prefix proxy (apiEndpoint https://host/k8s/clusters/<id>), and failure logs', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let proxy: PathPrefixProxy;

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2'] });
    proxy = new PathPrefixProxy(fed.cluster('cluster2'));
    await proxy.start();
    host = fed.host.client();
    await prepareHost(host);
    await installControlPlane(host, NS, { defaultTypes: true });
    // Debug too, so that the failure lines the rate limit leaves out can be counted.
    cm = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      logFile: join(fed.dir, 'kubefed-controller-manager.log'),
      args: ['--v=1'],
    });
  });
  after(async () => {
    await cm?.process.stop();
    await proxy?.stop();
    await fed?.stop();
  });

  test('join through the proxy records the server with its path; the member becomes Ready', async () => {
    // The kubeconfig a Rancher user has: the member only at the proxy's URL, with the proxy's CA.
    const kubeconfig = join(fed.dir, 'proxied.kubeconfig');
    const entry = (c: TestCluster) => ({
      name: c.name,
      server: c.server,
      caData: c.api.caData,
      token: c.api.adminToken,
    });
    await writeKubeconfigFile(
      kubeconfig,
      renderKubeconfig(
        [
          entry(fed.host),
          entry(fed.cluster('cluster1')),
          {
            name: 'rancher-cluster2',
            server: `${proxy.server}/`,
            caData: proxy.caData,
            token: fed.cluster('cluster2').api.adminToken,
          },
        ],
        'host',
      ),
    );
    const direct = await kubefedctl([
      'join',
      'cluster1',
      '--kubeconfig',
      kubeconfig,
      '--host-cluster-context',
      'host',
    ]);
    assert.equal(direct.code, 0, direct.stderr);
    const r = await kubefedctl([
      'join',
      'cluster2',
      '--cluster-context',
      'rancher-cluster2',
      '--kubeconfig',
      kubeconfig,
      '--host-cluster-context',
      'host',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const kfc = await host.get<ClusterObject>(KubeFedClusterType, 'cluster2', NS);
    assert.equal(kfc.spec.apiEndpoint, proxy.server, 'the path is kept (the trailing slash cleaned)');
    assert.equal(Buffer.from(kfc.spec.caBundle ?? '', 'base64').toString(), proxy.caData.toString());

    const ready = await waitForCluster(
      host,
      'cluster2',
      'Ready',
      (c) => condition(c, 'Ready')?.status === 'True',
    );
    assert.equal(ready.status?.kubernetesVersion, 'v1.36.3', '/version read through the proxy');
    await waitForCluster(host, 'cluster1', 'Ready', (c) => condition(c, 'Ready')?.status === 'True');
  });

  test('objects propagate through the proxy, and drift seen by the watch through it is reverted', async () => {
    await createFederatedNamespace(host, NSX);
    await host.create(T.fcm, federatedConfigMap('settings', NSX, { mode: 'proxied' }));
    const member = fed.cluster('cluster2').client();
    const copy = await eventually(
      'the ConfigMap in cluster2 (behind the proxy)',
      () =>
        getOrUndefined<KubeObject & { data?: Record<string, string> }>(member, T.configmaps, 'settings', NSX),
      (c) => c?.data?.mode === 'proxied',
    );
    assert.equal(copy?.metadata.labels?.['kubefed.io/managed'], 'true');
    await eventually(
      'the ConfigMap in cluster1 (direct)',
      () => getOrUndefined(fed.cluster('cluster1').client(), T.configmaps, 'settings', NSX),
      (c) => c !== undefined,
    );
    // A change made in the member reaches the controller only through the member watch, streamed by the proxy.
    await member.patch(T.configmaps, 'settings', { data: { mode: 'drifted' } }, { namespace: NSX });
    await eventually(
      'the drift reverted in cluster2',
      () =>
        getOrUndefined<KubeObject & { data?: Record<string, string> }>(member, T.configmaps, 'settings', NSX),
      (c) => c?.data?.mode === 'proxied',
    );

    assert.deepEqual(proxy.unprefixed, [], 'every request carried the path prefix');
    const paths = proxy.seen.map((s) => s.slice(s.indexOf(' ') + 1).slice(PREFIX.length));
    for (const [what, re] of [
      ['health probe', /^\/healthz$/],
      ['version', /^\/version$/],
      ['discovery or a list', /^\/api(s)?\b/],
      ['a watch of ConfigMaps', /^\/api\/v1\/configmaps\?.*watch=true/],
      ['the create', /^\/api\/v1\/namespaces\/proxied\/configmaps(\?|$)/],
    ] as const) {
      assert.ok(
        paths.some((p) => re.test(p)),
        `${what} went through the proxy: ${paths.slice(0, 30).join(', ')}`,
      );
    }
    assert.ok(
      proxy.seen.some((s) => s.startsWith('POST ')),
      'writes too',
    );
  });

  test('a killed member: rate-limited warnings naming it, without stack traces', async () => {
    const c1 = fed.cluster('cluster1');
    const logFile = cm.logFile;
    const before = logLines(logFile).length;
    // Killed, as a crash: every open connection (the member watches) breaks at once.
    c1.api.kill();
    await waitFor('cluster1 apiserver to exit', async () => !c1.api.running);
    try {
      await waitForCluster(host, 'cluster1', 'Offline', (c) => condition(c, 'Offline')?.status === 'True');
      // Work for the stopped member while it is down, and a few more health rounds.
      for (let i = 0; i < 5; i++) {
        await host.create(T.fcm, federatedConfigMap(`during-outage-${i}`, NSX, { i: String(i) }));
      }
      await eventually(
        'the objects created during the outage in cluster2',
        () => getOrUndefined(fed.cluster('cluster2').client(), T.configmaps, 'during-outage-4', NSX),
        (c) => c !== undefined,
      );
    } finally {
      await c1.startApiServer();
    }
    const lines = logLines(logFile).slice(before);
    const aboutC1 = lines.filter((l) => l.cluster === 'cluster1');
    const warnings = aboutC1.filter((l) => l.level === 'warn');
    assert.ok(
      warnings.some((l) => l.msg === 'cluster is not reachable'),
      `the health transition is a warning: ${JSON.stringify(aboutC1.slice(0, 5))}`,
    );
    assert.ok(
      warnings.some((l) => l.failure === 'unreachable' && l.msg !== 'cluster is not reachable'),
      `the failing requests too: ${JSON.stringify(aboutC1.map((l) => [l.level, l.msg, l.failure]))}`,
    );
    for (const l of aboutC1) {
      assert.notEqual(l.level, 'error', `an expected failure is no error: ${JSON.stringify(l)}`);
      assert.doesNotMatch(JSON.stringify(l), /"stack"|\\n\s+at /, 'no stack trace');
      if (l.level === 'warn') assert.equal(typeof l.err, 'string', JSON.stringify(l));
    }
    // The budget: the whole outage fits in one window, so at most `burst` lines per kind of failure.
    const perKind = new Map<string, number>();
    for (const l of warnings) {
      if (l.msg === 'cluster is not reachable' || l.msg === 'cluster configuration is malformed') continue;
      perKind.set(l.failure ?? '', (perKind.get(l.failure ?? '') ?? 0) + 1);
    }
    for (const [kind, n] of perKind) {
      assert.ok(n <= DEFAULT_FAILURE_LIMIT.burst, `${n} warnings of kind ${kind} for cluster1`);
    }
    // And the limit did hold something back: the informers of every type failed at least once each.
    const heldBack = aboutC1.filter((l) => l.level === 'debug' && l.failure === 'unreachable');
    assert.ok(heldBack.length > 0, 'failures beyond the budget are logged at debug only');
    // The member behind the proxy was never named in a failure.
    assert.deepEqual(
      lines.filter((l) => l.cluster === 'cluster2' && (l.level === 'warn' || l.level === 'error')),
      [],
    );

    await waitForCluster(host, 'cluster1', 'Ready again', (c) => condition(c, 'Ready')?.status === 'True');
    await eventually(
      'the objects created during the outage in cluster1 once it is back',
      () => getOrUndefined(c1.client(), T.configmaps, 'during-outage-4', NSX),
      (c) => c !== undefined,
      60_000,
    );
  });
});
