// KubeFedConfig validation with the rules, order, paths and messages of KubeFed's
// ValidateKubeFedConfig (pkg/apis/core/v1beta1/validation/validation.go). Input is treated as
// untrusted JSON, so wrong JSON types are reported too (Go would fail decoding instead).
import {
  ConfigurationMode,
  ResourceAdoption,
  ResourceLockType,
  ResourceScope,
} from '../api/core/v1beta1/kubefedconfig.ts';
import {
  duplicate,
  type FieldError,
  type FieldValue,
  invalid,
  notSupported,
  required,
} from '../api/field-errors.ts';
import { DurationParseError, parseDurationNanos } from './duration.ts';
import { KNOWN_FEATURE_GATES } from './feature-gates.ts';

export {
  type FieldError,
  type FieldErrorType,
  formatFieldError,
  formatFieldErrors,
} from '../api/field-errors.ts';

/** client-go leaderelection.JitterFactor: renewDeadline must exceed retryPeriod times this. */
export const LEADER_ELECTION_JITTER_FACTOR = 1.2;

const SCOPES = [ResourceScope.Cluster, ResourceScope.Namespaced];
// KubeFed accepts configmaps and endpoints; kubefed-ts also accepts leases (see ResourceLockType).
const RESOURCE_LOCKS = [ResourceLockType.ConfigMaps, ResourceLockType.Endpoints, ResourceLockType.Leases];
const CONFIGURATION_MODES = [ConfigurationMode.Enabled, ConfigurationMode.Disabled];
const ADOPTION_MODES = [ResourceAdoption.Enabled, ResourceAdoption.Disabled];

