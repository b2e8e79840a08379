// KubeFedCluster validation with the rules, paths and messages of KubeFed's ValidateKubeFedCluster
// (pkg/apis/core/v1beta1/validation): spec rules for the object, condition rules for `status`.

import {
  ClusterConditionType,
  ConditionStatus,
  TLSValidation,
} from '../../api/core/v1beta1/kubefedcluster.ts';
import { type FieldError, invalid, notSupported, required } from '../../api/field-errors.ts';
import { dns1123SubdomainErrors, portNumErrors } from '../../kube/validation.ts';
import { ClusterConfigError, parseApiEndpoint } from '../../members/cluster-config.ts';
import { asFieldValue, enumErrors, isMissing, isPlainObject, objectAt, stringAt } from './common.ts';
import { joinMessages } from './k8s-strings.ts';

const TLS_VALIDATIONS = [TLSValidation.All, TLSValidation.SubjectName, TLSValidation.ValidityPeriod];
const CONDITION_TYPES = [
  ClusterConditionType.Ready,
  ClusterConditionType.Offline,
  ClusterConditionType.ConfigMalformed,
];
const CONDITION_STATUSES = [ConditionStatus.True, ConditionStatus.False, ConditionStatus.Unknown];
const PROXY_SCHEMES = ['http', 'https', 'socks5'];

/**
 * Validates a KubeFedCluster. For the `status` subresource only the status conditions are checked,
 * otherwise only the spec, as KubeFed does.
 */
export function validateKubeFedCluster(
  obj: unknown,
  opts: { statusSubresource?: boolean } = {},
): FieldError[] {
  const errs: FieldError[] = [];
  const root = isPlainObject(obj) ? obj : {};
  if (opts.statusSubresource) {
    const status = objectAt(errs, 'status', root['status']);
    if (status) validateStatus(errs, status);
    return errs;
  }
  const spec = objectAt(errs, 'spec', root['spec']);
  if (!spec) return errs;
  errs.push(...apiEndpointErrors('spec.apiEndpoint', spec['apiEndpoint']));
  // A Pull cluster has no member credential on the hub: its agent dials in (kubefed-ts addition, Karmada's syncMode).
  const pull = spec['syncMode'] === 'Pull';
  const secretRef =
    pull && spec['secretRef'] === undefined ? undefined : objectAt(errs, 'spec.secretRef', spec['secretRef']);
  if (secretRef) {
    const name = stringAt(errs, 'spec.secretRef.name', secretRef['name']);
    if (name === '') errs.push(required('spec.secretRef.name'));
    else if (name !== undefined) {
      const msgs = dns1123SubdomainErrors(name);
      if (msgs.length > 0) errs.push(invalid('spec.secretRef.name', name, joinMessages(msgs)));
    }
  }
  errs.push(...disabledTLSValidationsErrors('spec.disabledTLSValidations', spec['disabledTLSValidations']));
  errs.push(...proxyUrlErrors('spec.proxyURL', spec['proxyURL']));
  return errs;
}

function validateStatus(errs: FieldError[], status: Record<string, unknown>): void {
  const conditions = status['conditions'];
  if (isMissing(conditions)) return;
  if (!Array.isArray(conditions)) {
    errs.push(invalid('status.conditions', asFieldValue(conditions), 'must be a list'));
    return;
  }
  conditions.forEach((c: unknown, i) => {
    const path = `status.conditions[${i}]`;
    const cond = objectAt(errs, path, c);
    if (!cond) return;
    errs.push(...enumErrors(`${path}.type`, cond['type'], CONDITION_TYPES));
    errs.push(...enumErrors(`${path}.status`, cond['status'], CONDITION_STATUSES));
    const probe = cond['lastProbeTime'];
    if (isMissing(probe) || probe === '') errs.push(required(`${path}.lastProbeTime`));
  });
}

/** Scheme and port of an endpoint as Go's url.Parse sees them, before any normalisation. */
function splitEndpoint(endpoint: string): { scheme: string; port: string } {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(endpoint);
  const scheme = m ? m[1]!.toLowerCase() : '';
  const rest = m ? endpoint.slice(m[0].length) : endpoint;
  let authority = rest.split(/[/?#]/, 1)[0] ?? '';
  authority = authority.slice(authority.lastIndexOf('@') + 1);
  // An IPv6 literal is bracketed: only a colon after the bracket starts the port.
  const hostEnd = authority.startsWith('[') ? authority.indexOf(']') : 0;
  const colon = authority.indexOf(':', Math.max(hostEnd, 0));
  return { scheme, port: colon < 0 ? '' : authority.slice(colon + 1) };
}

/**
 * KubeFed's validateAPIEndpoint: required; scheme http or https; the port in range; and parsable the
 * way the controllers parse it (parseApiEndpoint), so that nothing accepted here later becomes
 * ConfigMalformed for its endpoint.
 */
function apiEndpointErrors(path: string, value: unknown): FieldError[] {
  if (isMissing(value) || value === '') return [required(path)];
  if (typeof value !== 'string') return [invalid(path, asFieldValue(value), 'must be a string')];
  const errs: FieldError[] = [];
  const { scheme, port } = splitEndpoint(value);
  if (scheme !== '' && scheme !== 'http' && scheme !== 'https') {
    errs.push(notSupported(path, scheme, ['http', 'https']));
  }
  if (/^\d+$/.test(port)) {
    const n = Number(port);
    const portErrs = portNumErrors(n);
    if (portErrs.length > 0) errs.push(invalid(path, n, joinMessages(portErrs)));
  }
  if (errs.length > 0) return errs;
  try {
    parseApiEndpoint(value);
  } catch (e) {
    if (!(e instanceof ClusterConfigError)) throw e;
    // The controllers' message names the endpoint; the field error already shows it as the value.
    const named = `apiEndpoint ${JSON.stringify(value)}`;
    const prefix = [`${named}: `, `${named} `].find((p) => e.message.startsWith(p)) ?? '';
    const message = e.message.slice(prefix.length);
    return [invalid(path, value, message)];
  }
  return [];
}

/** Each value from the enum (reported at the list's path, as KubeFed does); `*` only alone. */
function disabledTLSValidationsErrors(path: string, value: unknown): FieldError[] {
  if (isMissing(value)) return [];
  if (!Array.isArray(value)) return [invalid(path, asFieldValue(value), 'must be a list')];
  const errs: FieldError[] = [];
  for (const v of value) errs.push(...enumErrors(path, v, TLS_VALIDATIONS));
  if (value.includes(TLSValidation.All) && value.length > 1) {
    errs.push(invalid(path, value, 'when * is specified, it is expected to be the only option in list'));
  }
  return errs;
}

/** Optional; when set, a URL with scheme http, https or socks5 (KubeFed's validateProxyURL). */
function proxyUrlErrors(path: string, value: unknown): FieldError[] {
  if (isMissing(value) || value === '') return [];
  if (typeof value !== 'string') return [invalid(path, asFieldValue(value), 'must be a string')];
  const schemeError = invalid(path, value, 'proxy URL scheme must be one of: [http, https, socks5]');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Go's url.Parse takes a value without a scheme ("proxy.example.com") as a bare path, so KubeFed
    // reports the scheme; only a value with a scheme can fail to parse there.
    return [
      /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value)
        ? invalid(path, value, 'error parsing the proxy URL')
        : schemeError,
    ];
  }
  if (!PROXY_SCHEMES.includes(url.protocol.slice(0, -1))) return [schemeError];
  return [];
}
