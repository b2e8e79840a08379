import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import {
  API_VERSION as DNS_API,
  DomainType,
  ExternalDnsEndpointType,
  IngressDNSRecordType,
  ServiceDNSRecordType,
} from '../../src/api/multiclusterdns/v1alpha1/index.ts';
import { applyCrds } from '../../src/install/control-plane.ts';
import type { KubeClient, KubeObject, ResourceType } from '../../src/kube/client/index.ts';
import { externalDnsCrdFile } from '../../src/testing/binaries.ts';
import { type BindServer, startBind } from '../../src/testing/bind.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { queryA, queryCname } from '../../src/testing/dns-query.ts';
import { startExternalDns } from '../../src/testing/external-dns.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  createFederatedNamespace,
  eventReasons,
  eventually,
  FED_GROUP,
  FED_VERSION,
  fedType,
  getOrUndefined,
  startPropagation,
  T,
} from './federation-helpers.ts';
import { NS } from './helpers.ts';

const NSX = 'dns';
const ZONE = 'example.test';
const API = `${FED_GROUP}/${FED_VERSION}`;
const Services: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'services',
  namespaced: true,
  kind: 'Service',
};
const Ingresses: ResourceType = {
  group: 'networking.k8s.io',
  version: 'v1',
  plural: 'ingresses',
  namespaced: true,
  kind: 'Ingress',
};
const FSVC = fedType('FederatedService', 'federatedservices');
const FING = fedType('FederatedIngress', 'federatedingresses');
const TOPOLOGY: Record<string, { region: string; zone: string }> = {
  cluster1: { region: 'us-east1', zone: 'us-east1-b' },
  cluster2: { region: 'eu-west1', zone: 'eu-west1-a' },
};
const LB: Record<string, string> = { cluster1: '198.51.100.1', cluster2: '198.51.100.2' };
const GLOBAL = `nginx.${NSX}.galactic.svc.${ZONE}`;
const region = (c: string) => `nginx.${NSX}.galactic.svc.${TOPOLOGY[c]?.region}.${ZONE}`;
const zone = (c: string) => `nginx.${NSX}.galactic.svc.${TOPOLOGY[c]?.zone}.${TOPOLOGY[c]?.region}.${ZONE}`;

