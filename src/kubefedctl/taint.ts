// kubefedctl taint clusters NAME KEY[=VALUE]:EFFECT ... KEY[:EFFECT]- (karmadactl taint, which is kubectl
// taint on Karmada's Cluster: k8s.io/kubectl/pkg/cmd/taint, taint.go and utils.go). The parsing and the
// reorganisation of the taints are pure; the shell reads the KubeFedCluster and writes spec.taints.

import { type Taint, TaintEffect } from '../api/core/v1beta1/kubefedcluster.ts';
import { type ClusterObject, updateClusterTaints } from '../controllers/kubefedcluster/taint-writer.ts';
import { sameTaint } from '../controllers/kubefedcluster/taints.ts';
import type { KubeClient } from '../kube/client/index.ts';
import { labelValueErrors, qualifiedNameErrors } from '../kube/validation.ts';
import { taintString } from '../sources/policy/taints.ts';
import { CommandError } from './errors.ts';

/** What kubectl's name printer calls a KubeFedCluster. */
export const clusterRef = (name: string): string => `kubefedcluster.core.kubefed.io/${name}`;

/** The resource words `taint` accepts for a KubeFedCluster (karmadactl: cluster, clusters). */
const CLUSTER_RESOURCES = new Set([
  'cluster',
  'clusters',
  'kubefedcluster',
  'kubefedclusters',
  'kfc',
  'kubefedclusters.core.kubefed.io',
]);

export interface TaintSpecs {
  add: Taint[];
  /** Taints to remove; without effect: every taint of the key. */
  remove: Array<{ key: string; effect?: TaintEffect }>;
}

const EFFECTS: readonly string[] = [
  TaintEffect.NoSchedule,
  TaintEffect.PreferNoSchedule,
  TaintEffect.NoExecute,
];

/** kubectl's parseTaint: `key=value:effect`, `key:effect` (add) or the same with a trailing `-` (remove). */
function parseTaint(spec: string, removing: boolean): { key: string; value?: string; effect?: TaintEffect } {
  const parts = spec.split(':');
  if (parts.length > 2 || (!removing && parts.length !== 2))
    throw new CommandError(`unknown taint spec: ${spec}`);
  const [keyValue = '', effect] = parts;
  if (effect !== undefined && !EFFECTS.includes(effect))
    throw new CommandError(`invalid taint effect: ${effect}, unsupported taint effect`);
  const eq = keyValue.indexOf('=');
  const key = eq < 0 ? keyValue : keyValue.slice(0, eq);
  const value = eq < 0 ? undefined : keyValue.slice(eq + 1);
  const problems = [...qualifiedNameErrors(key), ...(value !== undefined ? labelValueErrors(value) : [])];
  if (problems.length > 0) throw new CommandError(`invalid taint spec: ${spec}, ${problems.join('; ')}`);
  return { key, ...(value ? { value } : {}), ...(effect ? { effect: effect as TaintEffect } : {}) };
}

/**
 * kubectl's parseTaints. A NoExecute taint is stamped `timeAdded: now`, as kubectl does (the others carry
 * none). A key and effect given twice, or both added and removed, is an error.
 */
export function parseTaintSpecs(specs: readonly string[], now: string): TaintSpecs {
  const out: TaintSpecs = { add: [], remove: [] };
  const seen = new Set<string>();
  for (const spec of specs) {
    if (spec.endsWith('-')) {
      out.remove.push(parseTaint(spec.slice(0, -1), true));
      continue;
    }
    const t = parseTaint(spec, false);
    const effect = t.effect as TaintEffect;
    const id = `${t.key}:${effect}`;
    if (seen.has(id))
      throw new CommandError(
        `duplicated taints with the same key and effect: ${taintString({ ...t, effect })}`,
      );
    seen.add(id);
    out.add.push({ ...t, effect, ...(effect === TaintEffect.NoExecute ? { timeAdded: now } : {}) });
  }
  const both = out.add.filter((a) =>
    out.remove.some((r) => r.key === a.key && (!r.effect || r.effect === a.effect)),
  );
  if (both.length > 0)
    throw new CommandError(
      `can not both modify and remove the following taint(s) in the same command: ${both.map((t) => taintString(t)).join(', ')}`,
    );
  return out;
}

