import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selfSignedChain } from '../../../src/testing/self-signed-chain.ts';
import { generateWebhookCertificates } from '../../../src/webhook/certs.ts';

// The shape kube-apiserver writes to <cert-dir>/apiserver.crt: the serving certificate, then its CA.
const { cert, caCert } = generateWebhookCertificates({ ipAddresses: ['127.0.0.1'] });
const whole = `${cert}${caCert}`;

test('a whole apiserver certificate file (serving certificate, then its self-signed CA) is the trust bundle', () => {
  assert.deepEqual(selfSignedChain(whole), Buffer.from(whole));
});

test('an apiserver certificate file that is still being written is not trusted yet', () => {
  assert.equal(selfSignedChain(''), undefined, 'created, nothing written');
  assert.equal(selfSignedChain(cert), undefined, 'only the serving certificate');
  assert.equal(selfSignedChain(whole.slice(0, cert.length + 200)), undefined, 'the CA cut off');
  const cutInsideBlock = `${cert}${caCert.slice(0, caCert.length - 80)}\n-----END CERTIFICATE-----\n`;
  assert.equal(selfSignedChain(cutInsideBlock), undefined, 'a CA block that does not parse');
});
