import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { derivedService, importIps, missingFamilies } from '../../../src/mcs/derived-service.ts';
import type { MergedImport, ServiceObject } from '../../../src/mcs/model.ts';
import { UNNAMED_PORT_NAME } from '../../../src/mcs/names.ts';

type Spec = MergedImport['spec'];
const spec = (over: Partial<Spec> = {}): Spec => ({
  type: 'ClusterSetIP',
  ports: [
    { name: 'tcp', protocol: 'TCP', port: 42 },
    { name: 'udp', protocol: 'UDP', port: 42, appProtocol: 'dns' },
  ],
  ...over,
});
const derived = (s: Spec, live?: ServiceObject) =>
  derivedService({ namespace: 'ns', importName: 'hello', spec: s, live });
const allocated = (clusterIPs: string[], ipFamilies?: string[]): ServiceObject => ({
  metadata: { name: 'derived-hello', namespace: 'ns' },
  spec: { type: 'ClusterIP', clusterIP: clusterIPs[0], clusterIPs, ...(ipFamilies ? { ipFamilies } : {}) },
});

describe('derivedService', () => {
  test('a selector-less ClusterIP Service with the import ports and affinity, never its traffic policy', () => {
    const svc = derived(
      spec({
        sessionAffinity: 'ClientIP',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
        ipFamilies: ['IPv4'],
        internalTrafficPolicy: 'Local',
        trafficDistribution: 'PreferClose',
      }),
    );
    assert.equal(svc?.spec?.selector, undefined, 'no selector: the MCS slices are its endpoints');
    assert.deepEqual(svc, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'derived-hello',
        namespace: 'ns',
        labels: { 'multicluster.kubernetes.io/service-name': 'hello' },
      },
      spec: {
        type: 'ClusterIP',
        ports: [
          { name: 'tcp', protocol: 'TCP', port: 42, targetPort: 42 },
          { name: 'udp', protocol: 'UDP', appProtocol: 'dns', port: 42, targetPort: 42 },
        ],
        sessionAffinity: 'ClientIP',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
        ipFamilyPolicy: 'PreferDualStack',
      },
    });
  });

  test('Headless imports get no derived Service', () => {
    assert.equal(derived(spec({ type: 'Headless' })), undefined);
  });

  test('IP families are the member choice: PreferDualStack, none written, whatever the import asks', () => {
    for (const ipFamilies of [undefined, ['IPv4'], ['IPv6'], ['IPv6', 'IPv4']]) {
      const svc = derived(spec(ipFamilies ? { ipFamilies } : {}));
      assert.equal(svc?.spec?.ipFamilyPolicy, 'PreferDualStack');
      assert.equal(svc?.spec?.ipFamilies, undefined);
    }
  });

  test('keeps the live cluster IPs (immutable) and what the import leaves to the member', () => {
    const live: ServiceObject = {
      metadata: { name: 'derived-hello', namespace: 'ns', resourceVersion: '7' },
      spec: {
        type: 'ClusterIP',
        clusterIP: '10.0.0.7',
        clusterIPs: ['10.0.0.7', 'fd00::7'],
        ipFamilies: ['IPv4', 'IPv6'],
        ipFamilyPolicy: 'PreferDualStack',
        sessionAffinity: 'None',
        internalTrafficPolicy: 'Cluster',
      },
    };
    const svc = derived(spec(), live);
    assert.equal(svc?.spec?.clusterIP, '10.0.0.7');
    assert.deepEqual(svc?.spec?.clusterIPs, ['10.0.0.7', 'fd00::7']);
    assert.deepEqual(svc?.spec?.ipFamilies, ['IPv4', 'IPv6']);
    assert.equal(svc?.spec?.sessionAffinity, 'None');
    assert.equal(svc?.spec?.internalTrafficPolicy, 'Cluster');
    assert.equal(svc?.spec?.sessionAffinityConfig, undefined);
  });

  test('a change of the import families never touches the allocated IPs or families', () => {
    const live = allocated(['10.0.0.7', 'fd00::7'], ['IPv4', 'IPv6']);
    const svc = derived(spec({ ipFamilies: ['IPv6'] }), live);
    assert.equal(svc?.spec?.clusterIP, '10.0.0.7');
    assert.deepEqual(svc?.spec?.clusterIPs, ['10.0.0.7', 'fd00::7']);
    assert.deepEqual(svc?.spec?.ipFamilies, ['IPv4', 'IPv6']);
  });

  test('the import values win over the live ones it sets', () => {
    const live: ServiceObject = {
      metadata: { name: 'derived-hello' },
      spec: { sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', clusterIP: '10.0.0.7' },
    };
    const svc = derived(
      spec({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } }),
      live,
    );
    assert.equal(svc?.spec?.sessionAffinity, 'ClientIP');
    assert.deepEqual(svc?.spec?.sessionAffinityConfig, { clientIP: { timeoutSeconds: 5 } });
    assert.deepEqual(svc?.spec?.clusterIPs, undefined);
    assert.equal(svc?.spec?.clusterIP, '10.0.0.7');
  });

  test('session affinity config is left out unless the affinity is ClientIP', () => {
    const svc = derived(
      spec({ sessionAffinity: 'None', sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } }),
    );
    assert.equal(svc?.spec?.sessionAffinityConfig, undefined);
  });

  test('an unnamed port among others gets a name (a Service with several ports must name them all)', () => {
    const svc = derived(spec({ ports: [{ port: 80 }, { name: 'https', protocol: 'TCP', port: 443 }] }));
    assert.deepEqual(svc?.spec?.ports, [
      { name: UNNAMED_PORT_NAME, protocol: 'TCP', port: 80, targetPort: 80 },
      { name: 'https', protocol: 'TCP', port: 443, targetPort: 443 },
    ]);
  });

  test('a long import name gives a hashed derived name', () => {
    const svc = derivedService({
      namespace: 'ns',
      importName: 'x'.repeat(63),
      spec: spec(),
      live: undefined,
    });
    assert.ok((svc?.metadata.name ?? '').length <= 63);
    assert.match(svc?.metadata.name ?? '', /^derived-x+-[0-9a-f]{10}$/);
  });
});