describe('multi-cluster DNS end to end: records → DNSEndpoint → ExternalDNS → BIND9', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let bind: BindServer;
  let stopExternalDns: () => Promise<void>;

  before(async () => {
    fed = await startFederation({
      members: ['cluster1', 'cluster2'],
      workloads: true,
      nodes: (c) => [
        {
          name: `${c}-node`,
          labels: {
            'topology.kubernetes.io/region': TOPOLOGY[c]?.region ?? '',
            'topology.kubernetes.io/zone': TOPOLOGY[c]?.zone ?? '',
          },
        },
      ],
    });
    // Today's ExternalDNS reads only its own group (externaldns.k8s.io; KubeFed's group is covered with an
    // older ExternalDNS in dns-infra.test.ts), so the controller manager is told to write that one.
    ({ host, cm } = await startPropagation(fed, { args: ['--dns-endpoint-api=externaldns.k8s.io'] }));
    await applyCrds(host, [parseYaml(readFileSync(externalDnsCrdFile('current'), 'utf8')) as KubeObject]);
    bind = await startBind({ dir: join(fed.dir, 'bind'), zone: ZONE });
    const ed = await startExternalDns({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      bind,
      apiVersion: 'externaldns.k8s.io/v1alpha1',
      ownerId: 'kubefed-ts-test',
      logFile: join(fed.dir, 'external-dns.log'),
    });
    stopExternalDns = () => ed.stop();
    await createFederatedNamespace(host, NSX);
    await host.create(DomainType, {
      apiVersion: DNS_API,
      kind: 'Domain',
      metadata: { name: 'galactic', namespace: NS },
      domain: ZONE,
    });
  });
  after(async () => {
    await stopExternalDns?.();
    await bind?.stop();
    await cm?.process.stop();
    await fed?.stop();
  });

  /** Sets the member Service's load balancer, as a cloud controller would. */
  async function setLoadBalancer(
    cluster: string,
    type: ResourceType,
    name: string,
    ip: string,
  ): Promise<void> {
    const c = fed.cluster(cluster).client();
    const obj = await eventually(
      `${type.kind} ${name} in ${cluster}`,
      () => getOrUndefined<KubeObject>(c, type, name, NSX),
      Boolean,
      60_000,
    );
    await c.update(type, { ...obj, status: { loadBalancer: { ingress: [{ ip }] } } } as KubeObject, {
      subresource: 'status',
    });
  }

  test('global, region and zone names resolve to the serving clusters; a member without endpoints falls back to CNAMEs', async () => {
    await host.create(T.fdeploy, {
      apiVersion: API,
      kind: 'FederatedDeployment',
      metadata: { name: 'nginx', namespace: NSX },
      spec: {
        template: {
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'nginx' } },
            template: {
              metadata: { labels: { app: 'nginx' } },
              spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
            },
          },
        },
        placement: { clusterSelector: {} },
      },
    });
    await host.create(FSVC, {
      apiVersion: API,
      kind: 'FederatedService',
      metadata: { name: 'nginx', namespace: NSX },
      spec: {
        template: {
          spec: { type: 'LoadBalancer', selector: { app: 'nginx' }, ports: [{ port: 80, targetPort: 80 }] },
        },
        placement: { clusterSelector: {} },
      },
    });
    for (const c of ['cluster1', 'cluster2']) await setLoadBalancer(c, Services, 'nginx', LB[c] ?? '');
    await host.create(ServiceDNSRecordType, {
      apiVersion: DNS_API,
      kind: 'ServiceDNSRecord',
      metadata: { name: 'nginx', namespace: NSX },
      spec: { domainRef: 'galactic', recordTTL: 60 },
    });

    await eventually(
      'global name answers with both clusters',
      () => queryA(bind.port, GLOBAL),
      (ips) => JSON.stringify(ips) === JSON.stringify([LB.cluster1, LB.cluster2]),
      90_000,
    );
    for (const c of ['cluster1', 'cluster2']) {
      // ExternalDNS applies changes in batches: each name is waited for, not read once.
      for (const n of [region(c), zone(c)]) {
        await eventually(
          `${n} answers with ${c}`,
          () => queryA(bind.port, n),
          (ips) => JSON.stringify(ips) === JSON.stringify([LB[c]]),
        );
      }
    }
    const rec = await host.get<
      KubeObject & {
        status?: { domain?: string; dns?: Array<{ cluster: string; region?: string; zones?: string[] }> };
      }
    >(ServiceDNSRecordType, 'nginx', NSX);
    assert.equal(rec.status?.domain, ZONE);
    assert.deepEqual(
      rec.status?.dns?.map((d) => [d.cluster, d.region, d.zones]),
      [
        ['cluster1', 'us-east1', ['us-east1-b']],
        ['cluster2', 'eu-west1', ['eu-west1-a']],
      ],
    );
    const ep = await host.get<KubeObject & { spec?: { endpoints?: Array<{ recordTTL?: number }> } }>(
      ExternalDnsEndpointType,
      'service-nginx',
      NSX,
    );
    assert.ok(ep.spec?.endpoints?.every((e) => e.recordTTL === 60));

    // cluster2 loses its ready endpoints: its IP leaves the global answer, its region name becomes a CNAME.
    await host.patch(
      T.fdeploy,
      'nginx',
      {
        spec: {
          overrides: [{ clusterName: 'cluster2', clusterOverrides: [{ path: '/spec/replicas', value: 0 }] }],
        },
      },
      { namespace: NSX },
    );
    await eventually(
      'global name answers with cluster1 only',
      () => queryA(bind.port, GLOBAL),
      (ips) => JSON.stringify(ips) === JSON.stringify([LB.cluster1]),
      90_000,
    );
    await eventually(
      'cluster2 region name is a CNAME to the global name',
      () => queryCname(bind.port, region('cluster2')),
      (t) => JSON.stringify(t) === JSON.stringify([GLOBAL]),
    );

    // cluster2 serves again; then cluster1 goes not ready: its IP leaves the global answer.
    await host.patch(T.fdeploy, 'nginx', { spec: { overrides: [] } }, { namespace: NSX });
    await eventually(
      'both clusters serve again',
      () => queryA(bind.port, GLOBAL),
      (ips) => JSON.stringify(ips) === JSON.stringify([LB.cluster1, LB.cluster2]),
      90_000,
    );
    await fed.cluster('cluster1').stopApiServer();
    try {
      await eventually(
        'global name answers with cluster2 only',
        () => queryA(bind.port, GLOBAL),
        (ips) => JSON.stringify(ips) === JSON.stringify([LB.cluster2]),
        90_000,
      );
      await eventually(
        'cluster1 region name is a CNAME to the global name',
        () => queryCname(bind.port, region('cluster1')),
        (t) => JSON.stringify(t) === JSON.stringify([GLOBAL]),
      );
    } finally {
      await fed.cluster('cluster1').startApiServer();
    }
  });

  test('an IngressDNSRecord publishes every host with the union of the members’ ingress IPs', async () => {
    await host.create(FING, {
      apiVersion: API,
      kind: 'FederatedIngress',
      metadata: { name: 'web', namespace: NSX },
      spec: {
        template: { spec: { defaultBackend: { service: { name: 'nginx', port: { number: 80 } } } } },
        placement: { clusterSelector: {} },
      },
    });
    for (const c of ['cluster1', 'cluster2']) await setLoadBalancer(c, Ingresses, 'web', LB[c] ?? '');
    await host.create(IngressDNSRecordType, {
      apiVersion: DNS_API,
      kind: 'IngressDNSRecord',
      metadata: { name: 'web', namespace: NSX },
      spec: { hosts: [`web.${ZONE}`, `www.${ZONE}`] },
    });
    for (const name of [`web.${ZONE}`, `www.${ZONE}`]) {
      await eventually(
        `${name} answers with both clusters`,
        () => queryA(bind.port, name),
        (ips) => JSON.stringify(ips) === JSON.stringify([LB.cluster1, LB.cluster2]),
        90_000,
      );
    }
    // A member that goes not ready leaves every host's answer.
    await fed.cluster('cluster2').stopApiServer();
    try {
      await eventually(
        'web answers with cluster1 only',
        () => queryA(bind.port, `web.${ZONE}`),
        (ips) => JSON.stringify(ips) === JSON.stringify([LB.cluster1]),
        90_000,
      );
    } finally {
      await fed.cluster('cluster2').startApiServer();
    }
  });

  test('bad input: a missing Domain and a record without a federated Service get a clear status and an event', async () => {
    await host.create(ServiceDNSRecordType, {
      apiVersion: DNS_API,
      kind: 'ServiceDNSRecord',
      metadata: { name: 'no-domain', namespace: NSX },
      spec: { domainRef: 'nowhere' },
    });
    await host.create(ServiceDNSRecordType, {
      apiVersion: DNS_API,
      kind: 'ServiceDNSRecord',
      metadata: { name: 'no-service', namespace: NSX },
      spec: { domainRef: 'galactic' },
    });
    type Rec = KubeObject & {
      status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
    };
    const a = await eventually(
      'DomainNotFound',
      () => host.get<Rec>(ServiceDNSRecordType, 'no-domain', NSX),
      (o) => o.status?.conditions?.[0]?.reason === 'DomainNotFound',
    );
    assert.equal(a.status?.conditions?.[0]?.status, 'False');
    assert.ok((await eventReasons(host, NSX, 'no-domain')).includes('DomainNotFound'));
    const b = await eventually(
      'no federated Service',
      () => host.get<Rec>(ServiceDNSRecordType, 'no-service', NSX),
      (o) => /no member cluster has a federated Service/.test(o.status?.conditions?.[0]?.message ?? ''),
    );
    assert.equal(b.status?.conditions?.[0]?.status, 'False');
    assert.ok(cm.process.running);
  });
});
