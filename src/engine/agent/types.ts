// Types shared by the work agent's pure decisions and its shell.

import type {
  ConditionRule,
  FeedbackRule,
  FeedbackValue,
  ManifestConfigOption,
  UpdateStrategy,
} from '../../api/ocm/work/v1/index.ts';
import type { MetaCondition } from '../../api/policy/v1alpha1/propagationpolicy.ts';
import type { KubeObject } from '../../kube/client/index.ts';

/** Where a manifest goes: OCM's ManifestResourceMeta plus what the member's discovery said of it. */
export interface ResolvedManifest {
  /** Index in spec.workload.manifests. */
  ordinal: number;
  manifest: KubeObject & Record<string, unknown>;
  group: string;
  version: string;
  kind: string;
  /** Plural resource name; '' when the member does not serve the kind. */
  resource: string;
  namespaced: boolean;
  name: string;
  namespace: string;
}

/** The manifestConfigs entry that applies to one manifest (first match wins), with defaults filled. */
export interface ManifestOptions {
  updateStrategy: UpdateStrategy;
  feedbackRules: readonly FeedbackRule[];
  conditionRules: readonly ConditionRule[];
  config?: ManifestConfigOption;
}

/** The outcome of applying (or only reading) one manifest: what conditions its status gets. */
export interface ApplyResult {
  applied: boolean;
  /** AppliedManifestComplete / AppliedManifestFailed / AppliedManifestSSAIgnoreFieldError. */
  reason: string;
  message: string;
  /** The member object as it is now (undefined when it does not exist). */
  live?: KubeObject;
  /** Whether this apply wrote to the member. */
  written: boolean;
}

export interface FeedbackResult {
  values: FeedbackValue[];
  /** StatusFeedbackSynced: True (values or none asked), False when a path hit a non-scalar. */
  condition?: Omit<MetaCondition, 'lastTransitionTime'>;
}

/** A resource the AppliedManifestWork lists (AppliedManifestResourceMeta). */
export interface AppliedResource {
  group: string;
  version: string;
  resource: string;
  namespace: string;
  name: string;
  uid: string;
}
