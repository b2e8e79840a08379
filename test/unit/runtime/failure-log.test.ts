import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { ApiError, TransportError } from '../../../src/kube/client/errors.ts';
import { KubeconfigError } from '../../../src/kube/kubeconfig/errors.ts';
import { ClusterConfigError } from '../../../src/members/cluster-config.ts';
import {
  classifyFailure,
  FailureLogLimiter,
  failureCluster,
  logFailure,
  ReportedFailure,
} from '../../../src/runtime/failure-log.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

const api = (statusCode: number, reason = '') =>
  new ApiError({ statusCode, reason, message: `HTTP ${statusCode}`, method: 'GET', path: '/api/v1/pods' });
const sysError = (message: string, code: string) => Object.assign(new Error(message), { code });
const transport = (cause: unknown) => new TransportError('GET', 'https://m:6443/api', cause);

describe('classifyFailure (pure): expected member failures by kind, anything else a bug', () => {
  test('answers from an API server, by status code', () => {
    assert.equal(classifyFailure(api(429)), 'throttled');
    assert.equal(classifyFailure(api(409, 'Conflict')), 'conflict');
    assert.equal(classifyFailure(api(409, 'AlreadyExists')), 'conflict');
    assert.equal(classifyFailure(api(500)), 'server-error');
    assert.equal(classifyFailure(api(503)), 'server-error');
    assert.equal(classifyFailure(api(404)), 'not-found');
    assert.equal(classifyFailure(api(401)), 'denied');
    assert.equal(classifyFailure(api(403)), 'denied');
    assert.equal(classifyFailure(api(422, 'Invalid')), 'rejected');
    assert.equal(classifyFailure(api(410, 'Expired')), 'rejected');
  });

  test('no answer: refused, reset or closed is unreachable; a deadline is a timeout', () => {
    assert.equal(
      classifyFailure(transport(sysError('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'))),
      'unreachable',
    );
    assert.equal(classifyFailure(transport(sysError('other side closed', 'UND_ERR_SOCKET'))), 'unreachable');
    assert.equal(classifyFailure(transport(new Error('self-signed certificate'))), 'unreachable');
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    assert.equal(classifyFailure(transport(timeout)), 'timeout');
    assert.equal(
      classifyFailure(transport(sysError('Connect Timeout Error', 'UND_ERR_CONNECT_TIMEOUT'))),
      'timeout',
    );
    // Raw errors of a stream that broke before anything wrapped them.
    assert.equal(classifyFailure(sysError('read ECONNRESET', 'ECONNRESET')), 'unreachable');
    assert.equal(classifyFailure(sysError('timed out', 'ETIMEDOUT')), 'timeout');
  });

  test('configuration and already-reported failures are expected; exceptions are bugs', () => {
    assert.equal(classifyFailure(new ClusterConfigError('secret "s" not found')), 'config');
    assert.equal(classifyFailure(new KubeconfigError('Invalid', 'bad server')), 'config');
    assert.equal(
      classifyFailure(new ReportedFailure('member operations failed: c2: UpdateFailed')),
      'reported',
    );
    assert.equal(
      classifyFailure(new TypeError("Cannot read properties of undefined (reading 'x')")),
      undefined,
    );
    assert.equal(classifyFailure(new Error('boom')), undefined);
    assert.equal(
      classifyFailure(Object.assign(new Error('bad arg'), { code: 'ERR_INVALID_ARG_TYPE' })),
      undefined,
    );
    assert.equal(classifyFailure('a string'), undefined);
    assert.equal(classifyFailure(undefined), undefined);
  });

  test('the cluster comes from the client that made the request', () => {
    const e = api(503);
    assert.equal(failureCluster(e), undefined);
    e.cluster = 'cluster2';
    assert.equal(failureCluster(e), 'cluster2');
    assert.equal(failureCluster(new ReportedFailure('x', ['c3', 'c1'])), 'c1,c3');
    assert.equal(failureCluster(new Error('x')), undefined);
  });
});

describe('FailureLogLimiter: a fixed window per key', () => {
  test('the first `burst` of a window are logged, the rest counted and reported with the next line', () => {
    let now = 0;
    const l = new FailureLogLimiter({ burst: 2, windowMs: 1000 }, () => now);
    assert.deepEqual(l.admit('c1/unreachable'), { log: true, suppressed: 0 });
    assert.deepEqual(l.admit('c1/unreachable'), { log: true, suppressed: 0 });
    assert.deepEqual(l.admit('c1/unreachable'), { log: false, suppressed: 0 });
    assert.deepEqual(l.admit('c1/unreachable'), { log: false, suppressed: 0 });
    // Another member, or another kind for the same member, has its own budget.
    assert.deepEqual(l.admit('c2/unreachable'), { log: true, suppressed: 0 });
    assert.deepEqual(l.admit('c1/timeout'), { log: true, suppressed: 0 });
    now = 999;
    assert.deepEqual(l.admit('c1/unreachable'), { log: false, suppressed: 0 });
    now = 1000;
    assert.deepEqual(l.admit('c1/unreachable'), { log: true, suppressed: 3 });
    assert.deepEqual(l.admit('c1/unreachable'), { log: true, suppressed: 0 });
    now = 5000;
    assert.deepEqual(l.admit('c1/unreachable'), { log: true, suppressed: 0 }, 'nothing was left out');
  });

  test('over any span, at most burst × (windows started) lines per key', () => {
    let now = 0;
    const l = new FailureLogLimiter({ burst: 3, windowMs: 300_000 }, () => now);
    let logged = 0;
    for (let t = 0; t < 600_000; t += 250) {
      now = t;
      if (l.admit('c1/unreachable').log) logged++;
    }
    assert.equal(logged, 6, 'two windows of three lines in ten minutes of failures every 250 ms');
  });
});

