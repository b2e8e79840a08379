// KubeFedConfig defaulting, as KubeFed's mutating webhook does it on CREATE
// (pkg/apis/core/v1beta1/defaults/defaults.go): fill every missing field, never touch a set one.
import type {
  ClusterHealthCheckConfig,
  DurationConfig,
  FeatureGatesConfig,
  KubeFedConfigSpec,
  KubeFedScope,
  LeaderElectConfig,
  StatusControllerConfig,
  SyncControllerConfig,
} from '../api/core/v1beta1/kubefedconfig.ts';
import { ConfigurationMode, ResourceAdoption, ResourceLockType } from '../api/core/v1beta1/kubefedconfig.ts';
import { DEFAULT_FEATURE_GATES, KNOWN_FEATURE_GATES } from './feature-gates.ts';

/** The only KubeFedConfig the controller manager reads, in the KubeFed namespace. */
export const KUBEFED_CONFIG_NAME = 'kubefed';
export const DEFAULT_KUBEFED_NAMESPACE = 'kube-federation-system';

/** Defaults as Go duration strings, formatted the way Go marshals them back (Duration.String()). */
export const KUBEFED_CONFIG_DEFAULTS = {
  controllerDuration: { availableDelay: '20s', unavailableDelay: '1m0s', cacheSyncTimeout: '5m0s' },
  leaderElect: {
    leaseDuration: '15s',
    renewDeadline: '10s',
    retryPeriod: '5s',
    resourceLock: ResourceLockType.ConfigMaps,
  },
  clusterHealthCheck: { period: '10s', failureThreshold: 3, successThreshold: 1, timeout: '3s' },
  // KubeFed defaulted to one sync worker per type, which serialises every object of a type behind each
  // member round trip. 64 keep the apiservers fed in batches: measured side by side with 4, 16, 32 and 128,
  // it costs the apiservers and the controller the least CPU per member object (docs/benchmarks.md). The
  // clients' connection pools (16 per member and per controller) and QPS limits still bound what is in flight.
  // An explicit value is kept as it is.
  syncController: { maxConcurrentReconciles: 64, adoptResources: ResourceAdoption.Enabled },
  statusController: { maxConcurrentReconciles: 1 },
} as const;

/** A spec after defaulting: every sub-object and field present. */
export interface DefaultedKubeFedConfigSpec extends KubeFedConfigSpec {
  controllerDuration: Required<DurationConfig>;
  leaderElect: Required<LeaderElectConfig>;
  featureGates: FeatureGatesConfig[];
  clusterHealthCheck: Required<ClusterHealthCheckConfig>;
  syncController: Required<SyncControllerConfig>;
  statusController: Required<StatusControllerConfig>;
}

/** Input to the defaulter: anything may be missing, including scope. */
export type PartialKubeFedConfigSpec = Partial<KubeFedConfigSpec>;

/** Defaulted spec whose scope could not be determined (validation will report it as Required). */
export type DefaultedKubeFedConfigSpecWithoutScope = Omit<DefaultedKubeFedConfigSpec, 'scope'> & {
  scope?: KubeFedScope;
};

/**
 * Returns a defaulted copy of `spec` (the input is not modified). `scopeDefault` is used
 * only when spec.scope is empty — KubeFed itself has no scope default; its controller
 * manager takes one from DEFAULT_KUBEFED_SCOPE and Helm from `global.scope`.
 */
export function defaultKubeFedConfigSpec(
  spec: PartialKubeFedConfigSpec & { scope: KubeFedScope },
  scopeDefault?: KubeFedScope,
): DefaultedKubeFedConfigSpec;
export function defaultKubeFedConfigSpec(
  spec: PartialKubeFedConfigSpec,
  scopeDefault: KubeFedScope,
): DefaultedKubeFedConfigSpec;
export function defaultKubeFedConfigSpec(
  spec: PartialKubeFedConfigSpec,
  scopeDefault?: KubeFedScope,
): DefaultedKubeFedConfigSpecWithoutScope;
export function defaultKubeFedConfigSpec(
  spec: PartialKubeFedConfigSpec,
  scopeDefault?: KubeFedScope,
): DefaultedKubeFedConfigSpecWithoutScope {
  // structuredClone keeps unknown fields and guarantees the caller's object is untouched.
  const input: PartialKubeFedConfigSpec = structuredClone(spec ?? {});
  const d = KUBEFED_CONFIG_DEFAULTS;

  const out: DefaultedKubeFedConfigSpecWithoutScope = {
    ...input,
    controllerDuration: fill<Required<DurationConfig>>(input.controllerDuration, d.controllerDuration),
    leaderElect: fill<Required<LeaderElectConfig>>(input.leaderElect, d.leaderElect),
    featureGates: defaultFeatureGates(input.featureGates ?? []),
    clusterHealthCheck: fill<Required<ClusterHealthCheckConfig>>(
      input.clusterHealthCheck,
      d.clusterHealthCheck,
    ),
    syncController: fill<Required<SyncControllerConfig>>(input.syncController, d.syncController),
    statusController: fill<Required<StatusControllerConfig>>(input.statusController, d.statusController),
  };
  const scope = input.scope || scopeDefault;
  if (scope) out.scope = scope;
  else delete out.scope;
  return out;
}

/** Copies `current` and sets every field that is undefined or null to its default. */
function fill<T extends object>(current: Partial<T> | undefined | null, defaults: T): T {
  const out: Record<string, unknown> = { ...(current ?? {}) };
  for (const [key, value] of Object.entries(defaults)) {
    if (out[key] === undefined || out[key] === null) out[key] = value;
  }
  return out as T;
}

/** Appends each known gate the list does not mention, with its default, then sorts by name. */
export function defaultFeatureGates(gates: readonly FeatureGatesConfig[]): FeatureGatesConfig[] {
  const out = gates.map((g) => ({ ...g }));
  const present = new Set(out.map((g) => g.name));
  for (const name of KNOWN_FEATURE_GATES) {
    if (present.has(name)) continue;
    out.push({
      name,
      configuration: DEFAULT_FEATURE_GATES[name] ? ConfigurationMode.Enabled : ConfigurationMode.Disabled,
    });
  }
  // Stable sort by name; Go compares bytes, which for these ASCII names is code-unit order.
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
