// Serving certificates for the webhook: a CA and a certificate it signs, as KubeFed's Helm chart makes
// them with genCA/genSignedCert (RSA 2048, 3650 days). node:crypto makes keys but cannot sign X.509,
// so the certificates are built with node-forge.

import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

export const WEBHOOK_CA_COMMON_NAME = 'kubefed-admission-webhook-ca';
export const DEFAULT_CERT_VALIDITY_DAYS = 3650;

export interface WebhookCertificateOptions {
  /** DNS names of the serving certificate, e.g. `kubefed-admission-webhook.kube-federation-system.svc`. */
  dnsNames?: string[];
  /** IP addresses of the serving certificate, e.g. `127.0.0.1`. */
  ipAddresses?: string[];
  /** Validity of both certificates; 3650 days like the Helm chart. */
  validityDays?: number;
  /** Subject CN of the serving certificate; defaults to the first DNS name or IP. */
  commonName?: string;
}

/** PEM strings: `caCert` goes into a webhook configuration's caBundle, `cert`/`key` into tls.crt/tls.key. */
export interface WebhookCertificates {
  caCert: string;
  caKey: string;
  cert: string;
  key: string;
}

/** A positive serial number of 128 random bits (X.509 serials must be positive). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

function validity(cert: forge.pki.Certificate, days: number): void {
  // Backdated a little, so that a clock slightly behind ours still accepts the certificate.
  const notBefore = new Date(Date.now() - 5 * 60_000);
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = new Date(notBefore.getTime() + days * 24 * 3600_000);
}

/** Generates a CA and a serving certificate for the given names (at least one DNS name or IP). */
export function generateWebhookCertificates(opts: WebhookCertificateOptions): WebhookCertificates {
  const dnsNames = opts.dnsNames ?? [];
  const ips = opts.ipAddresses ?? [];
  const days = opts.validityDays ?? DEFAULT_CERT_VALIDITY_DAYS;
  if (dnsNames.length === 0 && ips.length === 0) {
    throw new Error('a serving certificate needs at least one DNS name or IP address');
  }
  for (const ip of ips) if (isIP(ip) === 0) throw new Error(`not an IP address: ${JSON.stringify(ip)}`);
  if (!Number.isInteger(days) || days <= 0)
    throw new Error(`validityDays must be a positive integer, not ${days}`);

  // forge uses Node's native key generation when it is available, which it always is here.
  const caKeys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const ca = forge.pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = serialNumber();
  validity(ca, days);
  const caSubject = [{ name: 'commonName', value: WEBHOOK_CA_COMMON_NAME }];
  ca.setSubject(caSubject);
  ca.setIssuer(caSubject);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', critical: true, keyCertSign: true, cRLSign: true, digitalSignature: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  validity(cert, days);
  cert.setSubject([{ name: 'commonName', value: opts.commonName ?? dnsNames[0] ?? ips[0]! }]);
  cert.setIssuer(caSubject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', critical: true, digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      // Type 2 is dNSName, 7 iPAddress (RFC 5280).
      altNames: [...dnsNames.map((value) => ({ type: 2, value })), ...ips.map((ip) => ({ type: 7, ip }))],
    },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKeys.privateKey, forge.md.sha256.create());

  return {
    caCert: forge.pki.certificateToPem(ca),
    caKey: forge.pki.privateKeyToPem(caKeys.privateKey),
    cert: forge.pki.certificateToPem(cert),
    key: forge.pki.privateKeyToPem(keys.privateKey),
  };
}
