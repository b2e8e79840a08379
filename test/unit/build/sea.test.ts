import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { ELF_MACHINE, elfArch, hasSeaBlob, SEA_FUSE } from '../../../src/build/sea.ts';
import { MIN_NODE, nodeAtLeast } from '../../../src/cmd/node-version.ts';

/** The first 20 bytes of a 64-bit little-endian ELF header with e_machine `machine`. */
function elfHead(machine: number, klass = 2, data = 1): Uint8Array {
  const h = new Uint8Array(64);
  h.set([0x7f, 0x45, 0x4c, 0x46, klass, data, 1]);
  h[18] = machine & 0xff;
  h[19] = machine >> 8;
  return h;
}

describe('elfArch', () => {
  test('reads e_machine of 64-bit little-endian ELF files', () => {
    assert.equal(elfArch(elfHead(ELF_MACHINE.amd64)), 'amd64');
    assert.equal(elfArch(elfHead(ELF_MACHINE.arm64)), 'arm64');
    assert.equal(elfArch(elfHead(0x28)), undefined); // 32-bit ARM
    assert.equal(elfArch(elfHead(ELF_MACHINE.arm64, 1)), undefined); // ELFCLASS32
    assert.equal(elfArch(elfHead(ELF_MACHINE.arm64, 2, 2)), undefined); // big-endian
    assert.equal(elfArch(new TextEncoder().encode('#!/bin/sh\necho not elf\n')), undefined);
    assert.equal(elfArch(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1])), undefined);
  });

  test('this Node binary is the architecture it runs on', () => {
    const arch = process.arch === 'x64' ? 'amd64' : process.arch === 'arm64' ? 'arm64' : undefined;
    assert.equal(elfArch(readFileSync(process.execPath).subarray(0, 64)), arch);
  });
});

describe('hasSeaBlob', () => {
  test('is true only once the fuse is flipped', () => {
    assert.equal(hasSeaBlob(Buffer.from(`xx${SEA_FUSE}:1yy`)), true);
    assert.equal(hasSeaBlob(Buffer.from(`xx${SEA_FUSE}:0yy`)), false);
    assert.equal(hasSeaBlob(readFileSync(process.execPath)), false);
  });
});

describe('nodeAtLeast', () => {
  test('compares major, minor and patch numerically', () => {
    assert.equal(nodeAtLeast('24.21.0'), true);
    assert.equal(nodeAtLeast(MIN_NODE), true);
    assert.equal(nodeAtLeast('v22.19.0', '22.19.0'), true);
    assert.equal(nodeAtLeast('22.18.9', '22.19.0'), false);
    assert.equal(nodeAtLeast('22.100.0', '22.19.0'), true);
    assert.equal(nodeAtLeast('20.20.2', '22.19.0'), false);
    assert.equal(nodeAtLeast('23.0.0', '22.19.0'), true);
  });
});
