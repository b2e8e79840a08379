// Status feedback: values read from a member object's status and reported on the hub (ocm
// pkg/work/spoke/statusfeedback/reader.go GetValuesByRule and getValueByJsonPath, rules/rule.go; the
// StatusFeedbackSynced condition of pkg/work/spoke/controllers/statuscontroller/availablestatus_controller.go
// getFeedbackValues).

import type { FeedbackRule, FeedbackValue, JsonPath } from '../../api/ocm/work/v1/index.ts';
import { WorkCondition, WorkReason } from '../../api/ocm/work/v1/index.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { findJsonPath, JsonPathError, parseJsonPath } from './jsonpath.ts';
import type { FeedbackResult } from './types.ts';

/** OCM's --max-json-raw-length default. */
export const DEFAULT_MAX_JSON_RAW_LENGTH = 1024;

const WELL_KNOWN: Readonly<Record<string, readonly JsonPath[]>> = {
  'apps/v1/Deployment': [
    { name: 'ReadyReplicas', path: '.status.readyReplicas' },
    { name: 'Replicas', path: '.status.replicas' },
    { name: 'AvailableReplicas', path: '.status.availableReplicas' },
  ],
  'apps/v1/DaemonSet': [
    { name: 'NumberReady', path: '.status.numberReady' },
    { name: 'DesiredNumberScheduled', path: '.status.desiredNumberScheduled' },
    { name: 'NumberAvailable', path: '.status.numberAvailable' },
  ],
  'batch/v1/Job': [
    { name: 'JobComplete', path: '.status.conditions[?(@.type=="Complete")].status' },
    { name: 'JobSucceeded', path: '.status.succeeded' },
  ],
  '/v1/Pod': [
    { name: 'PodReady', path: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'PodPhase', path: '.status.phase' },
  ],
};

/** The WellKnownStatus paths of a kind (GetPathsByKind): Deployment, DaemonSet, Job and Pod only. */
export function wellKnownStatusPaths(group: string, version: string, kind: string): readonly JsonPath[] {
  return WELL_KNOWN[`${group}/${version}/${kind}`] ?? [];
}

export interface FeedbackOptions {
  /** The spoke gate RawFeedbackJsonString: report maps and lists as JsonRaw instead of failing. */
  rawJson?: boolean;
  maxJsonRawLength?: number;
}

/**
 * Values for the rules, with the StatusFeedbackSynced condition:
 * - no rules: no values, True NoStatusFeedbackSynced;
 * - any path failing (a map or list without rawJson, a float, a bad path, an unknown kind for
 *   WellKnownStatus, a version mismatch): False StatusFeedbackSyncFailed with OCM's aggregated message,
 *   and the values that did resolve;
 * - otherwise True StatusFeedbackSynced (also when a path found nothing).
 * With no live object OCM computes no feedback at all: no values and no condition (the shell keeps both).
 */
export function statusFeedback(
  target: { group: string; kind: string; version?: string },
  live: KubeObject | undefined,
  rules: readonly FeedbackRule[],
  opts: FeedbackOptions = {},
): FeedbackResult {
  if (!live) return { values: [] };
  if (rules.length === 0) {
    return {
      values: [],
      condition: {
        type: WorkCondition.StatusFeedbackSynced,
        status: 'True',
        reason: WorkReason.NoStatusFeedbackSynced,
        message: '',
      },
    };
  }
  const version = target.version ?? versionOf(live.apiVersion);
  const values: FeedbackValue[] = [];
  const errors: string[] = [];
  for (const rule of rules) {
    if (rule.type === 'WellKnownStatus') {
      const paths = wellKnownStatusPaths(target.group, version, target.kind);
      if (paths.length === 0) {
        errors.push(
          `cannot find the wellknown statuses for resource with gvk ${target.group}/${version}, Kind=${target.kind}`,
        );
        continue;
      }
      for (const p of paths) collect(p.name, p.path, live, opts, values, errors);
    } else if (rule.type === 'JSONPaths') {
      for (const p of rule.jsonPaths ?? []) {
        if (p.version && p.version !== version) {
          errors.push(`version set in the path ${p.name} is not matched for the related resource`);
          continue;
        }
        collect(p.name, p.path, live, opts, values, errors);
      }
    }
  }
  if (errors.length > 0) {
    return {
      values,
      condition: {
        type: WorkCondition.StatusFeedbackSynced,
        status: 'False',
        reason: WorkReason.StatusFeedbackSyncFailed,
        message: `Sync status feedback failed with error ${aggregate(errors)}`,
      },
    };
  }
  return {
    values,
    condition: {
      type: WorkCondition.StatusFeedbackSynced,
      status: 'True',
      reason: WorkReason.StatusFeedbackSynced,
      message: '',
    },
  };
}

function collect(
  name: string,
  path: string,
  obj: KubeObject,
  opts: FeedbackOptions,
  values: FeedbackValue[],
  errors: string[],
): void {
  let results: unknown[];
  try {
    results = findJsonPath(obj, parseJsonPath(path));
  } catch (err) {
    const reason = err instanceof JsonPathError ? err.message : String(err);
    errors.push(`failed to parse json path ${path} of ${name} with error: ${reason}`);
    return;
  }
  if (results.length === 0) return;
  // One result is the value; several (a filter matching more than one item) are a list.
  const value = results.length === 1 ? results[0] : results;
  if (value === null || value === undefined) return;
  if (typeof value === 'number' && Number.isInteger(value)) {
    values.push({ name, fieldValue: { type: 'Integer', integer: value } });
  } else if (typeof value === 'string') {
    values.push({ name, fieldValue: { type: 'String', string: value } });
  } else if (typeof value === 'boolean') {
    values.push({ name, fieldValue: { type: 'Boolean', boolean: value } });
  } else if (opts.rawJson) {
    const raw = goJson(value);
    const max = opts.maxJsonRawLength ?? DEFAULT_MAX_JSON_RAW_LENGTH;
    if (raw.length > max) {
      errors.push(
        `the length of returned json raw string for name ${name} is larger than the maximum length ${max}`,
      );
      return;
    }
    values.push({ name, fieldValue: { type: 'JsonRaw', jsonRaw: raw } });
  } else {
    errors.push(`the type ${goTypeName(value)} of the value for ${name} is not found`);
  }
}

function versionOf(apiVersion: string | undefined): string {
  const v = apiVersion ?? '';
  const slash = v.lastIndexOf('/');
  return slash < 0 ? v : v.slice(slash + 1);
}

/** reflect.TypeOf of a value decoded into interface{}. */
function goTypeName(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (typeof value === 'number') return 'float64';
  return 'map[string]interface {}';
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several deduplicated in brackets. */
function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}

/** encoding/json Marshal: sorted keys, no spaces, <, > and & escaped. */
export function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}
