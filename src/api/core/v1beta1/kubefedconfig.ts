import { type Static, Type } from 'typebox';
import { ObjectMetaSchema } from '../../meta.ts';
import { GoDuration, Int64, StringEnum } from '../../schema-helpers.ts';

export const KUBEFED_CONFIG_KIND = 'KubeFedConfig';
export const KUBEFED_CONFIG_LIST_KIND = 'KubeFedConfigList';
export const KUBEFED_CONFIG_PLURAL = 'kubefedconfigs';
export const KUBEFED_CONFIG_SINGULAR = 'kubefedconfig';

/** Scope of the control plane; also the scope values of an APIResource. */
export const ResourceScope = { Cluster: 'Cluster', Namespaced: 'Namespaced' } as const;
export type ResourceScope = (typeof ResourceScope)[keyof typeof ResourceScope];
export type KubeFedScope = ResourceScope;

/**
 * Lock object used for leader election. KubeFed accepts configmaps and endpoints; kubefed-ts
 * also accepts `leases` because it locks on a coordination.k8s.io Lease (ConfigMap/Endpoints
 * locks were removed from client-go). `configmaps` stays the default for wire compatibility.
 */
export const ResourceLockType = {
  ConfigMaps: 'configmaps',
  Endpoints: 'endpoints',
  Leases: 'leases',
} as const;
export type ResourceLockType = (typeof ResourceLockType)[keyof typeof ResourceLockType];

export const ConfigurationMode = { Enabled: 'Enabled', Disabled: 'Disabled' } as const;
export type ConfigurationMode = (typeof ConfigurationMode)[keyof typeof ConfigurationMode];

export const ResourceAdoption = { Enabled: 'Enabled', Disabled: 'Disabled' } as const;
export type ResourceAdoption = (typeof ResourceAdoption)[keyof typeof ResourceAdoption];

export const DurationConfigSchema = Type.Object({
  availableDelay: Type.Optional(GoDuration('Time to wait before reconciling on a healthy cluster.')),
  unavailableDelay: Type.Optional(GoDuration('Time to wait before giving up on an unhealthy cluster.')),
  cacheSyncTimeout: Type.Optional(GoDuration('Time to wait for all caches to sync before exit.')),
});
export type DurationConfig = Static<typeof DurationConfigSchema>;

export const LeaderElectConfigSchema = Type.Object({
  leaseDuration: Type.Optional(
    GoDuration('How long non-leaders wait after the last renewal before trying to take over leadership.'),
  ),
  renewDeadline: Type.Optional(GoDuration('How long the leader keeps retrying a renewal before giving up.')),
  retryPeriod: Type.Optional(GoDuration('How long to wait between attempts to acquire or renew leadership.')),
  resourceLock: Type.Optional(
    StringEnum([ResourceLockType.ConfigMaps, ResourceLockType.Endpoints, ResourceLockType.Leases], {
      description: 'Object used as the leader-election lock: configmaps (default), endpoints or leases.',
    }),
  ),
});
export type LeaderElectConfig = Static<typeof LeaderElectConfigSchema>;

export const FeatureGatesConfigSchema = Type.Object({
  // Left open in the schema: validation reports unknown names with KubeFed's message.
  name: Type.String(),
  configuration: StringEnum([ConfigurationMode.Enabled, ConfigurationMode.Disabled]),
});
export type FeatureGatesConfig = Static<typeof FeatureGatesConfigSchema>;

export const ClusterHealthCheckConfigSchema = Type.Object({
  period: Type.Optional(GoDuration('How often to probe the health of each member cluster.')),
  failureThreshold: Type.Optional(
    Int64('Minimum consecutive failures for the cluster to be considered failed after having succeeded.'),
  ),
  successThreshold: Type.Optional(
    Int64('Minimum consecutive successes for the cluster to be considered healthy after having failed.'),
  ),
  timeout: Type.Optional(GoDuration('Duration after which a health probe times out.')),
});
export type ClusterHealthCheckConfig = Static<typeof ClusterHealthCheckConfigSchema>;

export const SyncControllerConfigSchema = Type.Object({
  maxConcurrentReconciles: Type.Optional(
    Int64('Maximum number of concurrent reconciles of each sync controller. Defaults to 1.'),
  ),
  adoptResources: Type.Optional(
    StringEnum([ResourceAdoption.Enabled, ResourceAdoption.Disabled], {
      description: 'Whether to adopt pre-existing resources in member clusters. Defaults to "Enabled".',
    }),
  ),
});
export type SyncControllerConfig = Static<typeof SyncControllerConfigSchema>;

export const StatusControllerConfigSchema = Type.Object({
  maxConcurrentReconciles: Type.Optional(
    Int64('Maximum number of concurrent reconciles of each status controller. Defaults to 1.'),
  ),
});
export type StatusControllerConfig = Static<typeof StatusControllerConfigSchema>;

export const KubeFedConfigSpecSchema = Type.Object(
  {
    scope: StringEnum([ResourceScope.Cluster, ResourceScope.Namespaced], {
      description:
        'Scope of the control plane: Cluster, or Namespaced to target only the KubeFed namespace. Immutable.',
    }),
    controllerDuration: Type.Optional(DurationConfigSchema),
    leaderElect: Type.Optional(LeaderElectConfigSchema),
    featureGates: Type.Optional(Type.Array(FeatureGatesConfigSchema)),
    clusterHealthCheck: Type.Optional(ClusterHealthCheckConfigSchema),
    syncController: Type.Optional(SyncControllerConfigSchema),
    statusController: Type.Optional(StatusControllerConfigSchema),
  },
  { description: 'KubeFedConfigSpec defines the desired state of KubeFedConfig.' },
);
export type KubeFedConfigSpec = Static<typeof KubeFedConfigSpecSchema>;

export const KubeFedConfigSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(ObjectMetaSchema),
    spec: KubeFedConfigSpecSchema,
  },
  {
    description:
      'KubeFedConfig configures the KubeFed controller manager. Only the one named "kubefed" is used.',
  },
);
export type KubeFedConfig = Static<typeof KubeFedConfigSchema>;
