import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { derivedServiceName, dnsEndpointName, importedSliceName } from '../../../src/mcs/names.ts';

const isDns1035Label = (s: string) => s.length <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(s);
const isSubdomain = (s: string) =>
  s.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s);

describe('derivedServiceName', () => {
  test('derived-<name> for a short name', () => assert.equal(derivedServiceName('hello'), 'derived-hello'));

  test('a name that would pass 63 characters is cut and hashed, still a DNS-1035 label', () => {
    const long = `a${'b'.repeat(62)}`;
    const name = derivedServiceName(long);
    assert.ok(isDns1035Label(name), name);
    assert.match(name, /^derived-ab+-[0-9a-f]{10}$/);
    assert.notEqual(derivedServiceName(`${long.slice(0, -1)}c`), name, 'different names hash differently');
    assert.equal(derivedServiceName(long), name, 'stable');
  });

  test('exactly 63 characters is kept as is', () => {
    const name = `x${'y'.repeat(54)}`; // 8 + 55 = 63
    assert.equal(derivedServiceName(name), `derived-${name}`);
  });

  test('a name with characters a Service may not hold is made valid', () => {
    const name = derivedServiceName('Foo_Bar');
    assert.ok(isDns1035Label(name), name);
    assert.match(name, /^derived-foo-bar-[0-9a-f]{10}$/);
  });
});

describe('importedSliceName', () => {
  test('<derived>-<clusterId>-<address type in lower case>', () => {
    assert.equal(importedSliceName('derived-hello', 'cluster-1', 'IPv4'), 'derived-hello-cluster-1-ipv4');
    assert.equal(importedSliceName('derived-hello', 'cluster-1', 'IPv6'), 'derived-hello-cluster-1-ipv6');
    assert.equal(importedSliceName('derived-hello', 'cluster-1', 'FQDN'), 'derived-hello-cluster-1-fqdn');
  });

  test('dots of a <name>.<label> id become dashes, with a hash so `a.b` and `a-b` stay apart', () => {
    const dotted = importedSliceName('derived-hello', 'east.reg1', 'IPv4');
    assert.match(dotted, /^derived-hello-east-reg1-[0-9a-f]{10}-ipv4$/);
    assert.notEqual(dotted, importedSliceName('derived-hello', 'east-reg1', 'IPv4'));
  });

  test('longer than 253 characters: cut and hashed, a valid DNS subdomain', () => {
    const id = 'c'.repeat(63);
    const derived = `derived-${'s'.repeat(55)}`;
    const a = importedSliceName(derived, `${id}.${'d'.repeat(63)}.${'e'.repeat(63)}`, 'IPv4');
    const b = importedSliceName(derived, `${id}.${'d'.repeat(63)}.${'f'.repeat(63)}`, 'IPv4');
    assert.ok(isSubdomain(a), a);
    assert.equal(a.length, 253);
    assert.notEqual(a, b);
  });
});

describe('dnsEndpointName', () => {
  test('mcs-<name>', () => assert.equal(dnsEndpointName('hello'), 'mcs-hello'));
  test('always a DNS subdomain of at most 253 characters', () => {
    const name = dnsEndpointName('n'.repeat(300));
    assert.ok(isSubdomain(name), name);
    assert.match(name, /-[0-9a-f]{10}$/);
  });
});
