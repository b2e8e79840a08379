// YAML written the way sigs.k8s.io/yaml's JSONToYAML writes it (go-yaml v2 Marshal): block style, sequences
// not indented under their key, map keys in go-yaml's "natural" order (sorter.go keyList.Less: runs of
// digits compare as numbers), multi-line strings as literal blocks, strings that would read back as another
// type double-quoted, other strings that cannot be plain single-quoted.

import { Document, isScalar, type Pair, Scalar, visit } from 'yaml';

/** go-yaml v2 resolve.go: the plain scalars that resolve to null, a bool or a special float. */
const RESERVED = new Set([
  '',
  '~',
  'null',
  'Null',
  'NULL',
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE'],
  ...['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE'],
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF', '.nan', '.NaN', '.NAN'],
]);
const GO_INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[0-9]+)$/;
const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]*)?(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?)?)?$/;

/** Whether go-yaml v2 would read the string back, unquoted, as something other than a string. */
export function resolvesToNonString(s: string): boolean {
  if (RESERVED.has(s) || BASE60_FLOAT.test(s) || TIMESTAMP.test(s)) return true;
  const c = s[0] ?? '';
  if (c === '.') return YAML_FLOAT.test(s);
  if (!/[-+0-9]/.test(c)) return false;
  const plain = s.replaceAll('_', '');
  return GO_INT.test(plain) || YAML_FLOAT.test(plain) || /^-0b[01]+$/.test(plain);
}

const isLetter = (c: string): boolean => /\p{L}/u.test(c);
const isDigit = (c: string): boolean => /\p{Nd}/u.test(c);

/** go-yaml v2 keyList.Less for two string keys. */
export function naturalLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10 + (ar[ai]!.codePointAt(0)! - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10 + (br[bi]!.codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

function keyText(p: Pair): string {
  const k = isScalar(p.key) ? p.key.value : p.key;
  return String(k);
}

/** A JSON value (objects, arrays, strings, numbers, booleans, null) as go-yaml v2 marshals it. */
export function stringifyYamlV2(value: unknown): string {
  const doc = new Document(value, {
    version: '1.1',
    sortMapEntries: (a, b) => {
      const x = keyText(a);
      const y = keyText(b);
      return naturalLess(x, y) ? -1 : naturalLess(y, x) ? 1 : 0;
    },
  });
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && !node.value.includes('\n') && resolvesToNonString(node.value))
        node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return doc.toString({
    indentSeq: false,
    singleQuote: true,
    blockQuote: 'literal',
    lineWidth: 80,
    minContentWidth: 0,
  });
}
