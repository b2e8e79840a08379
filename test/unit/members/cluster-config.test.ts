import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeFedCluster } from '../../../src/api/core/v1beta1/index.ts';
import {
  buildClusterRestConfig,
  ClusterConfigError,
  parseApiEndpoint,
} from '../../../src/members/cluster-config.ts';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const cluster = (spec: Partial<KubeFedCluster['spec']>): KubeFedCluster => ({
  metadata: { name: 'c1', namespace: 'kube-federation-system' },
  spec: { apiEndpoint: 'https://10.0.0.1:6443', secretRef: { name: 's' }, ...spec },
});
const secret = (token = 'abc') => ({
  metadata: { name: 's', resourceVersion: '1' },
  data: { token: b64(token) },
});

describe('apiEndpoint parsing (client-go DefaultServerURL, as KubeFed)', () => {
  test('host, host:port, IP, IP:port and URLs; https when no scheme', () => {
    assert.equal(parseApiEndpoint('example.com'), 'https://example.com');
    assert.equal(parseApiEndpoint('example.com:6443'), 'https://example.com:6443');
    assert.equal(parseApiEndpoint('10.1.2.3'), 'https://10.1.2.3');
    assert.equal(parseApiEndpoint('10.1.2.3:443'), 'https://10.1.2.3');
    assert.equal(parseApiEndpoint('http://10.1.2.3:8080'), 'http://10.1.2.3:8080');
    assert.equal(parseApiEndpoint('https://[::1]:6443/'), 'https://[::1]:6443');
  });

  test('malformed endpoints are rejected with the reason', () => {
    assert.throws(() => parseApiEndpoint(''), /empty/);
    assert.throws(
      () => parseApiEndpoint('h/api'),
      /^ClusterConfigError: apiEndpoint "h\/api": host must be a URL or a host:port pair: "h\/api"$/,
    );
    assert.throws(() => parseApiEndpoint('10.0.0.1:6443/k8s/clusters/c1'), /host must be a URL/);
    assert.throws(() => parseApiEndpoint('ftp://h'), /want http or https/);
    assert.throws(() => parseApiEndpoint('https://h:99999'), ClusterConfigError);
    assert.throws(() => parseApiEndpoint('https://'), /not a URL/);
  });

  test('a URL with a path keeps it as the prefix of every request, cleaned like client-go', () => {
    const rancher = 'https://rancher.example.com/k8s/clusters/c-m-4x7vz';
    assert.equal(parseApiEndpoint(rancher), rancher);
    assert.equal(parseApiEndpoint(`${rancher}/`), rancher);
    assert.equal(parseApiEndpoint(`${rancher}//`), rancher);
    assert.equal(parseApiEndpoint('http://10.0.0.1:8080//a//b/'), 'http://10.0.0.1:8080/a/b');
    assert.equal(parseApiEndpoint('https://h:6443/a/./b/../c'), 'https://h:6443/a/c');
    assert.equal(parseApiEndpoint('https://[::1]:6443/p'), 'https://[::1]:6443/p');
    // client-go's NewRESTClient clears the query and fragment of the host URL.
    assert.equal(parseApiEndpoint(`${rancher}?x=1#frag`), rancher);
    assert.equal(parseApiEndpoint('https://h?x=1'), 'https://h');
  });
});

describe('member rest config from KubeFedCluster + Secret', () => {
  test('token, CA, TLS relaxations and proxy', () => {
    const rc = buildClusterRestConfig(
      cluster({ caBundle: b64(PEM), disabledTLSValidations: ['SubjectName'], proxyURL: 'socks5://p:1080' }),
      secret(' tok \n'),
    );
    assert.equal(rc.server, 'https://10.0.0.1:6443');
    assert.equal(rc.token, 'tok');
    assert.equal(rc.caData?.toString(), PEM);
    assert.equal(rc.insecureSkipTLSVerify, false);
    assert.equal(rc.skipServerNameCheck, true);
    assert.equal(rc.proxyUrl, 'socks5://p:1080');
    const proxied = buildClusterRestConfig(
      cluster({ apiEndpoint: 'https://r.example/k8s/clusters/c1/' }),
      secret(),
    );
    assert.equal(proxied.server, 'https://r.example/k8s/clusters/c1');
    assert.equal(
      buildClusterRestConfig(cluster({ disabledTLSValidations: ['*'] }), secret()).insecureSkipTLSVerify,
      true,
    );
  });

  test('each malformed configuration says what is wrong', () => {
    assert.throws(
      () => buildClusterRestConfig(cluster({}), undefined),
      /secret "s" not found in namespace "kube-federation-system"/,
    );
    assert.throws(
      () => buildClusterRestConfig(cluster({}), { metadata: {}, data: {} }),
      /has no "token" key/,
    );
    assert.throws(() => buildClusterRestConfig(cluster({}), secret('  ')), /empty "token"/);
    assert.throws(
      () => buildClusterRestConfig(cluster({ secretRef: { name: '' } }), secret()),
      /secretRef.name is empty/,
    );
    assert.throws(() => buildClusterRestConfig(cluster({ caBundle: b64('junk') }), secret()), /PEM/);
    assert.throws(
      () => buildClusterRestConfig(cluster({ disabledTLSValidations: ['*', 'SubjectName'] }), secret()),
      /must be the only item/,
    );
    assert.throws(
      () => buildClusterRestConfig(cluster({ proxyURL: 'ftp://p' }), secret()),
      /http, https or socks5/,
    );
    assert.throws(
      () => buildClusterRestConfig(cluster({ apiEndpoint: 'h/x' }), secret()),
      /host must be a URL or a host:port pair/,
    );
  });
});