type Line = { level: string; obj: Record<string, unknown>; msg: string };
function recorder() {
  const lines: Line[] = [];
  const at = (level: string) => (obj: object, msg: string) =>
    lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { lines, log: { warn: at('warn'), error: at('error'), debug: at('debug') } };
}

describe('logFailure', () => {
  test('an expected failure is a warning with the message, the cluster and the kind, no Error object', () => {
    const { lines, log } = recorder();
    const e = transport(sysError('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'));
    e.cluster = 'cluster2';
    logFailure(log, 'create failed', { err: e, fields: { object: 'ns/cm' } }, new FailureLogLimiter());
    assert.deepEqual(lines, [
      {
        level: 'warn',
        msg: 'create failed',
        obj: {
          cluster: 'cluster2',
          object: 'ns/cm',
          failure: 'unreachable',
          err: 'GET https://m:6443/api: connect ECONNREFUSED 127.0.0.1:1',
        },
      },
    ]);
  });

  test('a bug is an error carrying the exception (so its stack); also rate-limited', () => {
    const { lines, log } = recorder();
    const limiter = new FailureLogLimiter({ burst: 1, windowMs: 60_000 });
    const bug = new TypeError('x is undefined');
    logFailure(log, 'member operation threw', { cluster: 'c1', err: bug }, limiter);
    logFailure(log, 'member operation threw', { cluster: 'c1', err: bug }, limiter);
    assert.equal(lines.length, 2);
    assert.equal(lines[0]?.level, 'error');
    assert.equal(lines[0]?.obj.err, bug);
    assert.equal(lines[0]?.obj.cluster, 'c1');
    assert.equal(lines[1]?.level, 'debug', 'the second in the window only at debug');
    assert.equal(lines[1]?.obj.err, 'x is undefined');
  });

  test('past the limit: debug only; the next window says how many were left out', () => {
    const { lines, log } = recorder();
    let now = 0;
    const limiter = new FailureLogLimiter({ burst: 1, windowMs: 100 }, () => now);
    for (let i = 0; i < 4; i++)
      logFailure(log, 'list/watch failed', { cluster: 'c1', err: api(503) }, limiter);
    now = 100;
    logFailure(log, 'list/watch failed', { cluster: 'c1', err: api(503) }, limiter);
    assert.deepEqual(
      lines.map((l) => [l.level, l.obj.suppressed]),
      [
        ['warn', undefined],
        ['debug', undefined],
        ['debug', undefined],
        ['debug', undefined],
        ['warn', 3],
      ],
    );
  });

  test('a transition is always logged and spends no budget; a bound cluster is not repeated', () => {
    const { lines, log } = recorder();
    const limiter = new FailureLogLimiter({ burst: 1, windowMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      logFailure(
        log,
        'cluster is not reachable',
        { cluster: 'c1', err: 'refused', kind: 'unreachable', transition: true },
        limiter,
      );
    }
    logFailure(log, 'list/watch failed', { cluster: 'c1', clusterBound: true, err: api(500) }, limiter);
    logFailure(log, 'x', { cluster: 'c1', err: transport(sysError('refused', 'ECONNREFUSED')) }, limiter);
    assert.deepEqual(
      lines.map((l) => l.level),
      ['warn', 'warn', 'warn', 'warn', 'warn'],
    );
    assert.equal(lines[3]?.obj.cluster, undefined, 'the logger binding names it');
    assert.equal(lines[0]?.obj.failure, 'unreachable');
  });

  test('a throwing logger does not throw', () => {
    const bad = {
      warn: () => {
        throw new Error('x');
      },
      error: () => {},
      debug: () => {},
    };
    assert.doesNotThrow(() => logFailure(bad, 'm', { err: api(500) }, new FailureLogLimiter()));
  });

  test('through pino: the warning has no stack, the bug has one', () => {
    let out = '';
    const destination = new Writable({
      write(chunk, _enc, cb) {
        out += chunk.toString();
        cb();
      },
    });
    const log = createLogger({ destination, level: 'debug' });
    const limiter = new FailureLogLimiter();
    const e = api(429);
    e.cluster = 'cluster3';
    logFailure(log, 'update failed', { err: e }, limiter);
    logFailure(
      log,
      'member operation threw',
      { cluster: 'cluster3', err: new RangeError('bad index') },
      limiter,
    );
    const [warn, error] = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(warn?.level, 'warn');
    assert.equal(warn?.cluster, 'cluster3');
    assert.equal(warn?.failure, 'throttled');
    assert.equal(warn?.err, 'HTTP 429');
    assert.doesNotMatch(JSON.stringify(warn), /stack/);
    assert.equal(error?.level, 'error');
    assert.match(
      String((error?.err as { stack?: string } | undefined)?.stack),
      /^RangeError: bad index\n\s+at /,
    );
  });
});