/** Anything shaped like a KubeFedConfig; fields are checked at run time. */
export interface KubeFedConfigLike {
  spec?: unknown;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isMissing = (v: unknown): v is undefined | null => v === undefined || v === null;

function asFieldValue(v: unknown): FieldValue {
  if (v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'function' || typeof v === 'symbol') return String(v);
  return v as FieldValue;
}

/**
 * Validates a KubeFedConfig. Pass `oldConfig` when validating an update: the scope is immutable.
 * Returns an empty list when the config is valid.
 */
export function validateKubeFedConfig(
  config: KubeFedConfigLike,
  oldConfig?: KubeFedConfigLike,
): FieldError[] {
  const errs: FieldError[] = [];
  const spec: Obj = isObj(config?.spec) ? config.spec : {};
  if (config?.spec !== undefined && config.spec !== null && !isObj(config.spec)) {
    errs.push(invalid('spec', asFieldValue(config.spec), 'must be an object'));
  }

  errs.push(...validateEnum('spec.scope', spec['scope'], SCOPES));
  if (oldConfig !== undefined) {
    const oldScope = isObj(oldConfig.spec) ? oldConfig.spec['scope'] : undefined;
    if ((spec['scope'] ?? '') !== (oldScope ?? '')) {
      errs.push(invalid('spec.scope', asFieldValue(spec['scope'] ?? ''), 'field is immutable'));
    }
  }

  withObject(errs, spec, 'controllerDuration', (o, p) => {
    errs.push(...durationGreaterThan0(`${p}.availableDelay`, o['availableDelay']));
    errs.push(...durationGreaterThan0(`${p}.unavailableDelay`, o['unavailableDelay']));
    errs.push(...durationGreaterThan0(`${p}.cacheSyncTimeout`, o['cacheSyncTimeout']));
  });

  withObject(errs, spec, 'leaderElect', (o, p) => {
    errs.push(...durationGreaterThan0(`${p}.leaseDuration`, o['leaseDuration']));
    errs.push(...durationGreaterThan0(`${p}.renewDeadline`, o['renewDeadline']));
    errs.push(...durationGreaterThan0(`${p}.retryPeriod`, o['retryPeriod']));
    // Like KubeFed, these run whenever both values are present, even if one is <= 0.
    const lease = nanosOrUndefined(o['leaseDuration']);
    const renew = nanosOrUndefined(o['renewDeadline']);
    const retry = nanosOrUndefined(o['retryPeriod']);
    if (lease !== undefined && renew !== undefined && lease <= renew) {
      errs.push(
        invalid(
          `${p}.leaseDuration`,
          asFieldValue(o['leaseDuration']),
          'leaseDuration must be greater than renewDeadline',
        ),
      );
    }
    // Go: time.Duration(float64(retry) * JitterFactor), truncated toward zero.
    if (
      renew !== undefined &&
      retry !== undefined &&
      renew <= BigInt(Math.trunc(Number(retry) * LEADER_ELECTION_JITTER_FACTOR))
    ) {
      errs.push(
        invalid(
          `${p}.renewDeadline`,
          asFieldValue(o['renewDeadline']),
          `renewDeadline must be greater than retryPeriod*JitterFactor(${LEADER_ELECTION_JITTER_FACTOR.toFixed(1)})`,
        ),
      );
    }
    if (isMissing(o['resourceLock'])) errs.push(required(`${p}.resourceLock`));
    else errs.push(...validateEnum(`${p}.resourceLock`, o['resourceLock'], RESOURCE_LOCKS));
  });

  const gates = spec['featureGates'];
  const gatesPath = 'spec.featureGates';
  if (isMissing(gates)) {
    errs.push(required(gatesPath));
  } else if (!Array.isArray(gates)) {
    errs.push(invalid(gatesPath, asFieldValue(gates), 'must be a list'));
  } else {
    const seen = new Set<unknown>();
    gates.forEach((gate, i) => {
      if (!isObj(gate)) {
        errs.push(invalid(`${gatesPath}[${i}]`, asFieldValue(gate), 'must be an object'));
        return;
      }
      // KubeFed reports these at spec.featureGates.name, without the index.
      if (seen.has(gate['name'])) {
        errs.push(duplicate(`${gatesPath}.name`, asFieldValue(gate['name'])));
        return;
      }
      seen.add(gate['name']);
      errs.push(...validateEnum(`${gatesPath}.name`, gate['name'], KNOWN_FEATURE_GATES));
      errs.push(...validateEnum(`${gatesPath}.configuration`, gate['configuration'], CONFIGURATION_MODES));
    });
  }

  withObject(errs, spec, 'clusterHealthCheck', (o, p) => {
    errs.push(...durationGreaterThan0(`${p}.period`, o['period']));
    errs.push(...intGreaterThan0(`${p}.failureThreshold`, o['failureThreshold']));
    errs.push(...intGreaterThan0(`${p}.successThreshold`, o['successThreshold']));
    errs.push(...durationGreaterThan0(`${p}.timeout`, o['timeout']));
  });

  withObject(errs, spec, 'syncController', (o, p) => {
    // KubeFed checks maxConcurrentReconciles only once adoptResources is present.
    if (isMissing(o['adoptResources'])) {
      errs.push(required(`${p}.adoptResources`));
      return;
    }
    errs.push(...intGreaterThan0(`${p}.maxConcurrentReconciles`, o['maxConcurrentReconciles']));
    errs.push(...validateEnum(`${p}.adoptResources`, o['adoptResources'], ADOPTION_MODES));
  });

  withObject(errs, spec, 'statusController', (o, p) => {
    errs.push(...intGreaterThan0(`${p}.maxConcurrentReconciles`, o['maxConcurrentReconciles']));
  });

  return errs;
}

/** Reports a missing sub-object as Required, a non-object as Invalid, otherwise validates it. */
function withObject(errs: FieldError[], spec: Obj, key: string, check: (o: Obj, path: string) => void): void {
  const path = `spec.${key}`;
  const value = spec[key];
  if (isMissing(value)) errs.push(required(path));
  else if (!isObj(value)) errs.push(invalid(path, asFieldValue(value), 'must be an object'));
  else check(value, path);
}

/** KubeFed's validateEnumStrings: empty is Required, anything else outside the list NotSupported. */
function validateEnum(path: string, value: unknown, accepted: readonly string[]): FieldError[] {
  if (isMissing(value) || value === '') return [required(path)];
  if (typeof value === 'string' && accepted.includes(value)) return [];
  return [notSupported(path, asFieldValue(value), accepted)];
}

function durationGreaterThan0(path: string, value: unknown): FieldError[] {
  if (isMissing(value)) return [required(path)];
  if (typeof value !== 'string') {
    return [invalid(path, asFieldValue(value), 'must be a duration string such as "10s"')];
  }
  try {
    return parseDurationNanos(value) <= 0n ? [invalid(path, value, 'should be greater than 0')] : [];
  } catch (err) {
    if (err instanceof DurationParseError) return [invalid(path, value, err.message)];
    throw err;
  }
}

function intGreaterThan0(path: string, value: unknown): FieldError[] {
  if (isMissing(value)) return [required(path)];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return [invalid(path, asFieldValue(value), 'must be an integer')];
  }
  return value <= 0 ? [invalid(path, value, 'should be greater than 0')] : [];
}

function nanosOrUndefined(value: unknown): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return parseDurationNanos(value);
  } catch {
    return undefined;
  }
}
