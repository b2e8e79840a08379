import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CommandError } from '../../../src/kubefedctl/errors.ts';
import {
  defaultPlanKey,
  offlineSource,
  parsePlanOutput,
  parseReplicaFlag,
  parseRspDocument,
  renderPlanTable,
  runPlan,
} from '../../../src/kubefedctl/plan.ts';

const RSP = `apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata:
  name: web
  namespace: demo
spec:
  targetKind: FederatedDeployment
  totalReplicas: 15
  clusters:
    "*": {weight: 2, maxReplicas: 12}
    ap-northeast: {minReplicas: 1, maxReplicas: 3, weight: 1}
`;
const CLUSTERS = ['ap-northeast', 'us-east', 'us-west'];

function run(
  text: string,
  opts: { key?: string; output?: 'json' | 'table'; current?: string[]; capacity?: string[] } = {},
) {
  let printed = '';
  const warnings: string[] = [];
  const result = runPlan({
    filename: 'rsp.yaml',
    source: offlineSource({ clusters: CLUSTERS, current: opts.current, capacity: opts.capacity }),
    key: opts.key,
    output: opts.output ?? 'table',
    out: (t) => {
      printed += t;
    },
    warn: (l) => warnings.push(l),
    readInput: () => text,
  });
  return { result, printed, warnings };
}

describe('kubefedctl plan flags', () => {
  test('--current/--capacity: CLUSTER=N lists, repeatable', () => {
    assert.deepEqual(parseReplicaFlag('--current', ['A=3,B=2', 'C=0'], ['A', 'B', 'C']), {
      A: 3,
      B: 2,
      C: 0,
    });
    assert.deepEqual(parseReplicaFlag('--current', [], ['A']), {});
    assert.deepEqual(parseReplicaFlag('--current', [' A = 3 , '], ['A']), { A: 3 });
  });

  test('--current/--capacity errors are one line each', () => {
    const err = (values: string[], re: RegExp) =>
      assert.throws(
        () => parseReplicaFlag('--capacity', values, ['A', 'B']),
        (e: unknown) => {
          assert.ok(e instanceof CommandError);
          assert.match(e.message, re);
          assert.ok(!e.message.includes('\n'));
          return true;
        },
      );
    err(['A'], /^--capacity: invalid entry "A": want CLUSTER=N$/);
    err(['=3'], /^--capacity: invalid entry "=3"/);
    err(['A=x'], /^--capacity: invalid count "x" for cluster "A": want a non-negative integer$/);
    err(['A=-1'], /invalid count "-1"/);
    err(['A=1.5'], /invalid count "1.5"/);
    err(['A=1,A=2'], /^--capacity: cluster "A" is given more than once$/);
    err(['Z=1'], /^--capacity: cluster "Z" is not in --clusters$/);
  });

  test('--clusters is required, without duplicates or "*"', () => {
    assert.throws(() => offlineSource({}), /--clusters is required/);
    assert.throws(() => offlineSource({ clusters: ['A', 'A'] }), /cluster "A" is given more than once/);
    assert.throws(() => offlineSource({ clusters: ['*'] }), /"\*" is not a cluster name/);
    assert.deepEqual(offlineSource({ clusters: [] }), { clusters: [], current: {}, capacity: {} });
  });

  test('-o accepts json and table only', () => {
    assert.equal(parsePlanOutput(undefined), 'table');
    assert.equal(parsePlanOutput('json'), 'json');
    assert.throws(() => parsePlanOutput('yaml'), /invalid output format "yaml"/);
  });
});

describe('kubefedctl plan input', () => {
  test('the default key is metadata.namespace/name, with an empty namespace when absent', () => {
    assert.equal(defaultPlanKey({ metadata: { name: 'web', namespace: 'demo' } }), 'demo/web');
    assert.equal(defaultPlanKey({ metadata: { name: 'web' } }), '/web');
  });

  test('exactly one RSP document; another kind is refused', () => {
    assert.equal(parseRspDocument(`---\n${RSP}---\n`, 'f').metadata.name, 'web');
    assert.throws(
      () => parseRspDocument(`${RSP}---\n${RSP}`, 'f'),
      /f: expected one ReplicaSchedulingPreference, found 2 documents$/,
    );
    assert.throws(() => parseRspDocument('', 'f'), /found 0 documents/);
    assert.throws(
      () => parseRspDocument('kind: Deployment\n', 'f'),
      /kind "Deployment" is not ReplicaSchedulingPreference/,
    );
    assert.throws(() => parseRspDocument('a: [\n', 'f'), /CommandError: f: /);
  });

  test('JSON files work too (YAML is a superset)', () => {
    const json = JSON.stringify({
      metadata: { name: 'x' },
      spec: { targetKind: 'FederatedReplicaSet', totalReplicas: 2 },
    });
    const { result } = run(json, { output: 'json' });
    assert.equal(
      Object.values(result.plan).reduce((a, b) => a + b, 0),
      2,
    );
  });
});

