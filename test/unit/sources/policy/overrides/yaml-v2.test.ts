import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  naturalLess,
  resolvesToNonString,
  stringifyYamlV2,
} from '../../../../../src/sources/policy/overrides/yaml-v2.ts';

describe('go-yaml v2 style', () => {
  test('keys in go-yaml’s natural order', () => {
    assert.equal(naturalLess('a9', 'a10'), true);
    assert.equal(naturalLess('a10', 'a9'), false);
    assert.equal(naturalLess('b', 'a'), false);
    assert.equal(naturalLess('a', 'ab'), true);
    assert.equal(naturalLess('1', 'a'), true); // a digit sorts before a letter
    assert.equal(stringifyYamlV2({ b: 1, a10: 2, a9: 3 }), 'a9: 3\na10: 2\nb: 1\n');
  });

  test('which strings would read back as another type', () => {
    for (const s of [
      '',
      'yes',
      'Off',
      'y',
      'null',
      '~',
      '12',
      '-3',
      '0x1F',
      '1_000',
      '1.5',
      '.5',
      '1e3',
      '.inf',
      '1:20',
      '2001-12-14',
    ])
      assert.equal(resolvesToNonString(s), true, s);
    for (const s of ['hello', 'a: b', 'v1.0', '1.2.3', 'yes please', '-', 'x12'])
      assert.equal(resolvesToNonString(s), false, s);
  });

  test('quoting: double for type-ambiguous strings, single where plain is not possible, literal blocks', () => {
    assert.equal(
      stringifyYamlV2({
        a: 'yes',
        b: 'a: b',
        c: '012',
        d: 'x\ny',
        e: 'plain',
        f: null,
        g: [],
        h: {},
        i: [{ x: 1 }],
      }),
      'a: "yes"\nb: \'a: b\'\nc: "012"\nd: |-\n  x\n  y\ne: plain\nf: null\ng: []\nh: {}\ni:\n- x: 1\n',
    );
  });
});
