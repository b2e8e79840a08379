// The part of kubectl's JSONPath (k8s.io/client-go/util/jsonpath, used with AllowMissingKeys) that OCM's
// status feedback and SSA ignoreFields paths use: `.field`, `['field']`, `[n]` (negative from the end), `[*]`,
// and filters `[?(@.a.b == "x")]` with ==, !=, <, <=, >, >= or a bare `[?(@.a)]` existence test. A missing key
// or an index out of range gives no result, as AllowMissingKeys does. Recursive descent (`..`), unions,
// slices and `range` templates are not supported: they are a parse error here.

export class JsonPathError extends Error {}

type Literal = string | number | boolean | null;
type Segment =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Segment[]; op?: string; value?: Literal };

/** Parses a path such as `.status.conditions[?(@.type=="Ready")].status`; `{...}` around it is allowed. */
export function parseJsonPath(path: string): Segment[] {
  let text = path.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  const parser = new Parser(text);
  const segments = parser.segments(false);
  if (!parser.done())
    throw new JsonPathError(`unrecognized character in action: ${JSON.stringify(parser.rest())}`);
  return segments;
}

/** Every value `path` reaches in `root`, in document order. */
export function findJsonPath(root: unknown, path: Segment[]): unknown[] {
  let nodes: unknown[] = [root];
  for (const segment of path) {
    const next: unknown[] = [];
    for (const node of nodes) step(node, segment, next);
    nodes = next;
  }
  return nodes;
}

function step(node: unknown, segment: Segment, out: unknown[]): void {
  switch (segment.kind) {
    case 'field':
      if (isObject(node) && Object.hasOwn(node, segment.name)) out.push(node[segment.name]);
      return;
    case 'index': {
      if (!Array.isArray(node)) return;
      const i = segment.index < 0 ? node.length + segment.index : segment.index;
      if (i >= 0 && i < node.length) out.push(node[i]);
      return;
    }
    case 'all':
      if (Array.isArray(node)) out.push(...node);
      else if (isObject(node)) out.push(...Object.values(node));
      return;
    case 'filter':
      if (!Array.isArray(node)) return;
      for (const item of node) if (matches(item, segment)) out.push(item);
  }
}

function matches(item: unknown, filter: Extract<Segment, { kind: 'filter' }>): boolean {
  const found = findJsonPath(item, filter.path);
  if (filter.op === undefined) return found.length > 0;
  if (found.length === 0) return false;
  const left = found[0];
  const right = filter.value;
  switch (filter.op) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    default: {
      if (typeof left !== typeof right || (typeof left !== 'number' && typeof left !== 'string'))
        return false;
      const l = left as number | string;
      const r = right as number | string;
      return filter.op === '<' ? l < r : filter.op === '<=' ? l <= r : filter.op === '>' ? l > r : l >= r;
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const NAME = /^[^.[\]\s()=!<>'"@]+/;

class Parser {
  private pos = 0;
  private readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  done(): boolean {
    return this.pos >= this.text.length;
  }
  rest(): string {
    return this.text.slice(this.pos);
  }

  /** Segments until the end (or, inside a filter, until an operator or `)`). */
  segments(inFilter: boolean): Segment[] {
    const out: Segment[] = [];
    // A leading bare name (`status.x`) reads like `.status.x`.
    if (!inFilter && !this.done() && this.text[this.pos] !== '.' && this.text[this.pos] !== '[') {
      out.push({ kind: 'field', name: this.name() });
    }
    while (!this.done()) {
      const c = this.text[this.pos];
      if (c === '.') {
        if (this.text[this.pos + 1] === '.')
          throw new JsonPathError('recursive descent (..) is not supported');
        this.pos++;
        if (this.text[this.pos] === '*') {
          this.pos++;
          out.push({ kind: 'all' });
        } else out.push({ kind: 'field', name: this.name() });
      } else if (c === '[') {
        out.push(this.bracket());
      } else if (inFilter) {
        break;
      } else {
        throw new JsonPathError(`unrecognized character in action: ${JSON.stringify(this.rest())}`);
      }
    }
    return out;
  }

  private name(): string {
    const m = NAME.exec(this.rest());
    if (!m) throw new JsonPathError(`invalid field name at ${JSON.stringify(this.rest())}`);
    this.pos += m[0].length;
    return m[0];
  }

  private bracket(): Segment {
    this.pos++; // [
    this.skipSpaces();
    let segment: Segment;
    const c = this.text[this.pos];
    if (c === '*') {
      this.pos++;
      segment = { kind: 'all' };
    } else if (c === "'" || c === '"') {
      segment = { kind: 'field', name: this.quoted() };
    } else if (c === '?') {
      segment = this.filter();
    } else {
      const m = /^-?\d+/.exec(this.rest());
      if (!m) throw new JsonPathError(`unsupported array subscript at ${JSON.stringify(this.rest())}`);
      this.pos += m[0].length;
      segment = { kind: 'index', index: Number(m[0]) };
    }
    this.skipSpaces();
    if (this.text[this.pos] !== ']')
      throw new JsonPathError(`unterminated array subscript at ${JSON.stringify(this.rest())}`);
    this.pos++;
    return segment;
  }

  private filter(): Segment {
    this.pos++; // ?
    if (this.text[this.pos] !== '(') throw new JsonPathError('a filter must be written [?(...)]');
    this.pos++;
    this.skipSpaces();
    if (this.text[this.pos] !== '@') throw new JsonPathError('a filter must start with @');
    this.pos++;
    const path = this.segments(true);
    this.skipSpaces();
    let op: string | undefined;
    let value: Literal | undefined;
    const m = /^(==|!=|<=|>=|<|>)/.exec(this.rest());
    if (m) {
      op = m[0];
      this.pos += op.length;
      this.skipSpaces();
      value = this.literal();
      this.skipSpaces();
    }
    if (this.text[this.pos] !== ')')
      throw new JsonPathError(`unterminated filter at ${JSON.stringify(this.rest())}`);
    this.pos++;
    return { kind: 'filter', path, ...(op ? { op, value: value ?? null } : {}) };
  }

  private literal(): Literal {
    const c = this.text[this.pos];
    if (c === "'" || c === '"') return this.quoted();
    const m = /^(-?\d+(\.\d+)?|true|false|nil|null)/.exec(this.rest());
    if (!m) throw new JsonPathError(`invalid filter value at ${JSON.stringify(this.rest())}`);
    this.pos += m[0].length;
    if (m[0] === 'true') return true;
    if (m[0] === 'false') return false;
    if (m[0] === 'nil' || m[0] === 'null') return null;
    return Number(m[0]);
  }

  private quoted(): string {
    const quote = this.text[this.pos];
    const end = this.text.indexOf(quote as string, this.pos + 1);
    if (end < 0) throw new JsonPathError('unterminated quoted string');
    const value = this.text.slice(this.pos + 1, end);
    this.pos = end + 1;
    return value;
  }

  private skipSpaces(): void {
    while (this.text[this.pos] === ' ') this.pos++;
  }
}