describe('runPlan', () => {
  test('json: the issue 4 example', () => {
    const { printed, warnings } = run(RSP, { output: 'json' });
    assert.deepEqual(JSON.parse(printed), {
      plan: { 'ap-northeast': 3, 'us-east': 6, 'us-west': 6 },
      overflow: {},
    });
    assert.deepEqual(warnings, []);
  });

  test('table: header, one row per cluster, a total row', () => {
    const { printed } = run(RSP);
    const lines = printed.trimEnd().split('\n');
    assert.equal(lines.length, 5);
    assert.match(
      lines[0]!,
      /^CLUSTER\s+WEIGHT\s+MIN\s+MAX\s+CURRENT\s+CAPACITY\s+PLANNED\s+OVERFLOW\s+REASON$/,
    );
    assert.match(
      lines[1]!,
      /^ap-northeast\s+1\s+1\s+3\s+-\s+-\s+3\s+0\s+minimum 1, weighted share, at max 3$/,
    );
    assert.match(lines[2]!, /^us-east\s+2\s+0\s+12\s+-\s+-\s+6\s+0\s+weighted share$/);
    assert.match(lines[4]!, /^TOTAL\s+15\s+0\s+15 of 15 replicas planned$/);
    // Columns line up: every row starts its PLANNED column at the same offset.
    const at = lines[0]!.indexOf('PLANNED');
    assert.equal(lines[1]!.slice(at).split(/\s+/)[0], '3');
    assert.equal(lines[4]!.slice(at).split(/\s+/)[0], '15');
  });

  test('table total line mentions unplaced replicas and overflow', () => {
    const text = renderPlanTable(
      [{ cluster: 'a', weight: 1, min: 0, max: 2, capacity: 1, planned: 1, overflow: 1, reason: 'r' }],
      5,
    );
    assert.match(
      text,
      /TOTAL\s+1\s+1\s+1 of 5 replicas planned, 4 not placed; overrides sum to 2 \(planned \+ overflow\)/,
    );
  });

  test('current and capacity reach the planner', () => {
    const { printed } = run(RSP.replace('totalReplicas: 15', 'totalReplicas: 30'), {
      output: 'json',
      current: ['us-east=12'],
      capacity: ['us-west=4'],
    });
    const out = JSON.parse(printed) as { plan: Record<string, number>; overflow: Record<string, number> };
    assert.equal(out.plan['us-west'], 4);
    assert.equal(out.plan['us-east'], 12);
  });

  test('--key overrides the default, and an empty key is valid', () => {
    const single = RSP.replace('totalReplicas: 15', 'totalReplicas: 1').replace(
      / {2}clusters:\n.*\n.*\n/,
      '',
    );
    const winner = (key?: string) => {
      const { result } = run(single, { key, output: 'json' });
      return Object.keys(result.plan).find((c) => result.plan[c] === 1);
    };
    // Lowest FNV-1 of name + key wins the single replica (orders checked with an independent FNV-1).
    assert.equal(winner(''), 'us-east');
    assert.equal(winner('demo/web'), 'us-west');
    assert.equal(winner(undefined), 'us-west');
  });

  test('no namespace in the file: a warning about the key', () => {
    const { warnings } = run(RSP.replace('  namespace: demo\n', ''), { output: 'json' });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /tie-break key is "\/web"; pass --key NAMESPACE\/NAME/);
  });

  test('no name and no --key: an error', () => {
    assert.throws(() => run(RSP.replace('  name: web\n', '')), /metadata.name is missing; pass --key/);
    assert.doesNotThrow(() => run(RSP.replace('  name: web\n', ''), { key: 'x/y' }));
  });

  test('an invalid RSP is one error line with every problem', () => {
    const bad = RSP.replace('FederatedDeployment', 'FederatedReplicaset').replace(
      'totalReplicas: 15',
      'totalReplicas: -1',
    );
    assert.throws(
      () => run(bad),
      (e: unknown) => {
        assert.ok(e instanceof CommandError);
        assert.equal(
          e.message,
          'ReplicaSchedulingPreference "web" is invalid: [spec.targetKind: Unsupported value: "FederatedReplicaset": ' +
            'supported values: "FederatedDeployment", "FederatedReplicaSet", ' +
            'spec.totalReplicas: Invalid value: -1: must be greater than or equal to 0]',
        );
        return true;
      },
    );
  });

  test('an unreadable file', () => {
    assert.throws(
      () =>
        runPlan({
          filename: '/nonexistent/rsp.yaml',
          source: offlineSource({ clusters: ['a'] }),
          output: 'json',
          out: () => {},
        }),
      /Failed to read file "\/nonexistent\/rsp.yaml": /,
    );
  });
});
