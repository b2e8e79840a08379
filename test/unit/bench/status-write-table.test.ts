import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { msPerRequest, renderStatusWriteTable, type WriteRound } from '../../../bench/status-write-table.ts';

const round = (
  write: WriteRound['write'],
  qps: number,
  requests: number,
  cpuSeconds: number,
): WriteRound => ({
  write,
  qps,
  requests,
  cpuSeconds,
});

describe('status-write table', () => {
  test('CPU ms per request pools the rounds of one write and rate, and is undefined without any', () => {
    const rounds = [
      round('status PUT', 0, 1000, 2),
      round('status PUT', 0, 1000, 3),
      round('status PUT', 50, 1000, 6),
      round('create', 0, 500, 1),
    ];
    assert.equal(msPerRequest(rounds, 'status PUT', 0), 2.5);
    assert.equal(msPerRequest(rounds, 'status PUT', 50), 6);
    assert.equal(msPerRequest(rounds, 'create', 0), 2);
    assert.equal(msPerRequest(rounds, 'status merge PATCH', 0), undefined);
  });

  test('rows give each write against the create at the first rate and each rate against the first', () => {
    const rounds = [
      round('create', 0, 1000, 1.5),
      round('create', 50, 1000, 4.5),
      round('status PUT', 0, 1000, 3),
      round('status PUT', 50, 1000, 6),
    ];
    const lines = renderStatusWriteTable(rounds, [0, 50]).split('\n');
    assert.match(
      lines[0] ?? '',
      /\| Write \| .*burst \| .*50 QPS \| ÷ create \(burst\) \| 50 QPS ÷ burst \|/,
    );
    assert.equal(lines[2], '| create | 1.50 | 4.50 | 1.00× | 3.00× |');
    assert.equal(lines[3], '| status PUT | 3.00 | 6.00 | 2.00× | 2.00× |');
    // Not measured: dashes, not zeros or NaN.
    assert.equal(lines[4], '| status merge PATCH | – | – | – | – |');
  });

  test('no rates, no table', () => {
    assert.equal(renderStatusWriteTable([round('create', 0, 1, 1)], []), '');
  });
});
