import {
  type ClusterCondition,
  ClusterConditionMessage,
  ClusterConditionReason,
  ClusterConditionType,
  isClusterReady,
} from '../../api/core/v1beta1/index.ts';

/** What one probe of a member found, before any thresholding. */
export type ProbeResult =
  | { kind: 'malformed'; detail: string }
  | { kind: 'unreachable'; error: string }
  | { kind: 'notReady' }
  /** `message` replaces the /healthz one (a Pull cluster's readiness comes from its agent's lease). */
  | { kind: 'ready'; message?: string };

/**
 * The conditions KubeFed writes for a probe result (KubeFed pkg/controller/kubefedcluster/clusterclient.go,
 * GetClusterHealthStatus), all stamped with `now`.
 */
export function probeConditions(result: ProbeResult, now: string): ClusterCondition[] {
  const at = { lastProbeTime: now, lastTransitionTime: now };
  switch (result.kind) {
    case 'malformed':
      return [
        {
          type: ClusterConditionType.ConfigMalformed,
          status: 'True',
          reason: ClusterConditionReason.ClusterConfigMalformed,
          // KubeFed says only that it "may be" malformed; we add what is wrong.
          message: `${ClusterConditionMessage.ClusterConfigMalformed}: ${result.detail}`,
          ...at,
        },
      ];
    case 'unreachable':
      return [
        {
          type: ClusterConditionType.Offline,
          status: 'True',
          reason: ClusterConditionReason.ClusterNotReachable,
          message: `${ClusterConditionMessage.ClusterNotReachable}: ${result.error}`,
          ...at,
        },
      ];
    case 'notReady':
      return [
        {
          type: ClusterConditionType.Ready,
          status: 'False',
          reason: ClusterConditionReason.ClusterNotReady,
          message: ClusterConditionMessage.HealthzNotOk,
          ...at,
        },
        {
          type: ClusterConditionType.Offline,
          status: 'False',
          reason: ClusterConditionReason.ClusterReachable,
          message: ClusterConditionMessage.ClusterReachable,
          ...at,
        },
      ];
    case 'ready':
      return [
        {
          type: ClusterConditionType.Ready,
          status: 'True',
          reason: ClusterConditionReason.ClusterReady,
          message: result.message ?? ClusterConditionMessage.HealthzOk,
          ...at,
        },
      ];
  }
}

/** The state label of the kubefedcluster_total metric for a raw probe result. */
export function probeState(result: ProbeResult): 'ready' | 'notready' | 'offline' {
  if (result.kind === 'ready') return 'ready';
  if (result.kind === 'unreachable') return 'offline';
  return 'notready';
}

/** What the controller remembers per cluster between probes. */
export interface HealthMemory {
  reported: ClusterCondition[];
  /** Consecutive probes whose readiness disagrees with the reported readiness. */
  disagreeing: number;
}

export interface Thresholds {
  successThreshold: number;
  failureThreshold: number;
}

/**
 * Applies the success/failure thresholds to a new probe. A cluster's reported readiness flips only after
 * `threshold` consecutive probes that disagree with it; until then the previous conditions are reported
 * with the new probe time. Unchanged conditions keep their lastTransitionTime.
 *
 * Deliberate difference from KubeFed: KubeFed counts probes since the last reported change, so after a long
 * healthy streak one failed probe flips a cluster at once (controller.go, thresholdAdjustedClusterStatus).
 * Here the failure threshold means what users read it as: that many failures in a row. KubeFed's own
 * unit-test table (pkg/controller/kubefedcluster/controller_test.go) gives the same answers under both rules.
 */
export function applyThresholds(
  probe: ClusterCondition[],
  memory: HealthMemory | undefined,
  thresholds: Thresholds,
): { conditions: ClusterCondition[]; memory: HealthMemory } {
  if (!memory) return { conditions: probe, memory: { reported: probe, disagreeing: 0 } };
  const probeTime = probe[0]?.lastProbeTime ?? new Date().toISOString();
  const wasReady = isClusterReady(memory.reported);
  const nowReady = isClusterReady(probe);
  if (wasReady === nowReady) {
    const conditions = probe.map((c) => {
      const prev = memory.reported.find((p) => p.type === c.type && p.status === c.status);
      return prev?.lastTransitionTime ? { ...c, lastTransitionTime: prev.lastTransitionTime } : c;
    });
    return { conditions, memory: { reported: conditions, disagreeing: 0 } };
  }
  const disagreeing = memory.disagreeing + 1;
  const threshold = nowReady ? thresholds.successThreshold : thresholds.failureThreshold;
  if (disagreeing >= threshold) return { conditions: probe, memory: { reported: probe, disagreeing: 0 } };
  const held = memory.reported.map((c) => ({ ...c, lastProbeTime: probeTime }));
  return { conditions: held, memory: { reported: held, disagreeing } };
}

const ZONE_LABELS = ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'];
const REGION_LABELS = ['topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/region'];

/**
 * Zones and region of a member from its nodes' labels (the GA topology labels, falling back to the legacy
 * failure-domain ones). Zones are sorted and unique; the region is the first node's that has one.
 * Values set by the user are kept when no node carries the labels (e.g. a cluster without node access).
 */
export function zonesAndRegion(
  nodes: ReadonlyArray<{ metadata?: { labels?: Record<string, string> } }>,
  current: { zones?: string[]; region?: string } = {},
): { zones?: string[]; region?: string } {
  const zones = new Set<string>();
  let region: string | undefined;
  for (const node of nodes) {
    const labels = node.metadata?.labels ?? {};
    const zone = ZONE_LABELS.map((l) => labels[l]).find(Boolean);
    if (zone) zones.add(zone);
    region ??= REGION_LABELS.map((l) => labels[l]).find(Boolean);
  }
  return {
    zones: zones.size > 0 ? [...zones].sort() : current.zones,
    region: region ?? current.region,
  };
}