describe('importIps', () => {
  test('the cluster IPs in the import ipFamilies order', () => {
    const live = allocated(['fd00::7', '10.0.0.7'], ['IPv6', 'IPv4']);
    assert.deepEqual(importIps(spec({ ipFamilies: ['IPv4', 'IPv6'] }), live), ['10.0.0.7', 'fd00::7']);
    assert.deepEqual(importIps(spec({ ipFamilies: ['IPv6', 'IPv4'] }), live), ['fd00::7', '10.0.0.7']);
  });

  test('[] for Headless, without a derived Service and while unallocated', () => {
    assert.deepEqual(importIps(spec({ type: 'Headless' }), allocated(['10.0.0.7'])), []);
    assert.deepEqual(importIps(spec({ ipFamilies: ['IPv4'] }), undefined), []);
    assert.deepEqual(
      importIps(spec({ ipFamilies: ['IPv4'] }), { metadata: {}, spec: { type: 'ClusterIP' } }),
      [],
    );
  });

  test('a family the Service did not get has no IP', () => {
    assert.deepEqual(importIps(spec({ ipFamilies: ['IPv4', 'IPv6'] }), allocated(['10.0.0.7'])), [
      '10.0.0.7',
    ]);
  });

  test('an import naming no families takes what was allocated', () => {
    assert.deepEqual(importIps(spec(), allocated(['10.0.0.7', 'fd00::7'])), ['10.0.0.7', 'fd00::7']);
  });

  test('clusterIP alone (no clusterIPs) counts', () => {
    const old: ServiceObject = { metadata: {}, spec: { clusterIP: '10.0.0.9' } };
    assert.deepEqual(importIps(spec({ ipFamilies: ['IPv4'] }), old), ['10.0.0.9']);
  });
});

describe('missingFamilies', () => {
  test('a family asked for and not allocated is missing', () => {
    assert.deepEqual(missingFamilies(spec({ ipFamilies: ['IPv4', 'IPv6'] }), allocated(['10.0.0.7'])), [
      'IPv6',
    ]);
  });

  test('none missing when every family got its IP', () => {
    const live = allocated(['10.0.0.7', 'fd00::7']);
    assert.deepEqual(missingFamilies(spec({ ipFamilies: ['IPv6', 'IPv4'] }), live), []);
  });

  test('not yet known: no derived Service, or nothing allocated; never for Headless', () => {
    assert.deepEqual(missingFamilies(spec({ ipFamilies: ['IPv6'] }), undefined), []);
    assert.deepEqual(missingFamilies(spec({ ipFamilies: ['IPv6'] }), { metadata: {}, spec: {} }), []);
    assert.deepEqual(
      missingFamilies(spec({ type: 'Headless', ipFamilies: ['IPv6'] }), allocated(['10.0.0.7'])),
      [],
    );
  });

  test('internalTrafficPolicy Local stays on the import: the derived Service is put back to Cluster', () => {
    // Imported endpoints have no nodeName: under Local kube-proxy would route the clusterset IP nowhere.
    const live: ServiceObject = {
      metadata: { name: 'derived-hello' },
      spec: { internalTrafficPolicy: 'Local', clusterIP: '10.0.0.7' },
    };
    assert.equal(derived(spec({ internalTrafficPolicy: 'Local' }))?.spec?.internalTrafficPolicy, undefined);
    assert.equal(
      derived(spec({ internalTrafficPolicy: 'Local' }), live)?.spec?.internalTrafficPolicy,
      'Cluster',
    );
  });
});
