// The status a ServiceDNSRecord or IngressDNSRecord gets after one reconcile: what each cluster
// contributes (`dns`), the domain, and a `Ready` condition saying whether everything was published.
import { type Condition, setCondition } from '../util/conditions.ts';
import type { ClusterDns, IngressClusterDns } from './types.ts';

export interface RecordOutcome {
  ready: boolean;
  reason: string;
  message: string;
}

export type RecordStatus = Record<string, unknown> & { conditions?: Condition[] };

/** The next status of a record; `dns`/`domain` undefined keep what the record already shows. */
export function nextRecordStatus(
  prev: RecordStatus | undefined,
  update: { dns?: ClusterDns[] | IngressClusterDns[]; domain?: string; outcome: RecordOutcome },
  now: Date,
): RecordStatus {
  const base = prev ?? {};
  const { outcome } = update;
  return {
    ...base,
    ...(update.dns !== undefined ? { dns: update.dns } : {}),
    ...(update.domain !== undefined ? { domain: update.domain } : {}),
    conditions: setCondition(
      base.conditions,
      {
        type: 'Ready',
        status: outcome.ready ? 'True' : 'False',
        reason: outcome.reason,
        message: outcome.message,
      },
      now,
    ),
  };
}
