import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatFieldErrors } from '../../../src/api/field-errors.ts';
import { validateKubeFedCluster } from '../../../src/webhook/validation/kubefedcluster.ts';

const DNS1123_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const cluster = (spec: Record<string, unknown>) => ({
  apiVersion: 'core.kubefed.io/v1beta1',
  kind: 'KubeFedCluster',
  metadata: { name: 'c1', namespace: 'kube-federation-system' },
  spec: { apiEndpoint: 'https://10.0.0.1:6443', secretRef: { name: 'c1-token' }, ...spec },
});

const messages = (obj: unknown, statusSubresource = false) =>
  formatFieldErrors(validateKubeFedCluster(obj, { statusSubresource }));

describe('validateKubeFedCluster: spec', () => {
  test('valid endpoints in every form client-go accepts', () => {
    for (const apiEndpoint of [
      'https://10.0.0.1:6443',
      'http://example.com',
      'example.com',
      'example.com:443',
      '10.0.0.1',
      '10.0.0.1:6443',
      '[::1]:6443',
      'https://api.example.com/',
      'HTTPS://example.com',
      // A path after a scheme is a prefix (Rancher, other proxies); client-go drops a query.
      'https://rancher.example.com/k8s/clusters/c-m-4x7vz',
      'http://10.0.0.1:8080/path/to/endpoint/',
      'https://[2001:db8:25a4:8d2::1]:65535/path/to/endpoint',
      'https://example.com/p?x=1',
      'example.com/',
    ]) {
      assert.deepEqual(validateKubeFedCluster(cluster({ apiEndpoint })), [], apiEndpoint);
    }
  });

  test('apiEndpoint: required, scheme, port, path', () => {
    assert.equal(messages(cluster({ apiEndpoint: '' })), 'spec.apiEndpoint: Required value');
    assert.equal(messages(cluster({ apiEndpoint: undefined })), 'spec.apiEndpoint: Required value');
    assert.equal(
      messages(cluster({ apiEndpoint: 'ftp://10.0.0.1' })),
      'spec.apiEndpoint: Unsupported value: "ftp": supported values: "http", "https"',
    );
    assert.equal(
      messages(cluster({ apiEndpoint: 'https://10.0.0.1:70000' })),
      'spec.apiEndpoint: Invalid value: 70000: must be between 1 and 65535, inclusive',
    );
    assert.equal(
      messages(cluster({ apiEndpoint: '10.0.0.1:0' })),
      'spec.apiEndpoint: Invalid value: 0: must be between 1 and 65535, inclusive',
    );
    assert.equal(
      messages(cluster({ apiEndpoint: '10.0.0.1/api' })),
      'spec.apiEndpoint: Invalid value: "10.0.0.1/api": host must be a URL or a host:port pair: "10.0.0.1/api"',
    );
    assert.equal(
      messages(cluster({ apiEndpoint: 42 })),
      'spec.apiEndpoint: Invalid value: 42: must be a string',
    );
  });

  test('secretRef.name: required and a DNS-1123 subdomain', () => {
    assert.equal(messages(cluster({ secretRef: {} })), 'spec.secretRef.name: Required value');
    assert.equal(messages(cluster({ secretRef: undefined })), 'spec.secretRef.name: Required value');
    assert.equal(
      messages(cluster({ secretRef: { name: 'Bad_Name' } })),
      `spec.secretRef.name: Invalid value: "Bad_Name": ${DNS1123_MSG}`,
    );
    assert.equal(
      messages(cluster({ secretRef: { name: 'a'.repeat(254) } })),
      `spec.secretRef.name: Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters`,
    );
    assert.equal(
      messages(cluster({ secretRef: 'token' })),
      'spec.secretRef: Invalid value: "token": must be an object',
    );
  });

  test('disabledTLSValidations: known values, and * alone', () => {
    assert.deepEqual(validateKubeFedCluster(cluster({ disabledTLSValidations: ['*'] })), []);
    assert.deepEqual(
      validateKubeFedCluster(cluster({ disabledTLSValidations: ['SubjectName', 'ValidityPeriod'] })),
      [],
    );
    assert.equal(
      messages(cluster({ disabledTLSValidations: ['Hostname'] })),
      'spec.disabledTLSValidations: Unsupported value: "Hostname": supported values: "*", "SubjectName", "ValidityPeriod"',
    );
    assert.equal(
      messages(cluster({ disabledTLSValidations: [''] })),
      'spec.disabledTLSValidations: Required value',
    );
    assert.equal(
      messages(cluster({ disabledTLSValidations: ['SubjectName', '*'] })),
      'spec.disabledTLSValidations: Invalid value: ["SubjectName","*"]: when * is specified, it is expected to be the only option in list',
    );
  });

  test('proxyURL: optional; http, https or socks5', () => {
    for (const proxyURL of ['', 'http://proxy:3128', 'https://proxy', 'socks5://127.0.0.1:1080'])
      assert.deepEqual(validateKubeFedCluster(cluster({ proxyURL })), [], proxyURL);
    assert.equal(
      messages(cluster({ proxyURL: 'ftp://proxy' })),
      'spec.proxyURL: Invalid value: "ftp://proxy": proxy URL scheme must be one of: [http, https, socks5]',
    );
    // Without a scheme Go's url.Parse sees a bare path, so KubeFed names the scheme.
    for (const proxyURL of ['proxy.example.com', 'not a url'])
      assert.equal(
        messages(cluster({ proxyURL })),
        `spec.proxyURL: Invalid value: "${proxyURL}": proxy URL scheme must be one of: [http, https, socks5]`,
      );
    assert.equal(
      messages(cluster({ proxyURL: 'http://exa mple.com' })),
      'spec.proxyURL: Invalid value: "http://exa mple.com": error parsing the proxy URL',
    );
  });

  test('several errors are aggregated in order, and status is not looked at', () => {
    const obj = {
      ...cluster({ apiEndpoint: '', secretRef: { name: '' }, disabledTLSValidations: ['x'] }),
      status: { conditions: [{ type: 'Bogus' }] },
    };
    assert.equal(
      messages(obj),
      '[spec.apiEndpoint: Required value, spec.secretRef.name: Required value, spec.disabledTLSValidations: Unsupported value: "x": supported values: "*", "SubjectName", "ValidityPeriod"]',
    );
  });

  test('a missing or non-object spec', () => {
    assert.equal(
      messages({ metadata: { name: 'x' } }),
      '[spec.apiEndpoint: Required value, spec.secretRef.name: Required value]',
    );
    assert.equal(messages({ spec: [] }), 'spec: Invalid value: []: must be an object');
  });
});

describe('validateKubeFedCluster: status subresource', () => {
  const withStatus = (conditions: unknown) => ({ ...cluster({ apiEndpoint: '' }), status: { conditions } });
  const now = '2024-01-01T00:00:00Z';

  test('only the conditions are checked', () => {
    assert.deepEqual(
      validateKubeFedCluster(
        withStatus([
          { type: 'Ready', status: 'True', lastProbeTime: now },
          { type: 'Offline', status: 'False', lastProbeTime: now },
          { type: 'ConfigMalformed', status: 'Unknown', lastProbeTime: now },
        ]),
        { statusSubresource: true },
      ),
      [],
    );
  });

  test('type, status and lastProbeTime', () => {
    assert.equal(
      messages(withStatus([{ type: 'Healthy', status: 'Maybe' }]), true),
      '[status.conditions[0].type: Unsupported value: "Healthy": supported values: "Ready", "Offline", "ConfigMalformed", status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown", status.conditions[0].lastProbeTime: Required value]',
    );
    assert.equal(
      messages(withStatus([{ status: 'True', lastProbeTime: now }]), true),
      'status.conditions[0].type: Required value',
    );
  });
});
