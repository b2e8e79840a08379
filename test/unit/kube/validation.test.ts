import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  dns1035LabelErrors,
  dns1123SubdomainErrors,
  labelValueErrors,
  portNumErrors,
  qualifiedNameErrors,
} from '../../../src/kube/validation.ts';

describe('qualified names and label values', () => {
  test('valid', () => {
    for (const key of ['a', 'A1', 'a.b_c-d', 'example.com/a', 'x'.repeat(63), `${'a'.repeat(253)}/b`])
      assert.deepEqual(qualifiedNameErrors(key), [], key);
    for (const value of ['', 'a', 'a-b_c.d', 'x'.repeat(63)])
      assert.deepEqual(labelValueErrors(value), [], value);
  });

  test('invalid', () => {
    for (const key of ['', 'a_', '_a', 'a b', 'x'.repeat(64), `${'a'.repeat(254)}/b`, 'é'])
      assert.notDeepEqual(qualifiedNameErrors(key), [], key);
    for (const value of ['-', 'a ', 'x'.repeat(64), 'é'])
      assert.notDeepEqual(labelValueErrors(value), [], value);
  });
});

describe('DNS-1123 subdomains', () => {
  test('names must be DNS-1123 subdomains', () => {
    assert.deepEqual(dns1123SubdomainErrors('web.example-1'), []);
    assert.equal(dns1123SubdomainErrors('system:controller:x').length, 1);
    assert.equal(dns1123SubdomainErrors('Upper').length, 1);
    assert.equal(dns1123SubdomainErrors(`${'a'.repeat(254)}`).length, 1);
  });

  test("apimachinery's messages, word for word", () => {
    assert.deepEqual(dns1123SubdomainErrors('Upper'), [
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and " +
        "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    assert.equal(dns1123SubdomainErrors('a'.repeat(254))[0], 'must be no more than 253 characters');
  });
});

describe('DNS-1035 labels and port numbers', () => {
  test("apimachinery's messages, word for word", () => {
    assert.deepEqual(dns1035LabelErrors('my-name'), []);
    assert.deepEqual(dns1035LabelErrors('1abc'), [
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic " +
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for " +
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.equal(dns1035LabelErrors(`a${'b'.repeat(63)}`)[0], 'must be no more than 63 characters');
  });

  test('ports 1 to 65535', () => {
    assert.deepEqual(portNumErrors(1), []);
    assert.deepEqual(portNumErrors(65535), []);
    for (const p of [0, 65536, 1.5])
      assert.deepEqual(portNumErrors(p), ['must be between 1 and 65535, inclusive']);
  });
});
