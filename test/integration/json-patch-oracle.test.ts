// kubefed-ts's JSON patch (src/propagation/json-patch.ts) against the library KubeFed v0.10 applies overrides
// with, evanphx/json-patch v4.12.0 itself: hack/json-patch-oracle is built from the Go module proxy and both
// apply the same generated patches. Every outcome must match: the resulting document, or the error message.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../src/paths.ts';
import { applyJsonPatch } from '../../src/propagation/json-patch.ts';
import { operationsFromRaw } from '../../src/testing/json-patch-operations.ts';

const LIBRARY_VERSION = 'v4.12.0';

/** Builds the oracle once per library version into the cache, like the other test tools. */
function oracle(): string {
  const root =
    process.env.KUBEFED_TS_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubefed-ts');
  const dir = join(root, `json-patch-oracle-${LIBRARY_VERSION}`);
  const bin = join(dir, 'json-patch-oracle');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('go', ['build', '-trimpath', '-o', bin, '.'], {
      cwd: join(REPO_ROOT, 'hack', 'json-patch-oracle'),
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  return bin;
}

type Raw = Record<string, unknown>;

/** A small deterministic generator (an LCG), so a failure names a case that can be run again. */
function generator(seed: number) {
  let state = seed;
  const int = (n: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state % n;
  };
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  const KEYS = ['a', 'b', 'c', 'x/y', 'd~', ''];
  const TOKENS = [
    'a',
    'b',
    'c',
    'x~1y',
    'd~0',
    'e~2',
    '',
    '0',
    '1',
    '2',
    '-',
    '-1',
    '-2',
    '-4',
    '01',
    '+1',
    '-0',
    'x',
    '1.0',
    '99999999999999999999',
  ];
  const value = (depth: number): unknown => {
    switch (int(depth > 2 ? 5 : 8)) {
      case 0:
        return null;
      case 1:
        return int(10);
      case 2:
        return `s${int(3)}`;
      case 3:
        return int(2) === 0;
      case 4:
        return 1.5;
      case 5:
      case 6: {
        const o: Raw = {};
        for (let i = int(4); i > 0; i--) o[pick(KEYS)] = value(depth + 1);
        return o;
      }
      default:
        return Array.from({ length: int(4) }, () => value(depth + 1));
    }
  };
  const path = (): string => {
    let p = '';
    for (let i = int(4); i > 0; i--) p += `/${pick(TOKENS)}`;
    return int(20) === 0 ? p.slice(1) : p;
  };
  const operation = (): Raw => {
    const op: Raw = { op: pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'merge']) };
    if (int(15) > 0) op.path = path();
    if (int(2) === 0) op.from = path();
    if (int(4) > 0) op.value = value(1);
    return op;
  };
  return (): { doc: Raw; patch: Raw[] } => {
    const doc: Raw = {};
    for (let i = int(4); i >= 0; i--) doc[pick(KEYS)] = value(0);
    return { doc, patch: Array.from({ length: 1 + int(3) }, operation) };
  };
}

/** JSON with object keys sorted, so documents compare by content (Go marshals maps in key order). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

test(`applyJsonPatch agrees with evanphx/json-patch ${LIBRARY_VERSION} on 20,000 generated patches`, () => {
  const next = generator(20261201);
  const cases = Array.from({ length: 20_000 }, next);
  const expected = JSON.parse(
    execFileSync(oracle(), { input: JSON.stringify(cases), maxBuffer: 1 << 28, encoding: 'utf8' }),
  ) as { result?: unknown; error?: string; panic?: string }[];
  assert.equal(expected.length, cases.length);
  let compared = 0;
  for (const [i, c] of cases.entries()) {
    const want = expected[i]!;
    // Where the library dereferences a nil value it panics (KubeFed's controller would crash); nothing to match.
    if (want.panic !== undefined) continue;
    let got: { result?: unknown; error?: string };
    try {
      got = { result: applyJsonPatch(c.doc, operationsFromRaw(c.patch)) };
    } catch (e) {
      got = { error: (e as Error).message };
    }
    const what = `case ${i}: ${JSON.stringify(c)}`;
    if (want.error !== undefined) assert.equal(got.error, want.error, what);
    else assert.equal(canonical(got.result), canonical(want.result), what);
    compared++;
  }
  // Most generated patches must be comparable, or the generator tests nothing.
  assert.ok(compared > cases.length / 2, `only ${compared} comparable cases`);
});
