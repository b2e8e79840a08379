// `npm run bench:status-write`: what one Federated<Kind> status write costs the host apiserver, next to the
// create, as a full-object PUT of /status (what the sync controller sends) and as a JSON merge PATCH of
// /status carrying only the status and the resourceVersion precondition; each in a burst and at a client
// QPS limit. A bare host apiserver (no members, no controller), so the apiserver's CPU is the writes' own.
// Markdown on stdout, progress on stderr.
import { Command, Option } from 'commander';
import { CoreTypes, KubeClient, type KubeObject } from '../src/kube/client/index.ts';
import { startFederation } from '../src/testing/federation.ts';
import { sleep } from '../src/util/backoff.ts';
import { BenchUsageError, parseCount, parseList } from './args.ts';
import { applyFederatedCrds, pool } from './benchmark.ts';
import { CpuAccount, pidsWithArg, scrapeWritesByVerb } from './measure.ts';
import { parseMicroBenchCommand } from './micro-cli.ts';
import { renderStatusWriteTable, type WriteKind, type WriteRound } from './status-write-table.ts';
import { federatedObject, KINDS } from './workload.ts';

const cmd = new Command('bench:status-write')
  .description('Host apiserver CPU per Federated<Kind> create, status PUT and status merge PATCH')
  .addOption(new Option('--objects <n>', 'objects per round').default(1000).argParser(parseCount))
  .addOption(new Option('--type <id>', 'configmaps or deployments').default('configmaps'))
  .addOption(new Option('--concurrency <n>', 'requests in flight').default(32).argParser(parseCount))
  .addOption(
    new Option('--qps <list>', 'client QPS limits, 0 = none').default([0, 50], '0,50').argParser((v) => {
      try {
        return parseList(v).map(parseCount);
      } catch (e) {
        throw e instanceof BenchUsageError ? new BenchUsageError(`--qps: ${e.message}`) : e;
      }
    }),
  )
  .addOption(
    new Option('--rounds <n>', 'PUT and PATCH rounds each, alternating').default(2).argParser(parseCount),
  )
  .addOption(
    new Option('--settle <seconds>', "wait this long after the CRD, for the apiserver's own work on it")
      .default(20)
      .argParser(parseCount),
  );
const usage = parseMicroBenchCommand(cmd, process.argv);
const o = cmd.opts<{
  objects: number;
  type: string;
  concurrency: number;
  qps: number[];
  rounds: number;
  settle: number;
}>();
const rates = o.qps;
const kind = KINDS[o.type as keyof typeof KINDS];
if (!kind) usage(`--type must be one of ${Object.keys(KINDS).join(', ')}`);
if (rates.length === 0) usage('--qps needs at least one rate');
const log = (m: string) =>
  process.stderr.write(`[status-write ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

const WRITE_VERB: Record<WriteKind, string> = {
  create: 'POST',
  'status PUT': 'PUT',
  'status merge PATCH': 'PATCH',
};

/** A status as the sync controller writes it for 3 members; `round` moves its timestamps, so every write changes it. */
const statusAt = (round: number) => {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, round)).toISOString().replace('.000Z', 'Z');
  return {
    observedGeneration: 1,
    conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: at, lastUpdateTime: at }],
    clusters: ['cluster1', 'cluster2', 'cluster3'].map((name) => ({ name })),
  };
};

const fed = await startFederation({ members: [] });
const rounds: WriteRound[] = [];
try {
  const admin = fed.host.client();
  await applyFederatedCrds(admin, [kind]);
  const account = new CpuAccount({ host: pidsWithArg(`--secure-port=${fed.host.api.port}`) });
  // The CRD's OpenAPI publication and the apiserver's own start-up work must not be counted as writes.
  await sleep(o.settle * 1000);
  let round = 0;
  for (const qps of rates) {
    const client = new KubeClient(fed.host.api.restConfig, {
      name: 'status-write',
      qps,
      burst: qps > 0 ? qps : 1,
      connections: o.concurrency,
      timeoutMs: 60_000,
    });
    const ns = `status-write-${qps}`;
    await admin.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const live: KubeObject[] = [];
    const indexes = Array.from({ length: o.objects }, (_, i) => i);
    const measure = async (write: WriteKind, fn: (i: number) => Promise<void>) => {
      const before = await scrapeWritesByVerb(admin);
      const t0 = performance.now();
      const { cpu } = await account.during(() => pool(indexes, o.concurrency, fn));
      // The apiserver's own count, so that a table row is never built on writes that did not happen.
      const key = `${WRITE_VERB[write]} ${kind.fedType.group}/${kind.fedType.plural}${write === 'create' ? '' : '/status'}`;
      const counted = ((await scrapeWritesByVerb(admin)).get(key) ?? 0) - (before.get(key) ?? 0);
      if (counted !== o.objects)
        throw new Error(`${write}: the apiserver counted ${counted} × ${key}, not ${o.objects}`);
      const seconds = (performance.now() - t0) / 1000;
      const r = { write, qps, requests: o.objects, cpuSeconds: cpu['host'] ?? 0 };
      rounds.push(r);
      log(
        `${write} × ${o.objects} at ${qps || 'no'} QPS: ${seconds.toFixed(1)} s, ${r.cpuSeconds.toFixed(2)} CPU s`,
      );
    };
    await measure('create', async (i) => {
      live[i] = await client.create(
        kind.fedType,
        federatedObject(kind, ns, `o-${i}`, i, ['cluster1', 'cluster2', 'cluster3']),
      );
    });
    for (let k = 0; k < o.rounds; k++) {
      for (const write of ['status PUT', 'status merge PATCH'] as const) {
        const status = statusAt(++round);
        await measure(write, async (i) => {
          const obj = live[i] as KubeObject;
          live[i] =
            write === 'status PUT'
              ? await client.update(kind.fedType, { ...obj, status }, { subresource: 'status' })
              : await client.patch(
                  kind.fedType,
                  obj.metadata.name ?? '',
                  { metadata: { resourceVersion: obj.metadata.resourceVersion }, status },
                  { namespace: ns, subresource: 'status' },
                );
        });
      }
    }
    await client.close();
  }
} finally {
  await fed.stop();
}
process.stdout.write(
  `${kind.fedKind}, ${o.objects} objects per round, ${o.concurrency} in flight, ${o.rounds} PUT and PATCH rounds each:\n\n` +
    `${renderStatusWriteTable(rounds, rates)}\n`,
);
