// The Ready conditions' content (pure): of a ServiceExport — whether its import reached every member that
// should have it — and of a ServiceImport in one member — whether its clusterset IP(s) exist.

import { ExportReason, ImportReason, ImportType } from '../../api/mcs/v1beta1/index.ts';
import type { ServiceImportSpec } from '../../api/mcs/v1beta1/serviceimport.ts';
import type { Validity } from '../../mcs/model.ts';

export interface ReadyContent {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** How the ServiceImport fared in one consuming member this pass. */
export type ImportOutcome =
  | { kind: 'ok' }
  /** Not known yet (the member's cache is loading, or the write is still to be made). */
  | { kind: 'pending' }
  | { kind: 'failed'; status: string; message?: string };

export interface ExportReadyInput {
  validity: Validity;
  /** Per consuming member (ready, namespace there, ServiceImports served). */
  consumers: ReadonlyMap<string, ImportOutcome>;
  /** Per consuming member that should have one, how its derived Service (the clusterset IP) fared. */
  derived?: ReadonlyMap<string, ImportOutcome>;
  /** Ready members that do not serve ServiceImports (no MCS CRDs): nothing is imported there. */
  notServing: readonly string[];
  /** Ready members whose ServiceImports cannot be listed (the list failed): nothing is imported there now. */
  unavailable?: ReadonlyArray<{ cluster: string; message: string }>;
}

export function exportReady(input: ExportReadyInput): ReadyContent {
  const { validity, consumers } = input;
  if (!validity.valid) {
    return {
      status: 'False',
      reason: ExportReason.Failed,
      message: `The service is not exported: ${validity.message}`,
    };
  }
  const failed: string[] = [];
  const pending: string[] = [];
  for (const [cluster, o] of [...consumers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const d = input.derived?.get(cluster);
    if (o.kind === 'failed') failed.push(`cluster "${cluster}": ${outcomeText(o)}`);
    if (d?.kind === 'failed') failed.push(`cluster "${cluster}": derived Service: ${outcomeText(d)}`);
    if (o.kind !== 'failed' && d?.kind !== 'failed' && (o.kind === 'pending' || d?.kind === 'pending'))
      pending.push(cluster);
  }
  let note =
    input.notServing.length > 0
      ? ` Not imported into ${quoteList(input.notServing)}: ServiceImports are not served there.`
      : '';
  const unavailable = [...(input.unavailable ?? [])].sort((a, b) => (a.cluster < b.cluster ? -1 : 1));
  if (unavailable.length > 0)
    note += ` Not imported into ${unavailable.map((u) => `cluster "${u.cluster}" (its ServiceImports cannot be listed: ${u.message})`).join(', ')}.`;
  if (failed.length > 0) {
    return {
      status: 'False',
      reason: ExportReason.Failed,
      message: `The service could not be imported: ${failed.join('; ')}.${note}`,
    };
  }
  if (pending.length > 0) {
    return {
      status: 'Unknown',
      reason: ExportReason.Pending,
      message: `Waiting for the ServiceImport in ${quoteList(pending)}.${note}`,
    };
  }
  const all = [...consumers.keys()].sort();
  return {
    status: 'True',
    reason: ExportReason.Exported,
    message:
      all.length > 0
        ? `The service is exported: its ServiceImport is in ${quoteList(all)}.${note}`
        : `The service is exported, but no member can import it.${note}`,
  };
}

/** A member's ServiceImport: Ready once it has its clusterset IP(s) (or needs none: Headless). */
export function importReady(
  spec: Pick<ServiceImportSpec, 'type'>,
  ips: readonly string[],
  missingFamilies: readonly string[],
  /** How the derived Service that gives the clusterset IP(s) fared this pass (none for Headless). */
  derived?: ImportOutcome,
): ReadyContent {
  if (missingFamilies.length > 0) {
    return {
      status: 'False',
      reason: ImportReason.IPFamilyNotSupported,
      message: `This cluster does not support the IP ${missingFamilies.length > 1 ? 'families' : 'family'} ${missingFamilies.join(', ')} of the import.`,
    };
  }
  if (spec.type === ImportType.ClusterSetIP && ips.length === 0) {
    const why =
      derived?.kind === 'failed' ? ` The derived Service could not be written: ${outcomeText(derived)}.` : '';
    return {
      status: 'Unknown',
      reason: ImportReason.Pending,
      message: `Waiting for the clusterset IP.${why}`,
    };
  }
  return { status: 'True', reason: ImportReason.Ready, message: 'The ServiceImport is ready.' };
}

function outcomeText(o: { status: string; message?: string }): string {
  return `${o.status}${o.message ? ` (${o.message})` : ''}`;
}

function quoteList(names: readonly string[]): string {
  const q = names.map((n) => `"${n}"`);
  return `${q.length > 1 ? 'clusters' : 'cluster'} ${q.join(', ')}`;
}
