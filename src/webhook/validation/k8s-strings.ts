// The apimachinery string validators KubeFed's webhooks call (k8s.io/apimachinery/pkg/util/validation),
// with the same messages. Each returns the problems found, none when the value is valid.

export {
  dns1123SubdomainErrors,
  labelValueErrors,
  qualifiedNameErrors,
} from '../../propagation/label-selector.ts';

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const DNS1035_LABEL_MAX = 63;
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** validation.IsDNS1035Label. */
export function dns1035LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > DNS1035_LABEL_MAX)
    errs.push(`must be no more than ${DNS1035_LABEL_MAX} characters`);
  if (!DNS1035_LABEL_RE.test(value))
    errs.push(
      `${DNS1035_LABEL_MSG} (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL_FMT}')`,
    );
  return errs;
}

/** validation.IsValidPortNum. */
export function portNumErrors(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535
    ? []
    : ['must be between 1 and 65535, inclusive'];
}

/** KubeFed joins several messages about one value with a bare comma (strings.Join(errs, ",")). */
export const joinMessages = (msgs: readonly string[]): string => msgs.join(',');