export type TaintOperation = 'tainted' | 'untainted' | 'modified';

/**
 * kubectl's reorganizeTaints after its overwrite check: the new taints first, then the old ones they do not
 * replace, minus the removed ones. Throws when a taint to add is there already without --overwrite, or a
 * taint to remove is not there.
 */
export function reorganizeTaints(
  cluster: string,
  old: readonly Taint[],
  specs: TaintSpecs,
  overwrite: boolean,
): { operation: TaintOperation; taints: Taint[] } {
  if (!overwrite) {
    const existing = specs.add.filter((t) => old.some((o) => sameTaint(o, t))).map((t) => t.key);
    if (existing.length > 0)
      throw new CommandError(
        `cluster ${cluster} already has ${existing.join(',')} taint(s) with same effect(s) and --overwrite is false`,
      );
  }
  const taints = [...specs.add];
  for (const o of old) if (!taints.some((t) => sameTaint(t, o))) taints.push(o);
  const added = old.length !== taints.length;
  let deleted = false;
  const missing: string[] = [];
  for (const r of specs.remove) {
    const before = taints.length;
    const keep = taints.filter((t) => !(t.key === r.key && (!r.effect || t.effect === r.effect)));
    if (keep.length === before) missing.push(r.effect ? `${r.key}:${r.effect}` : r.key);
    else deleted = true;
    taints.splice(0, taints.length, ...keep);
  }
  if (missing.length > 0) throw new CommandError(missing.map((m) => `taint "${m}" not found`).join('; '));
  const operation: TaintOperation =
    (added && deleted) || overwrite ? 'modified' : added ? 'tainted' : 'untainted';
  return { operation, taints };
}

export interface TaintCommand {
  host: Pick<KubeClient, 'get' | 'update'>;
  kubefedNamespace: string;
  /** `clusters NAME SPEC...` as given. */
  args: readonly string[];
  overwrite: boolean;
  dryRun: boolean;
  out: (line: string) => void;
  now?: () => Date;
}

/** Parses `RESOURCE NAME SPEC...`, as kubectl's TaintOptions.Complete/Validate word the problems. */
export function parseTaintArgs(args: readonly string[]): { name: string; specs: string[] } {
  const [resource, name, ...specs] = args;
  if (!resource) throw new CommandError('you must specify the type of resource to taint: clusters');
  if (!CLUSTER_RESOURCES.has(resource.toLowerCase()))
    throw new CommandError(`the type "${resource}" cannot be tainted: only clusters (KubeFedClusters) can`);
  if (!name)
    throw new CommandError('at least one resource name must be specified since --all is not supported');
  if (specs.length === 0) throw new CommandError('at least one taint update is required');
  return { name, specs };
}

export async function taintCluster(cmd: TaintCommand): Promise<void> {
  const { name, specs: raw } = parseTaintArgs(cmd.args);
  const now = (cmd.now?.() ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const specs = parseTaintSpecs(raw, now);
  let operation: TaintOperation = 'untainted';
  const decide = (cluster: ClusterObject): Taint[] | undefined => {
    const old = cluster.spec.taints ?? [];
    const next = reorganizeTaints(name, old, specs, cmd.overwrite);
    operation = next.operation;
    const unchanged =
      next.taints.length === old.length &&
      next.taints.every((t) => old.some((o) => sameTaint(o, t) && (o.value ?? '') === (t.value ?? '')));
    return unchanged || cmd.dryRun ? undefined : next.taints;
  };
  const res = await updateClusterTaints(cmd.host, { name, namespace: cmd.kubefedNamespace }, decide);
  if (res.kind === 'gone')
    throw new CommandError(
      `kubefedclusters.core.kubefed.io "${name}" not found in namespace "${cmd.kubefedNamespace}"`,
    );
  cmd.out(`${clusterRef(name)} ${operation}${cmd.dryRun ? ' (dry run)' : ''}`);
}
