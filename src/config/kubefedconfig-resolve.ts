// Turns a validated KubeFedConfig spec into plain numbers for the controllers, the way
// KubeFed's controller manager maps the config onto its options at start-up.
import type { KubeFedConfigSpec, KubeFedScope, ResourceLockType } from '../api/core/v1beta1/kubefedconfig.ts';
import { type FieldError, formatFieldErrors } from '../api/field-errors.ts';
import { parseDuration } from './duration.ts';
import { DEFAULT_FEATURE_GATES, type FeatureGate, isFeatureGate } from './feature-gates.ts';
import { validateKubeFedConfig } from './kubefedconfig-validation.ts';

export interface ResolvedKubeFedConfig {
  scope: KubeFedScope;
  controllerDuration: {
    /** Delay before reconciling everything after a cluster becomes available. */
    availableDelayMs: number;
    /** Delay before reconciling everything after a cluster becomes unavailable. */
    unavailableDelayMs: number;
    cacheSyncTimeoutMs: number;
  };
  leaderElect: {
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
    resourceLock: ResourceLockType;
  };
  /** Every known gate, with the config's setting or the gate's default. */
  featureGates: Record<FeatureGate, boolean>;
  clusterHealthCheck: {
    periodMs: number;
    failureThreshold: number;
    successThreshold: number;
    timeoutMs: number;
  };
  syncController: {
    maxConcurrentReconciles: number;
    /** false when adoptResources is Disabled (KubeFed's SkipAdoptingResources). */
    adoptResources: boolean;
  };
  statusController: {
    maxConcurrentReconciles: number;
  };
}

/** Thrown by resolveKubeFedConfig for a config that does not pass validation. */
export class InvalidKubeFedConfigError extends Error {
  readonly errors: readonly FieldError[];
  constructor(errors: readonly FieldError[]) {
    super(`invalid KubeFedConfig: ${formatFieldErrors(errors)}`);
    this.name = 'InvalidKubeFedConfigError';
    this.errors = errors;
  }
}

/**
 * Validates `spec` and converts it. Like KubeFed, this does not apply defaults: a spec read
 * from a file or the API must already be complete (run defaultKubeFedConfigSpec first if not).
 * Throws InvalidKubeFedConfigError listing every problem.
 */
export function resolveKubeFedConfig(spec: KubeFedConfigSpec): ResolvedKubeFedConfig {
  const errors = validateKubeFedConfig({ spec });
  if (errors.length > 0) throw new InvalidKubeFedConfigError(errors);

  // Validation guarantees every field below is present and well-formed.
  const cd = spec.controllerDuration!;
  const le = spec.leaderElect!;
  const hc = spec.clusterHealthCheck!;
  const sc = spec.syncController!;
  const st = spec.statusController!;

  const featureGates: Record<FeatureGate, boolean> = { ...DEFAULT_FEATURE_GATES };
  for (const gate of spec.featureGates ?? []) {
    if (isFeatureGate(gate.name)) featureGates[gate.name] = gate.configuration === 'Enabled';
  }

  return {
    scope: spec.scope,
    controllerDuration: {
      availableDelayMs: parseDuration(cd.availableDelay!),
      unavailableDelayMs: parseDuration(cd.unavailableDelay!),
      cacheSyncTimeoutMs: parseDuration(cd.cacheSyncTimeout!),
    },
    leaderElect: {
      leaseDurationMs: parseDuration(le.leaseDuration!),
      renewDeadlineMs: parseDuration(le.renewDeadline!),
      retryPeriodMs: parseDuration(le.retryPeriod!),
      resourceLock: le.resourceLock!,
    },
    featureGates,
    clusterHealthCheck: {
      periodMs: parseDuration(hc.period!),
      failureThreshold: hc.failureThreshold!,
      successThreshold: hc.successThreshold!,
      timeoutMs: parseDuration(hc.timeout!),
    },
    syncController: {
      maxConcurrentReconciles: sc.maxConcurrentReconciles!,
      adoptResources: sc.adoptResources === 'Enabled',
    },
    statusController: { maxConcurrentReconciles: st.maxConcurrentReconciles! },
  };
}
