import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { ServiceExportType } from '../../src/api/mcs/v1beta1/index.ts';
import { CoreTypes, type KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import { externalDnsCrdFile } from '../../src/testing/binaries.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import {
  queryA,
  queryAaaa,
  queryRcode,
  querySoaSerial,
  querySrv,
  queryTxt,
} from '../../src/testing/dns-query.ts';
import { type ExternalDns, startExternalDns } from '../../src/testing/external-dns.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { type PowerDnsServer, startPowerDns } from '../../src/testing/pdns.ts';
import { establishCrd, eventually } from './federation-helpers.ts';
import {
  awaitImport,
  condition,
  createNamespace,
  Deployments,
  DUAL_STACK_SERVICE_RANGE,
  deleteAndWait,
  dualStackNodes,
  helloDeployment,
  helloExport,
  helloService,
  type PodObject,
  readyPodIps,
  Services,
  StatefulSets,
  startMcs,
  TCP_42,
  UDP_42,
} from './mcs-fixtures.ts';

/*
 * Issue 17's DNS path end to end: the MCS controller writes DNSEndpoints into each consuming member, that
 * member's own ExternalDNS (CRD source, pdns provider, no TXT registry) publishes them into that member's
 * PowerDNS, authoritative for clusterset.local, and the answers are read from PowerDNS as a client's resolver
 * would get them (KEP-1645 specification.md §2). cluster1 runs pods and exports; cluster2 only consumes.
 * PowerDNS, not BIND: ExternalDNS's rfc2136 provider never reads SRV records back, so it never updates or
 * deletes them; the pdns provider does, and the tests below check that SRV (and A) records follow scale-downs
 * and unexports.
 */

const ZONE = 'clusterset.local';
const MEMBERS = ['cluster1', 'cluster2'];
const WAIT_MS = 60_000;

interface MemberDns {
  pdns: PowerDnsServer;
  externalDns: ExternalDns;
}

