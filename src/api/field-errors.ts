// Kubernetes-style field errors (k8s.io/apimachinery/pkg/util/validation/field), so
// validation messages read exactly like the API server's and KubeFed's webhooks'.

export type FieldErrorType = 'Required' | 'Invalid' | 'NotSupported' | 'Duplicate' | 'Forbidden';

export type FieldValue = string | number | boolean | null | readonly unknown[] | Record<string, unknown>;

export interface FieldError {
  /** Dotted path, e.g. `spec.clusterHealthCheck.period` or `spec.featureGates[0].name`. */
  field: string;
  type: FieldErrorType;
  /** The detail after the value; may be empty. */
  message: string;
  /** The offending value, printed for Invalid, NotSupported and Duplicate. */
  value?: FieldValue;
}

const TYPE_LABEL: Record<FieldErrorType, string> = {
  Required: 'Required value',
  Invalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  Duplicate: 'Duplicate value',
  Forbidden: 'Forbidden',
};

export function required(field: string, message = ''): FieldError {
  return { field, type: 'Required', message };
}

export function invalid(field: string, value: FieldValue, message: string): FieldError {
  return { field, type: 'Invalid', message, value };
}

export function notSupported(field: string, value: FieldValue, supported: readonly string[]): FieldError {
  const message =
    supported.length > 0 ? `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}` : '';
  return { field, type: 'NotSupported', message, value };
}

export function duplicate(field: string, value: FieldValue): FieldError {
  return { field, type: 'Duplicate', message: '', value };
}

export function forbidden(field: string, message: string): FieldError {
  return { field, type: 'Forbidden', message };
}

/** Go prints strings with %q, simple scalars bare, nil as "null". */
function formatValue(value: FieldValue | undefined): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** One error as `field: Type value: value: message`, like field.Error.Error(). */
export function formatFieldError(err: FieldError): string {
  let body = TYPE_LABEL[err.type];
  if (err.type !== 'Required' && err.type !== 'Forbidden') body += `: ${formatValue(err.value)}`;
  if (err.message !== '') body += `: ${err.message}`;
  return `${err.field}: ${body}`;
}

/**
 * All errors as one string, like ErrorList.ToAggregate().Error(): a single error is
 * printed alone, several as `[a, b]`; repeated messages are printed once.
 */
export function formatFieldErrors(errs: readonly FieldError[]): string {
  const msgs = [...new Set(errs.map(formatFieldError))];
  if (msgs.length === 0) return '';
  if (msgs.length === 1) return msgs[0]!;
  return `[${msgs.join(', ')}]`;
}
