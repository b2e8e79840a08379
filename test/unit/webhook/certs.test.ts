import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, test } from 'node:test';
import { createSecureContext } from 'node:tls';
import { generateWebhookCertificates, WEBHOOK_CA_COMMON_NAME } from '../../../src/webhook/certs.ts';

const DAY = 24 * 3600_000;

describe('generateWebhookCertificates', () => {
  const certs = generateWebhookCertificates({
    dnsNames: [
      'kubefed-admission-webhook.kube-federation-system',
      'kubefed-admission-webhook.kube-federation-system.svc',
    ],
    ipAddresses: ['127.0.0.1', '::1'],
  });
  const ca = new X509Certificate(certs.caCert);
  const leaf = new X509Certificate(certs.cert);

  test('a CA valid for 3650 days, like the Helm chart', () => {
    assert.equal(ca.ca, true);
    assert.equal(ca.subject, `CN=${WEBHOOK_CA_COMMON_NAME}`);
    const days = (Date.parse(ca.validTo) - Date.parse(ca.validFrom)) / DAY;
    assert.ok(Math.abs(days - 3650) < 1, `${days} days`);
    assert.ok(ca.checkPrivateKey(createPrivateKey(certs.caKey)));
  });

  test('a serving certificate signed by the CA, for the names asked', () => {
    assert.equal(leaf.ca, false);
    assert.ok(leaf.verify(ca.publicKey));
    assert.ok(leaf.checkIssued(ca));
    assert.ok(leaf.checkPrivateKey(createPrivateKey(certs.key)));
    assert.equal(leaf.subject, 'CN=kubefed-admission-webhook.kube-federation-system');
    assert.equal(
      leaf.subjectAltName,
      'DNS:kubefed-admission-webhook.kube-federation-system, DNS:kubefed-admission-webhook.kube-federation-system.svc, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    assert.equal(
      leaf.checkHost('kubefed-admission-webhook.kube-federation-system.svc'),
      'kubefed-admission-webhook.kube-federation-system.svc',
    );
    assert.equal(leaf.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(leaf.checkHost('example.com'), undefined);
    assert.deepEqual(leaf.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.ok(Date.parse(leaf.validFrom) <= Date.now());
  });

  test('the pair loads into a TLS context, as the server will use it', () => {
    assert.doesNotThrow(() => createSecureContext({ cert: certs.cert, key: certs.key }));
  });

  test('each call makes a new CA; validity and CN can be chosen', () => {
    const other = generateWebhookCertificates({
      dnsNames: ['localhost'],
      validityDays: 30,
      commonName: 'webhook',
    });
    const otherCa = new X509Certificate(other.caCert);
    assert.notEqual(otherCa.fingerprint256, ca.fingerprint256);
    const otherLeaf = new X509Certificate(other.cert);
    assert.equal(otherLeaf.subject, 'CN=webhook');
    assert.ok(Math.abs((Date.parse(otherLeaf.validTo) - Date.parse(otherLeaf.validFrom)) / DAY - 30) < 1);
    assert.equal(otherLeaf.verify(ca.publicKey), false);
  });

  test('bad input is refused', () => {
    assert.throws(() => generateWebhookCertificates({}), /at least one DNS name or IP/);
    assert.throws(() => generateWebhookCertificates({ ipAddresses: ['localhost'] }), /not an IP address/);
    assert.throws(() => generateWebhookCertificates({ dnsNames: ['a'], validityDays: 0 }), /validityDays/);
  });
});