describe('MCS DNS: clusterset.local from a real PowerDNS fed by ExternalDNS in each member', () => {
  let fed: Federation;
  let cm: ControllerManagerProcess;
  let c1: KubeClient;
  let c2: KubeClient;
  const dns: Record<string, MemberDns> = {};
  const servers: PowerDnsServer[] = [];

  before(async () => {
    fed = await startFederation({
      members: MEMBERS,
      workloads: ['cluster1'],
      hostControllers: 'tokens',
      memberServiceClusterIpRange: DUAL_STACK_SERVICE_RANGE,
      nodes: (c) => dualStackNodes(c, Number(c.replace('cluster', ''))),
    });
    const dnsEndpointCrd = parse(readFileSync(externalDnsCrdFile(), 'utf8')) as {
      metadata: { name: string };
    };
    for (const m of fed.members) await establishCrd(m.client(), dnsEndpointCrd);
    ({ cm } = await startMcs(fed, { preinstall: MEMBERS }));
    [c1, c2] = MEMBERS.map((n) => fed.cluster(n).client()) as [KubeClient, KubeClient];
    for (const name of MEMBERS) {
      // The NS name has no A record: ExternalDNS owns every A record here (noop registry) and would delete it.
      const pdns = await startPowerDns({ dir: join(fed.dir, `pdns-${name}`), zone: ZONE });
      servers.push(pdns);
      const externalDns = await startExternalDns({
        kubeconfig: fed.kubeconfigPath,
        context: name,
        powerDns: pdns,
        apiVersion: 'externaldns.k8s.io/v1alpha1',
        kind: 'DNSEndpoint',
        ownerId: `mcs-${name}`,
        registry: 'noop',
        managedRecordTypes: ['A', 'AAAA', 'SRV', 'TXT'],
        logFile: join(fed.dir, `external-dns-${name}.log`),
      });
      dns[name] = { pdns, externalDns };
    }
  });
  after(async () => {
    // Every process is stopped whichever stop fails (the apiservers last); the first failure is reported.
    const stops: Array<() => Promise<unknown> | undefined> = [
      ...Object.values(dns).map((d) => () => d.externalDns.stop()),
      ...servers.map((s) => () => s.stop()),
      () => cm?.process.stop(),
      () => fed?.stop(),
    ];
    const failures: unknown[] = [];
    for (const stop of stops) {
      try {
        await stop();
      } catch (e) {
        failures.push(e);
      }
    }
    if (failures.length > 0) throw failures[0];
  });

  const port = (member: string) => (dns[member] as MemberDns).pdns.port;

  /** Polls a member's PowerDNS until `read` answers `want`; the zone and ExternalDNS's log explain a timeout. */
  async function expectDns<V>(member: string, what: string, read: (port: number) => Promise<V>, want: V) {
    const d = dns[member] as MemberDns;
    let last: V | undefined;
    try {
      await eventually(
        `${member}: ${what}`,
        async () => (last = await read(d.pdns.port)),
        (v) => JSON.stringify(v) === JSON.stringify(want),
        WAIT_MS,
      );
    } catch (e) {
      throw new Error(
        `${(e as Error).message}\nwant ${JSON.stringify(want)}, last ${JSON.stringify(last)}\nzone:\n${await d.pdns.records()}\nexternal-dns:\n${d.externalDns.process.tail(10)}`,
      );
    }
  }

  test('ClusterSetIP: A and AAAA are the member’s ServiceImport ips, SRV per named port and at the bare name, no per-cluster names; dns-version TXT "1.0.0"; idle syncs rewrite nothing; all gone after unexport', async () => {
    const ns = 'mcs-dns';
    for (const m of [c1, c2]) await createNamespace(m, ns);
    await c1.create(Services, helloService(ns));
    await c1.create(ServiceExportType, helloExport(ns));
    const fqdn = `hello.${ns}.svc.${ZONE}`;
    for (const [name, m] of [
      ['cluster1', c1],
      ['cluster2', c2],
    ] as const) {
      const i = await awaitImport(m, ns, 'with both ips', (x) => (x.spec?.ips?.length ?? 0) === 2);
      const [v4, v6] = i.spec?.ips ?? [];
      await expectDns(name, `A ${fqdn}`, (p) => queryA(p, fqdn), [v4]);
      await expectDns(name, `AAAA ${fqdn}`, (p) => queryAaaa(p, fqdn), [v6]);
      for (const [portName, proto] of [
        ['tcp', 'tcp'],
        ['udp', 'udp'],
      ]) {
        const srv = `_${portName}._${proto}.${fqdn}`;
        await expectDns(
          name,
          `SRV ${srv}`,
          async (p) => (await querySrv(p, srv)).map((r) => r.split(' ').slice(2).join(' ')),
          [`42 ${fqdn}`],
        );
      }
      // The conformance suite asks the bare name (nslookup -type=SRV hello.<ns>.svc.clusterset.local) and
      // expects exactly one record: tcp/42 and udp/42 give the same target.
      await expectDns(
        name,
        `SRV ${fqdn}`,
        async (p) => (await querySrv(p, fqdn)).map((r) => r.split(' ').slice(2).join(' ')),
        [`42 ${fqdn}`],
      );
      // The spec forbids per-cluster names for ClusterSetIP services.
      for (const id of ['cluster1', 'cluster2']) {
        assert.deepEqual(await queryA(port(name), `${id}.${fqdn}`), [], `${name}: no ${id}.${fqdn}`);
      }
    }
    // The schema record, which the controller writes while some service is imported.
    for (const m of MEMBERS) {
      await expectDns(m, 'the schema version', (p) => queryTxt(p, `dns-version.${ZONE}`), ['1.0.0']);
    }
    // What ExternalDNS reads back (quoted TXT, SRV targets with the final dot, TTLs) equals what it wants:
    // with soa_edit_api INCREASE every API change bumps the serial, so idle syncs must leave it put.
    for (const m of MEMBERS) {
      const d = dns[m] as MemberDns;
      const before = await querySoaSerial(d.pdns.port, ZONE);
      for (let i = 0; i < 3; i++) await d.externalDns.waitForNextSync();
      assert.equal(
        await querySoaSerial(d.pdns.port, ZONE),
        before,
        `${m}: the zone was rewritten by idle syncs\nzone:\n${await d.pdns.records()}\nexternal-dns:\n${d.externalDns.process.tail(10)}`,
      );
      assert.match(await d.pdns.records(), /^dns-version\.clusterset\.local\. 28800 TXT "1\.0\.0"$/m);
    }
    await deleteAndWait(c1, ServiceExportType, ns);
    for (const m of MEMBERS) {
      for (const portName of ['tcp', 'udp']) {
        const srv = `_${portName}._${portName}.${fqdn}`;
        await expectDns(m, `no SRV ${srv} after unexport`, (p) => querySrv(p, srv), []);
      }
      await expectDns(m, `no SRV ${fqdn} after unexport`, (p) => querySrv(p, fqdn), []);
      await expectDns(m, `NXDOMAIN for ${fqdn} after unexport`, (p) => queryRcode(p, fqdn, 'A'), 'NXDOMAIN');
      // The SRV records go too (what the rfc2136 provider never did): the name would otherwise stay an empty
      // non-terminal, NODATA rather than NXDOMAIN, with SRV targets pointing at a name that is gone.
      for (const srv of [`_tcp._tcp.${fqdn}`, `_udp._udp.${fqdn}`]) {
        await expectDns(
          m,
          `NXDOMAIN for SRV ${srv} after unexport`,
          (p) => queryRcode(p, srv, 'SRV'),
          'NXDOMAIN',
        );
      }
      // The schema record stays with nothing imported (released, not deleted): §2.2 wants it regardless.
      await expectDns(m, 'the schema version after unexport', (p) => queryTxt(p, `dns-version.${ZONE}`), [
        '1.0.0',
      ]);
    }
  });

  test('Headless: A/AAAA per ready endpoint, <hostname>.<clusterid> names, SRV to them (also at the bare name); NXDOMAIN without ready endpoints', async () => {
    const ns = 'mcs-dns-headless';
    for (const m of [c1, c2]) await createNamespace(m, ns);
    await c1.create(
      Services,
      helloService(ns, { clusterIP: 'None', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }, 'web'),
    );
    // OrderedReady (the default), not Parallel: these are the node's first pods, and kwok v0.8.0 creates a
    // node's IP pool lazily without a lock (PodController.ipPool in pkg/kwok/controllers/pod_controller.go),
    // so two pods made ready at once could both get its first IP (seen in CI). One at a time, web-1 finds
    // the pool web-0 made.
    await c1.create(StatefulSets, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'web', namespace: ns },
      spec: {
        serviceName: 'web',
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    } as KubeObject);
    const ready = await eventually(
      'two ready web pods',
      () => readyPodIps(c1, ns, 'web'),
      (ips) => ips['IPv4']?.length === 2,
      WAIT_MS,
    );
    // Endpoints are told apart by address: two pods given one IP would be one record (see the StatefulSet).
    assert.equal(new Set(ready['IPv4']).size, 2, `distinct pod IPs, got ${ready['IPv4']}`);
    await c1.create(ServiceExportType, helloExport(ns, {}, 'web'));
    const pods = (await c1.list<PodObject>(CoreTypes.pods, { namespace: ns, labelSelector: 'app=web' }))
      .items;
    const ipsOf = (pod: PodObject, family: 'v4' | 'v6') =>
      (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip) => ip.includes(':') === (family === 'v6'));
    const fqdn = `web.${ns}.svc.${ZONE}`;
    const srv = `_http._tcp.${fqdn}`;
    for (const name of MEMBERS) {
      const m = name === 'cluster1' ? c1 : c2;
      await awaitImport(m, ns, 'of type Headless', (x) => x.spec?.type === 'Headless', 'web');
      await expectDns(name, `A ${fqdn}`, (p) => queryA(p, fqdn), pods.flatMap((x) => ipsOf(x, 'v4')).sort());
      await expectDns(
        name,
        `AAAA ${fqdn}`,
        (p) => queryAaaa(p, fqdn),
        pods.flatMap((x) => ipsOf(x, 'v6')).sort(),
      );
      for (const pod of pods) {
        const host = `${pod.metadata.name}.cluster1.${fqdn}`;
        await expectDns(name, `A ${host}`, (p) => queryA(p, host), ipsOf(pod, 'v4'));
        await expectDns(name, `AAAA ${host}`, (p) => queryAaaa(p, host), ipsOf(pod, 'v6'));
      }
      await expectDns(
        name,
        `SRV ${srv}`,
        async (p) => (await querySrv(p, srv)).map((r) => r.split(' ').slice(2).join(' ')).sort(),
        pods.map((pod) => `80 ${pod.metadata.name}.cluster1.${fqdn}`).sort(),
      );
      // The conformance suite's query: one record per endpoint at the bare name, the Service port.
      await expectDns(
        name,
        `SRV ${fqdn}`,
        async (p) => (await querySrv(p, fqdn)).map((r) => r.split(' ').slice(2).join(' ')).sort(),
        pods.map((pod) => `80 ${pod.metadata.name}.cluster1.${fqdn}`).sort(),
      );
    }
    // One pod goes: its A/AAAA leave the service name, its own name goes, and the SRV targets follow.
    await c1.patch(StatefulSets, 'web', { spec: { replicas: 1 } }, { namespace: ns });
    await eventually(
      'one ready web pod',
      () => readyPodIps(c1, ns, 'web'),
      (ips) => ips['IPv4']?.length === 1,
      WAIT_MS,
    );
    const kept = pods.find((p) => p.metadata.name === 'web-0');
    const gone = pods.find((p) => p.metadata.name === 'web-1');
    assert.ok(kept && gone, `StatefulSet pods web-0 and web-1, got ${pods.map((p) => p.metadata.name)}`);
    for (const name of MEMBERS) {
      await expectDns(name, `A ${fqdn} after scale-down`, (p) => queryA(p, fqdn), ipsOf(kept, 'v4'));
      await expectDns(name, `AAAA ${fqdn} after scale-down`, (p) => queryAaaa(p, fqdn), ipsOf(kept, 'v6'));
      await expectDns(
        name,
        `SRV ${srv} after scale-down`,
        async (p) => (await querySrv(p, srv)).map((r) => r.split(' ').slice(2).join(' ')),
        [`80 web-0.cluster1.${fqdn}`],
      );
      await expectDns(
        name,
        `SRV ${fqdn} after scale-down`,
        async (p) => (await querySrv(p, fqdn)).map((r) => r.split(' ').slice(2).join(' ')),
        [`80 web-0.cluster1.${fqdn}`],
      );
      const goneHost = `web-1.cluster1.${fqdn}`;
      await expectDns(name, `NXDOMAIN for ${goneHost}`, (p) => queryRcode(p, goneHost, 'A'), 'NXDOMAIN');
    }
    // No ready endpoints: the name does not exist (spec §2.4), it is not an empty answer.
    await c1.patch(StatefulSets, 'web', { spec: { replicas: 0 } }, { namespace: ns });
    await eventually(
      'no ready web pods',
      () => readyPodIps(c1, ns, 'web'),
      (ips) => ips['IPv4']?.length === 0,
      WAIT_MS,
    );
    for (const name of MEMBERS) {
      const srv = `_http._tcp.${fqdn}`;
      await expectDns(name, `no SRV ${srv} without ready endpoints`, (p) => querySrv(p, srv), []);
      await expectDns(
        name,
        `NXDOMAIN for ${fqdn} without ready endpoints`,
        (p) => queryRcode(p, fqdn, 'A'),
        'NXDOMAIN',
      );
      await expectDns(name, `NXDOMAIN for SRV ${srv}`, (p) => queryRcode(p, srv, 'SRV'), 'NXDOMAIN');
      await expectDns(name, `NXDOMAIN for SRV ${fqdn}`, (p) => queryRcode(p, fqdn, 'SRV'), 'NXDOMAIN');
      const host = `web-0.cluster1.${fqdn}`;
      await expectDns(name, `NXDOMAIN for ${host}`, (p) => queryRcode(p, host, 'A'), 'NXDOMAIN');
    }
    const exp = await c1.get<
      KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }
    >(ServiceExportType, 'web', ns);
    assert.equal(condition(exp, 'Valid')?.status, 'True', 'the export itself stays valid');
  });

  test('Headless from a Deployment (no hostnames, targetPort ≠ port): endpoints named by their dashed address, SRV with the Service port', async () => {
    const ns = 'mcs-dns-deployment';
    for (const m of [c1, c2]) await createNamespace(m, ns);
    await c1.create(
      Services,
      helloService(ns, {
        clusterIP: 'None',
        ports: [
          { ...TCP_42, targetPort: 8042 },
          { ...UDP_42, targetPort: 8042 },
        ],
      }),
    );
    await c1.create(Deployments, helloDeployment(ns, 2));
    await eventually(
      'two ready hello pods',
      () => readyPodIps(c1, ns),
      (ips) => ips['IPv4']?.length === 2 && ips['IPv6']?.length === 2,
      WAIT_MS,
    );
    await c1.create(ServiceExportType, helloExport(ns));
    const ips = await readyPodIps(c1, ns);
    const v4 = ips['IPv4'] ?? [];
    const v6 = ips['IPv6'] ?? [];
    // The conformance suite's id for an endpoint without hostname (awaitK8sEndpoints): `.` or `:` → `-`.
    const dashed = (ip: string) => ip.replaceAll(/[.:]/g, '-');
    const fqdn = `hello.${ns}.svc.${ZONE}`;
    const targets = [...v4, ...v6].map((ip) => `42 ${dashed(ip)}.cluster1.${fqdn}`).sort();
    for (const name of MEMBERS) {
      const m = name === 'cluster1' ? c1 : c2;
      await awaitImport(m, ns, 'of type Headless', (x) => x.spec?.type === 'Headless');
      await expectDns(name, `A ${fqdn}`, (p) => queryA(p, fqdn), v4);
      await expectDns(name, `AAAA ${fqdn}`, (p) => queryAaaa(p, fqdn), v6);
      for (const ip of v4) {
        const host = `${dashed(ip)}.cluster1.${fqdn}`;
        await expectDns(name, `A ${host}`, (p) => queryA(p, host), [ip]);
      }
      for (const ip of v6) {
        const host = `${dashed(ip)}.cluster1.${fqdn}`;
        await expectDns(name, `AAAA ${host}`, (p) => queryAaaa(p, host), [ip]);
      }
      // The Service port (42), not the pods' 8042 (§2.4.2; the suite checks Spec.Ports[0].Port).
      for (const srv of [fqdn, `_tcp._tcp.${fqdn}`, `_udp._udp.${fqdn}`]) {
        await expectDns(
          name,
          `SRV ${srv}`,
          async (p) => (await querySrv(p, srv)).map((r) => r.split(' ').slice(2).join(' ')).sort(),
          targets,
        );
      }
      const pods = (await c1.list<PodObject>(CoreTypes.pods, { namespace: ns, labelSelector: 'app=hello' }))
        .items;
      for (const pod of pods) {
        const byPodName = `${pod.metadata.name}.cluster1.${fqdn}`;
        assert.equal(await queryRcode(port(name), byPodName, 'A'), 'NXDOMAIN', `${name}: no ${byPodName}`);
      }
    }
  });
});
