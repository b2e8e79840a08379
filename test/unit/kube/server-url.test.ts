import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { baseServerUrl, cleanPathPrefix, joinServerUrl } from '../../../src/kube/client/server-url.ts';
import { restConfigFromParts } from '../../../src/kube/kubeconfig/index.ts';

describe('server URL with a path prefix (client-go rest.Config.Host)', () => {
  test('the prefix is cleaned as path.Join cleans it', () => {
    assert.equal(cleanPathPrefix(''), '');
    assert.equal(cleanPathPrefix('/'), '');
    assert.equal(cleanPathPrefix('//'), '');
    assert.equal(cleanPathPrefix('/k8s/clusters/c1'), '/k8s/clusters/c1');
    assert.equal(cleanPathPrefix('/k8s/clusters/c1/'), '/k8s/clusters/c1');
    assert.equal(cleanPathPrefix('//k8s//clusters///c1//'), '/k8s/clusters/c1');
    assert.equal(cleanPathPrefix('/a/./b/../c'), '/a/c');
  });

  test('the base URL keeps scheme, host, port and prefix, and drops query and fragment', () => {
    assert.equal(baseServerUrl(new URL('https://h:6443')), 'https://h:6443');
    assert.equal(baseServerUrl(new URL('https://h:6443/')), 'https://h:6443');
    assert.equal(baseServerUrl(new URL('https://h/k8s/clusters/c1/?a=b#f')), 'https://h/k8s/clusters/c1');
  });

  test('every request path goes under the prefix, with its query string unchanged', () => {
    const server = 'https://rancher.example.com/k8s/clusters/c-m-1';
    assert.equal(joinServerUrl(server, '/healthz'), `${server}/healthz`);
    assert.equal(joinServerUrl(server, '/version'), `${server}/version`);
    assert.equal(joinServerUrl(server, '/api'), `${server}/api`);
    assert.equal(
      joinServerUrl(server, '/apis/apps/v1/namespaces/ns/deployments?watch=true&labelSelector=a%3Db'),
      `${server}/apis/apps/v1/namespaces/ns/deployments?watch=true&labelSelector=a%3Db`,
    );
    assert.equal(joinServerUrl(`${server}/`, '/api/v1/pods'), `${server}/api/v1/pods`);
    assert.equal(joinServerUrl(`${server}//`, '//api/v1/pods'), `${server}/api/v1/pods`);
    assert.equal(joinServerUrl(server, 'api/v1/pods?limit=500'), `${server}/api/v1/pods?limit=500`);
    // No prefix: the request path is the URL's whole path.
    assert.equal(joinServerUrl('https://10.0.0.1:6443', '/api/v1?x=1'), 'https://10.0.0.1:6443/api/v1?x=1');
  });

  test('a kubeconfig or KubeFedCluster server keeps its path, without trailing or duplicate slashes', () => {
    const rc = (server: string) => restConfigFromParts({ name: 'c1', server }).server;
    assert.equal(rc('https://r.example/k8s/clusters/c1/'), 'https://r.example/k8s/clusters/c1');
    assert.equal(rc('https://r.example//k8s//clusters/c1'), 'https://r.example/k8s/clusters/c1');
    assert.equal(rc('https://10.0.0.1:6443//'), 'https://10.0.0.1:6443');
    assert.equal(rc('r.example:8443/p'), 'https://r.example:8443/p');
  });
});
