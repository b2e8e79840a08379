import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KubeFedConfigType } from '../../src/api/core/v1beta1/index.ts';
import { CoreTypes, type KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';
import { FAST_CONFIG, NS, prepareHost } from './helpers.ts';

interface Lease extends KubeObject {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number };
}

const LEASE = 'kubefed-controller-manager';

async function holder(host: KubeClient): Promise<string | undefined> {
  try {
    return (await host.get<Lease>(CoreTypes.leases, LEASE, NS)).spec?.holderIdentity || undefined;
  } catch {
    return undefined;
  }
}

async function metric(url: string, name: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .join('\n');
}

describe('kubefed-controller-manager process', () => {
  let fed: Federation;
  let host: KubeClient;
  const started: ControllerManagerProcess[] = [];
  const start = async (name: string, waitReady = true) => {
    const p = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      name,
      logFile: join(fed.dir, `${name}.log`),
      waitReady,
    });
    started.push(p);
    return p;
  };

  before(async () => {
    fed = await startFederation({ members: [] });
    host = fed.host.client();
  });
  after(async () => {
    await Promise.all(started.map((p) => p.process.stop()));
    await fed?.stop();
  });

  test('an invalid KubeFedConfig is a clear fatal error at start, not a crash loop with a stack trace', async () => {
    await prepareHost(host, {
      ...FAST_CONFIG,
      clusterHealthCheck: { ...FAST_CONFIG.clusterHealthCheck, period: '0s' },
    });
    const p = await start('invalid', false);
    const code = await p.process.exited;
    assert.equal(code, 1);
    const log = p.process.tail(50);
    assert.match(
      log,
      /Error: KubeFedConfig kube-federation-system\/kubefed is invalid: spec\.clusterHealthCheck\.period/,
    );
    assert.doesNotMatch(log, /\n\s+at /, 'no stack trace');
    await host.delete(KubeFedConfigType, 'kubefed', {
      namespace: NS,
    });
  });

  test('a missing KubeFedConfig is created with KubeFed defaults', async () => {
    const p = await start('defaults');
    const cfg = await host.get<KubeObject & { spec: Record<string, Record<string, unknown>> }>(
      KubeFedConfigType,
      'kubefed',
      NS,
    );
    assert.equal(cfg.spec.scope as unknown as string, 'Cluster');
    assert.deepEqual(cfg.spec.clusterHealthCheck, {
      period: '10s',
      failureThreshold: 3,
      successThreshold: 1,
      timeout: '3s',
    });
    assert.equal((await fetch(`${p.healthUrl}/healthz`)).status, 200);
    await p.process.stop();
    assert.equal(p.process.child.exitCode, 0, 'SIGTERM is a graceful, successful shutdown');
    // It released the lease on the way out, so a successor need not wait for it to expire.
    assert.equal(await holder(host), undefined);
    // Switch to fast lease timings for the takeover test.
    await host.patch(
      KubeFedConfigType,
      'kubefed',
      { spec: { leaderElect: FAST_CONFIG.leaderElect } },
      { namespace: NS, patchType: 'merge' },
    );
  });

  test('two processes: only one leads; kill it and the other takes over within the lease duration', async () => {
    const a = await start('candidate-a');
    const b = await start('candidate-b');
    await waitFor('a leader', async () => (await holder(host)) !== undefined, { timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 2500)); // a few retry periods: nobody else may grab it
    const [ma, mb] = await Promise.all([
      metric(a.metricsUrl, 'leader_election_master_status'),
      metric(b.metricsUrl, 'leader_election_master_status'),
    ]);
    const leaders = [ma, mb].filter((m) => / 1$/m.test(m));
    assert.equal(leaders.length, 1, `exactly one leader:\n${ma}\n${mb}`);
    const leader = / 1$/m.test(ma) ? a : b;
    const standby = leader === a ? b : a;
    const leaderIdentity = await holder(host);

    leader.process.killNow(); // a crash: no chance to release the lease
    const killedAt = Date.now();
    await waitFor(
      'the standby to take over',
      async () => {
        const h = await holder(host);
        return h !== undefined && h !== leaderIdentity;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    const tookMs = Date.now() - killedAt;
    assert.match(await metric(standby.metricsUrl, 'leader_election_master_status'), / 1$/m);
    assert.ok(standby.process.running);
    // Lease duration 4 s, plus one retry period (1 s) and jitter; not a speed assertion, a correctness bound.
    assert.ok(tookMs < 4000 + 3000, `took over after ${tookMs} ms`);
  });
});
