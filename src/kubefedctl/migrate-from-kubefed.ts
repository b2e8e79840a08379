// kubefedctl migrate-from-kubefed: the automatable part of switching a running KubeFed v0.10 control plane
// to kubefed-ts in place (docs/migrating-from-kubefed.md). It makes sure KubeFed's controller manager is not
// running, then replaces KubeFed's CRDs with kubefed-ts's, keeping every stored object. It writes nothing
// else: federated objects, FTCs, KubeFedClusters, Secrets, PropagatedVersions and member copies stay as
// they are, and kubefed-ts takes them over when its controller manager starts.
import { FederatedTypeConfigType } from '../api/core/v1beta1/index.ts';
import { judgeKubeFedLock, kubefedRunningMessage } from '../controller-manager/kubefed-lock.ts';
import { firstLiveLock, readKubeFedLocks } from '../controller-manager/kubefed-lock-check.ts';
import type { FederatedTypeConfigObject } from '../federation-types/index.ts';
import { loadCrds } from '../install/control-plane.ts';
import {
  CoreTypes,
  errorMessage,
  groupQualifiedName,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../kube/client/index.ts';
import { sleep } from '../util/backoff.ts';
import { type CrdLike, type CrdTakeoverStep, planCrdTakeover, replacementCrd } from './crd-takeover.ts';
import { generateEnableResources } from './enable.ts';
import { CommandError } from './errors.ts';

export interface MigrateOptions {
  host: KubeClient;
  namespace: string;
  dryRun: boolean;
  out: (line: string) => void;
  warn: (line: string) => void;
  /** Poll interval while waiting for a stopped KubeFed's lease to run out. */
  pollMs?: number;
  /** Upper bound on that wait beyond the lease duration (clock skew). */
  graceMs?: number;
}

export interface MigrateResult {
  steps: CrdTakeoverStep[];
}

/**
 * Waits until no KubeFed lock is live. A lock renewed while we watch is a running KubeFed: refused at once.
 * A lock that stops being renewed is a stopped KubeFed whose lease has not run out yet (v0.10 never releases
 * it): waited for, at most its lease duration, as a client-go candidate would.
 */
async function waitUntilKubeFedStopped(o: MigrateOptions): Promise<void> {
  const first = await readKubeFedLocks(o.host, o.namespace);
  for (const u of first.unreadable)
    throw new CommandError(
      `cannot read KubeFed's leader lock (${u.kind} ${o.namespace}/kubefed-controller-manager), so cannot tell ` +
        `whether KubeFed is running: ${u.reason}`,
    );
  const seen = new Map(first.locks.map((l) => [l.kind, l.record]));
  let announced = false;
  const start = Date.now();
  for (let locks = first.locks; ; ) {
    let waitingFor: number | undefined;
    for (const lock of locks) {
      const verdict = judgeKubeFedLock(lock.record, Date.now(), seen.get(lock.kind));
      if (!verdict.live) continue;
      const leaseLeft = verdict.leaseMs - verdict.renewedAgoMs;
      if (
        verdict.why === 'renewed-since-last-look' ||
        Date.now() - start > verdict.leaseMs + (o.graceMs ?? 10_000)
      )
        throw new CommandError(kubefedRunningMessage(lock, verdict));
      if (!announced) {
        o.out(
          `KubeFed's leader lock ${lock.kind} ${o.namespace}/kubefed-controller-manager is held by ` +
            `"${lock.record?.holderIdentity}"; waiting up to ${Math.ceil(Math.max(leaseLeft, 0) / 1000)}s for it to ` +
            'expire (it is refused at once if KubeFed renews it)',
        );
        announced = true;
      }
      waitingFor = leaseLeft;
    }
    if (waitingFor === undefined) return;
    await sleep(o.pollMs ?? 1000);
    locks = (await readKubeFedLocks(o.host, o.namespace)).locks;
  }
}

/** kubefed-ts's CRDs: the core ones (config/crds) and, for each FTC in the namespace, its federated CRD. */
async function desiredCrds(o: MigrateOptions): Promise<CrdLike[]> {
  const crds = loadCrds() as unknown as CrdLike[];
  const { items: ftcs } = await o.host.listAll<FederatedTypeConfigObject>(FederatedTypeConfigType, {
    namespace: o.namespace,
  });
  for (const ftc of ftcs) {
    const t = ftc.spec.targetType;
    const name = groupQualifiedName(t.pluralName, t.group ?? '');
    try {
      const { crd } = await generateEnableResources(o.host, o.namespace, {
        name,
        targetVersion: t.version,
        federatedGroup: ftc.spec.federatedType.group ?? '',
        federatedVersion: ftc.spec.federatedType.version,
      });
      if (crd.spec.names.plural !== ftc.spec.federatedType.pluralName) {
        o.warn(
          `FederatedTypeConfig ${ftc.metadata.name}: its federated type ${ftc.spec.federatedType.pluralName} is not ` +
            `the one kubefed-ts generates (${crd.spec.names.plural}); its CRD is left as it is`,
        );
        continue;
      }
      crds.push(crd as unknown as CrdLike);
    } catch (e) {
      o.warn(
        `FederatedTypeConfig ${ftc.metadata.name}: cannot generate its federated CRD (${errorMessage(e)}); ` +
          'its CRD is left as it is',
      );
    }
  }
  return crds;
}

async function getCrd(host: KubeClient, name: string): Promise<(CrdLike & KubeObject) | undefined> {
  try {
    return await host.get<CrdLike & KubeObject>(CoreTypes.crds, name);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

async function waitEstablished(host: KubeClient, name: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = await host.get<
      KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }
    >(CoreTypes.crds, name);
    if (c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')) return;
    if (Date.now() > deadline)
      throw new CommandError(`CRD ${name} was not established within ${timeoutMs} ms`);
    await sleep(100);
  }
}

const describeStep = (s: CrdTakeoverStep): string => {
  const crd = `customresourcedefinition.apiextensions.k8s.io/${s.name}`;
  if (s.action === 'create') return `${crd} created`;
  if (s.action === 'unchanged') return `${crd} unchanged`;
  if (s.action === 'replace') return `${crd} replaced (${s.changes.join('; ')})`;
  return `${crd} refused: ${s.reason}`;
};

export async function migrateFromKubeFed(o: MigrateOptions): Promise<MigrateResult> {
  try {
    await o.host.get(CoreTypes.namespaces, o.namespace);
  } catch (e) {
    if (isNotFound(e))
      throw new CommandError(`KubeFed system namespace "${o.namespace}" does not exist; nothing to migrate`);
    throw e;
  }
  if (o.dryRun) {
    // A look, no wait: the plan is worth seeing before KubeFed is stopped.
    const { locks, unreadable } = await readKubeFedLocks(o.host, o.namespace);
    for (const u of unreadable) o.warn(`cannot read KubeFed's leader lock (${u.kind}): ${u.reason}`);
    const live = firstLiveLock(locks, Date.now());
    if (live) o.warn(`${kubefedRunningMessage(live.lock, live.verdict)} (a real run refuses until then)`);
  } else {
    await waitUntilKubeFedStopped(o);
  }

  // Every check before the first write: one refused CRD and nothing is replaced.
  const desired = await desiredCrds(o);
  const existing = await Promise.all(desired.map((d) => getCrd(o.host, d.metadata.name ?? '')));
  const steps = desired.map((d, i) => planCrdTakeover(existing[i], d));
  const refused = steps.filter((s) => s.action === 'refuse');
  if (refused.length > 0)
    throw new CommandError(
      `cannot take over KubeFed's CRDs, nothing changed: ${refused.map(describeStep).join('; ')}`,
    );

  const suffix = o.dryRun ? ' (dry run)' : '';
  for (const [i, step] of steps.entries()) {
    if (!o.dryRun) {
      const had = existing[i];
      if (step.action === 'create') await o.host.create(CoreTypes.crds, desired[i] as unknown as KubeObject);
      else if (step.action === 'replace' && had)
        await o.host.update(CoreTypes.crds, replacementCrd(had, desired[i] as CrdLike));
      if (step.action !== 'unchanged') await waitEstablished(o.host, step.name);
    }
    o.out(`${describeStep(step)}${suffix}`);
  }
  o.out(
    o.dryRun
      ? 'Dry run: nothing changed.'
      : "KubeFed's CRDs are kubefed-ts's now; start kubefed-ts's controller manager (docs/migrating-from-kubefed.md).",
  );
  return { steps };
}
