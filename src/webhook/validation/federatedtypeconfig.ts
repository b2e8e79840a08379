// FederatedTypeConfig validation with the rules, paths and messages of KubeFed's
// ValidateFederatedTypeConfig (pkg/apis/core/v1beta1/validation): the name rule and the spec for
// the object, only the status rules for the `status` subresource.

import {
  ControllerStatus,
  PropagationMode,
  StatusCollectionMode,
} from '../../api/core/v1beta1/federatedtypeconfig.ts';
import { ResourceScope } from '../../api/core/v1beta1/kubefedconfig.ts';
import { type FieldError, invalid, required } from '../../api/field-errors.ts';
import { groupQualifiedName } from '../../kube/client/index.ts';
import { dns1035LabelErrors, dns1123SubdomainErrors } from '../../kube/validation.ts';
import {
  asFieldValue,
  enumErrors,
  isMissing,
  isPlainObject,
  type JsonObject,
  objectAt,
  stringAt,
} from './common.ts';
import { joinMessages } from './k8s-strings.ts';

export const FTC_NAME_MESSAGE = "name must be 'TARGET_PLURAL_NAME(.TARGET_GROUP_NAME)'";
export const DOMAIN_WITH_A_DOT_MESSAGE = 'should be a domain with at least one dot';

const SCOPES = [ResourceScope.Cluster, ResourceScope.Namespaced];
const PROPAGATION = [PropagationMode.Enabled, PropagationMode.Disabled];
const STATUS_COLLECTION = [StatusCollectionMode.Enabled, StatusCollectionMode.Disabled];
const CONTROLLER_STATUS = [ControllerStatus.Running, ControllerStatus.NotRunning];

/** Validates an FTC; `statusSubresource` selects KubeFed's status-only rules. */
export function validateFederatedTypeConfig(
  obj: unknown,
  opts: { statusSubresource?: boolean } = {},
): FieldError[] {
  const root = isPlainObject(obj) ? obj : {};
  const errs: FieldError[] = [];
  if (opts.statusSubresource) {
    const status = objectAt(errs, 'status', root['status']);
    if (status) validateStatus(errs, status);
    return errs;
  }
  const spec = objectAt(errs, 'spec', root['spec']);
  errs.unshift(...nameErrors(root, spec));
  if (!spec) return errs;
  errs.push(...apiResourceErrors(spec['targetType'], 'spec.targetType'));
  errs.push(...enumErrors('spec.propagation', spec['propagation'], PROPAGATION));
  errs.push(...federatedApiResourceErrors(spec['federatedType'], 'spec.federatedType'));
  if (!isMissing(spec['statusType'])) {
    errs.push(...federatedApiResourceErrors(spec['statusType'], 'spec.statusType'));
  }
  if (!isMissing(spec['statusCollection'])) {
    errs.push(...enumErrors('spec.statusCollection', spec['statusCollection'], STATUS_COLLECTION));
  }
  return errs;
}

/** The name must be the target's group-qualified plural: `deployments.apps`, `configmaps`. */
function nameErrors(root: JsonObject, spec: JsonObject | undefined): FieldError[] {
  const meta = isPlainObject(root['metadata']) ? root['metadata'] : {};
  const name = typeof meta['name'] === 'string' ? meta['name'] : '';
  const target = isPlainObject(spec?.['targetType']) ? spec['targetType'] : {};
  const plural = typeof target['pluralName'] === 'string' ? target['pluralName'] : '';
  const group = typeof target['group'] === 'string' ? target['group'] : '';
  if (groupQualifiedName(plural, group) === name) return [];
  return [invalid('name', name, FTC_NAME_MESSAGE)];
}

/** ValidateFederatedAPIResource: the group is required and has a dot, then the APIResource rules. */
function federatedApiResourceErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const group = isPlainObject(value) ? value['group'] : undefined;
  if (isMissing(group) || group === '') errs.push(required(`${path}.group`));
  else if (typeof group === 'string' && group.split('.').length < 2) {
    errs.push(invalid(`${path}.group`, group, DOMAIN_WITH_A_DOT_MESSAGE));
  }
  errs.push(...apiResourceErrors(value, path));
  return errs;
}

/** ValidateAPIResource: group a DNS subdomain; version, kind (lower-cased) and plural DNS-1035 labels. */
function apiResourceErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const res = objectAt(errs, path, value);
  if (!res) return errs;
  const group = stringAt(errs, `${path}.group`, res['group']);
  if (group) {
    const msgs = dns1123SubdomainErrors(group);
    if (msgs.length > 0) errs.push(invalid(`${path}.group`, group, joinMessages(msgs)));
  }
  const label = (field: string, check: (s: string) => string = (s) => s) => {
    const v = stringAt(errs, `${path}.${field}`, res[field]);
    if (v === '') errs.push(required(`${path}.${field}`));
    else if (v !== undefined) {
      const msgs = dns1035LabelErrors(check(v));
      if (msgs.length > 0) errs.push(invalid(`${path}.${field}`, v, joinMessages(msgs)));
    }
  };
  label('version');
  label('kind', (k) => k.toLowerCase());
  label('pluralName');
  errs.push(...enumErrors(`${path}.scope`, res['scope'], SCOPES));
  return errs;
}

function validateStatus(errs: FieldError[], status: JsonObject): void {
  const gen = status['observedGeneration'];
  if (!isMissing(gen)) {
    if (typeof gen !== 'number' || !Number.isInteger(gen)) {
      errs.push(invalid('status.observedGeneration', asFieldValue(gen), 'must be an integer'));
    } else if (gen < 0) {
      errs.push(invalid('status.observedGeneration', gen, 'must be greater than or equal to 0'));
    }
  }
  errs.push(
    ...enumErrors('status.propagationController', status['propagationController'], CONTROLLER_STATUS),
  );
  if (!isMissing(status['statusController'])) {
    errs.push(...enumErrors('status.statusController', status['statusController'], CONTROLLER_STATUS));
  }
}
