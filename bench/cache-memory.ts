// `npm run bench:cache-memory`: the controller's heap per cached object, with the objects as the apiserver
// serves them and without metadata.managedFields (what the member caches and the sync controllers' caches
// keep since issue 18). One bare apiserver; the objects are written as kubefed-ts writes them (its field
// manager, its label and annotation), an informer of each variant loads them in turn, and the heap is read
// after a full garbage collection before and after. Markdown on stdout, progress on stderr.
import { Command, Option } from 'commander';
import { COMPONENT } from '../src/controller-manager/main.ts';
import { FEDERATED_SOURCE, stampOwner, stampRendering } from '../src/engine/ownership.ts';
import { CoreTypes, KubeClient, type KubeObject, type ResourceType } from '../src/kube/client/index.ts';
import { Informer, type Transform, withoutManagedFields } from '../src/runtime/informer/index.ts';
import { startFederation } from '../src/testing/federation.ts';
import { parseCount } from './args.ts';
import { applyFederatedCrds, pool } from './benchmark.ts';
import { type CacheRound, type CacheVariant, renderCacheMemoryTable } from './cache-memory-table.ts';
import { parseMicroBenchCommand } from './micro-cli.ts';
import { type BenchKind, federatedObject, KINDS, plainObject } from './workload.ts';

const cmd = new Command('bench:cache-memory')
  .description('Controller heap per cached object, as served and without managedFields')
  .addOption(new Option('--objects <n>', 'objects of each kind').default(3000).argParser(parseCount))
  .addOption(
    new Option('--rounds <n>', 'loads of each variant, alternating').default(3).argParser(parseCount),
  );
const usage = parseMicroBenchCommand(cmd, process.argv);
const o = cmd.opts<{ objects: number; rounds: number }>();
const gc =
  (globalThis as { gc?: () => void }).gc ??
  usage('run it with node --expose-gc (npm run bench:cache-memory does)');
const log = (m: string) =>
  process.stderr.write(`[cache-memory ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

/** The heap in use after full collections: what is still reachable. */
function liveHeap(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** One set of objects to cache: its type, namespace and how its objects are written. */
interface CachedSet {
  label: string;
  type: ResourceType;
  namespace: string;
  write(client: KubeClient, i: number): Promise<void>;
}

/** A member copy as the engine writes it for a Work front end: the managed label and the rendering's hash. */
function memberCopy(kind: BenchKind, namespace: string, i: number): KubeObject {
  const obj = plainObject(kind, namespace, `o-${i}`, i);
  stampOwner(obj, {
    source: FEDERATED_SOURCE,
    kind: kind.fedKind,
    namespace,
    name: `o-${i}`,
    uid: `uid-${i}`,
  });
  stampRendering(obj, 'c0ffee'.repeat(10).slice(0, 64));
  return obj;
}

/** A status as a member's Deployment controller writes it, under its own field manager. */
const deploymentStatus = {
  observedGeneration: 1,
  replicas: 1,
  updatedReplicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
  conditions: [
    {
      type: 'Available',
      status: 'True',
      reason: 'MinimumReplicasAvailable',
      message: 'Deployment has minimum availability.',
      lastUpdateTime: '2026-01-01T00:00:00Z',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    },
  ],
};

/** A Federated<Kind> status as the sync controller writes it for 3 members. */
const federatedStatus = {
  observedGeneration: 1,
  conditions: [
    {
      type: 'Propagation',
      status: 'True',
      lastTransitionTime: '2026-01-01T00:00:00Z',
      lastUpdateTime: '2026-01-01T00:00:00Z',
    },
  ],
  clusters: ['cluster1', 'cluster2', 'cluster3'].map((name) => ({ name })),
};

const fed = await startFederation({ members: [] });
const rounds: CacheRound[] = [];
try {
  const admin = fed.host.client();
  const configMaps = KINDS.configmaps;
  await applyFederatedCrds(admin, [configMaps]);
  const open = (userAgent: string) =>
    new KubeClient(fed.host.api.restConfig, { name: 'cache-memory', userAgent, qps: 0, connections: 32 });
  const controller = open(COMPONENT);
  const memberController = open('kube-controller-manager');
  const user = open('kubectl-create');
  try {
    const sets: CachedSet[] = [
      {
        label: 'ConfigMap (member copy)',
        type: configMaps.target,
        namespace: 'copies-configmaps',
        write: async (c, i) => {
          await c.create(configMaps.target, memberCopy(configMaps, 'copies-configmaps', i));
        },
      },
      {
        label: "Deployment (member copy, status written by the member's controller)",
        type: KINDS.deployments.target,
        namespace: 'copies-deployments',
        write: async (c, i) => {
          const t = KINDS.deployments.target;
          const created = await c.create(t, memberCopy(KINDS.deployments, 'copies-deployments', i));
          await memberController.update(
            t,
            { ...created, status: deploymentStatus },
            { subresource: 'status' },
          );
        },
      },
      {
        label: 'FederatedConfigMap (host, status written by kubefed-ts)',
        type: configMaps.fedType,
        namespace: 'federated',
        write: async (_c, i) => {
          const t = configMaps.fedType;
          const obj = federatedObject(configMaps, 'federated', `o-${i}`, i, [
            'cluster1',
            'cluster2',
            'cluster3',
          ]);
          const created = await user.create(t, obj);
          await controller.update(t, { ...created, status: federatedStatus }, { subresource: 'status' });
        },
      },
    ];
    const variants: Array<[CacheVariant, Transform | undefined]> = [
      ['as served', undefined],
      ['without managedFields', withoutManagedFields],
    ];
    for (const set of sets) {
      await admin.create(CoreTypes.namespaces, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: set.namespace },
      });
      log(`${set.label}: writing ${o.objects}`);
      await pool(
        Array.from({ length: o.objects }, (_, i) => i),
        32,
        (i) => set.write(controller, i),
      );
      for (let r = 0; r < o.rounds; r++) {
        // Alternate which variant loads first, so that neither always meets the heap the other left.
        const order = r % 2 === 0 ? variants : [...variants].reverse();
        for (const [variant, transform] of order) {
          const before = liveHeap();
          const informer = new Informer<KubeObject>({
            client: controller,
            type: set.type,
            namespace: set.namespace,
            transform,
          });
          let heapBytes: number;
          let cached: KubeObject[];
          try {
            informer.start();
            await informer.waitForSync();
            heapBytes = liveHeap() - before;
            cached = informer.store.list();
          } finally {
            await informer.stop();
          }
          if (cached.length !== o.objects)
            throw new Error(`${set.label}: the informer holds ${cached.length} objects, not ${o.objects}`);
          const stripped = cached.filter((c) => c.metadata.managedFields === undefined).length;
          if (stripped !== (transform ? o.objects : 0))
            throw new Error(
              `${set.label}, ${variant}: ${stripped} of ${o.objects} cached without managedFields`,
            );
          rounds.push({ objects: set.label, variant, count: cached.length, heapBytes });
          log(`${set.label}, ${variant}: ${(heapBytes / cached.length).toFixed(0)} bytes per object`);
        }
      }
    }
  } finally {
    await Promise.all([controller.close(), memberController.close(), user.close()]);
  }
} finally {
  await fed.stop();
}
process.stdout.write(
  `Node ${process.version}; ${o.objects} objects of each kind, ${o.rounds} loads of each variant, alternating ` +
    '(the median counts):\n\n' +
    `${renderCacheMemoryTable(rounds)}\n`,
);
