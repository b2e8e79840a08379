// Which manifestConfigs entry applies to a manifest (ocm pkg/work/helper/helpers.go FindManifestConfiguration,
// resourceMatch, wildcardMatch): group and resource must be equal, namespace and name may use `*` wildcards.

import type {
  ManifestConfigOption,
  ResourceIdentifier,
  UpdateStrategy,
} from '../../api/ocm/work/v1/index.ts';
import { DEFAULT_FIELD_MANAGER } from '../../api/ocm/work/v1/index.ts';
import type { ManifestOptions } from './types.ts';

export interface ManifestIdentity {
  group: string;
  resource: string;
  name: string;
  namespace: string;
}

/** `value` matches `pattern` when equal, when the pattern is `*`, or when `*` in the pattern spans any text. */
export function wildcardMatch(value: string, pattern: string): boolean {
  if (value === pattern || pattern === '*') return true;
  if (!pattern.includes('*')) return false;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(value);
}

export function matchesIdentifier(pattern: ResourceIdentifier, id: ManifestIdentity): boolean {
  return (
    (pattern.group ?? '') === id.group &&
    pattern.resource === id.resource &&
    wildcardMatch(id.namespace, pattern.namespace ?? '') &&
    wildcardMatch(id.name, pattern.name)
  );
}

/**
 * The options of one manifest. Like OCM, each setting comes from the first matching entry that sets it: the
 * first match with feedbackRules gives the rules, the first with an updateStrategy gives the strategy (so a
 * later, broader wildcard entry can still supply what the earlier one left out).
 */
export function manifestOptions(
  configs: readonly ManifestConfigOption[] | undefined,
  id: ManifestIdentity,
): ManifestOptions {
  let config: ManifestConfigOption | undefined;
  let updateStrategy: UpdateStrategy | undefined;
  let feedbackRules: ManifestOptions['feedbackRules'] = [];
  let conditionRules: ManifestOptions['conditionRules'] = [];
  for (const option of configs ?? []) {
    if (!matchesIdentifier(option.resourceIdentifier, id)) continue;
    config ??= option;
    if (feedbackRules.length === 0 && option.feedbackRules?.length) feedbackRules = option.feedbackRules;
    if (conditionRules.length === 0 && option.conditionRules?.length) conditionRules = option.conditionRules;
    updateStrategy ??= option.updateStrategy;
  }
  return {
    updateStrategy: withStrategyDefaults(updateStrategy),
    feedbackRules,
    conditionRules,
    ...(config ? { config } : {}),
  };
}

/** Update unless told otherwise; ServerSideApply with OCM's defaults (field manager work-agent, no force). */
function withStrategyDefaults(strategy: UpdateStrategy | undefined): UpdateStrategy {
  const type = strategy?.type ?? 'Update';
  if (type !== 'ServerSideApply') return { ...strategy, type };
  const ssa = strategy?.serverSideApply;
  return {
    type,
    serverSideApply: {
      ...ssa,
      force: ssa?.force ?? false,
      fieldManager: ssa?.fieldManager || DEFAULT_FIELD_MANAGER,
    },
  };
}
