import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KUBEFED_CONFIG_DEFAULTS } from '../../src/config/index.ts';
import type { KubeClient, KubeObject } from '../../src/kube/client/index.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { type Sample, scrape, value } from '../../src/testing/prometheus.ts';
import {
  createFederatedNamespace,
  eventually,
  federatedConfigMap,
  getOrUndefined,
  startPropagation,
  T,
} from './federation-helpers.ts';

const NAMESPACE = 'metrics-test';
const NAMES = ['m-0', 'm-1', 'm-2'];

const fcm = (name: string, data: Record<string, string>): KubeObject =>
  federatedConfigMap(name, NAMESPACE, data);

describe('/metrics of a running federation', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2'] });
    ({ host, cm } = await startPropagation(fed));
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  /** Scrapes until `check` holds, so that values written by the next probe or reconcile are waited for. */
  const scrapeUntil = (what: string, check: (s: Sample[]) => boolean, timeoutMs = 30_000) =>
    eventually(what, () => scrape(cm.metricsUrl), check, timeoutMs);

  test('cluster health, leader, worker and client series before anything is federated', async () => {
    const s = await scrapeUntil(
      'both members ready in kubefedcluster_total, and the ConfigMap sync controller started',
      (s) =>
        value(s, 'kubefedcluster_total', { state: 'ready', cluster: 'cluster1' }) === 1 &&
        value(s, 'kubefedcluster_total', { state: 'ready', cluster: 'cluster2' }) === 1 &&
        value(s, 'controller_runtime_max_concurrent_reconciles', { controller: 'federatedconfigmap' }) !==
          undefined &&
        // Member clients of the sync controllers, built once their clusters are known (one per member).
        (value(s, 'cluster_client_connection_duration_seconds_count') ?? 0) >= 2,
    );
    for (const cluster of ['cluster1', 'cluster2']) {
      assert.equal(value(s, 'kubefedcluster_total', { state: 'notready', cluster }), 0);
      assert.equal(value(s, 'kubefedcluster_total', { state: 'offline', cluster }), 0);
    }
    assert.equal(value(s, 'joined_cluster_total'), 2);
    assert.ok((value(s, 'cluster_health_status_duration_seconds_count') ?? 0) >= 2);
    assert.equal(value(s, 'leader_election_master_status', { name: 'kubefed-controller-manager' }), 1);
    // The sync controller of FederatedConfigMaps runs with the default number of workers.
    assert.equal(
      value(s, 'controller_runtime_max_concurrent_reconciles', { controller: 'federatedconfigmap' }),
      KUBEFED_CONFIG_DEFAULTS.syncController.maxConcurrentReconciles,
    );
    assert.equal(
      value(s, 'controller_runtime_max_concurrent_reconciles', { controller: 'federatedtypeconfig' }),
      1,
    );
    assert.notEqual(
      value(s, 'controller_runtime_active_workers', { controller: 'federatedconfigmap' }),
      undefined,
    );
    // Host and member API requests are told apart by cluster.
    assert.ok(
      (value(s, 'rest_client_requests_total', { cluster: 'host', method: 'GET', code: '200' }) ?? 0) > 0,
    );
    for (const cluster of ['cluster1', 'cluster2']) {
      assert.ok(
        (value(s, 'rest_client_requests_total', { cluster, method: 'GET', code: '200' }) ?? 0) > 0,
        `requests to ${cluster} are labelled with its name`,
      );
      assert.ok((value(s, 'rest_client_request_duration_seconds_count', { cluster }) ?? 0) > 0);
    }
  });

  test("the native front end's controllers run with the sync controllers' worker count", async () => {
    const policyControllers = ['policy-detector', 'policy-scheduler', 'policy-binding'];
    const s = await scrapeUntil('the policy source started', (s) =>
      policyControllers.every(
        (controller) =>
          value(s, 'controller_runtime_max_concurrent_reconciles', { controller }) !== undefined,
      ),
    );
    for (const controller of policyControllers) {
      assert.equal(
        value(s, 'controller_runtime_max_concurrent_reconciles', { controller }),
        KUBEFED_CONFIG_DEFAULTS.syncController.maxConcurrentReconciles,
        controller,
      );
    }
  });

  test('federating objects moves reconcile, work queue and dispatch series', async () => {
    const before = await scrape(cm.metricsUrl);
    const reconciles = (s: Sample[]) =>
      value(s, 'controller_runtime_reconcile_total', { controller: 'federatedconfigmap' }) ?? 0;
    const creates = (s: Sample[], cluster: string) =>
      value(s, 'dispatch_operation_duration_seconds_count', { action: 'create', cluster }) ?? 0;

    await createFederatedNamespace(host, NAMESPACE);
    for (const name of NAMES) await host.create(T.fcm, fcm(name, { n: name }));
    for (const m of fed.members) {
      const member = m.client();
      for (const name of NAMES) {
        await eventually(
          `${m.name}/${name}`,
          () => getOrUndefined(member, T.configmaps, name, NAMESPACE),
          (o) => o !== undefined,
        );
      }
    }
    const s = await scrapeUntil(
      'reconciles counted',
      (s) => reconciles(s) >= reconciles(before) + NAMES.length,
    );
    assert.ok(
      (value(s, 'controller_runtime_reconcile_total', {
        controller: 'federatedconfigmap',
        result: 'success',
      }) ?? 0) > 0,
    );
    assert.ok(
      (value(s, 'controller_runtime_reconcile_time_seconds_count', { controller: 'federatedconfigmap' }) ??
        0) > 0,
    );
    for (const cluster of ['cluster1', 'cluster2']) {
      // The namespace and the three ConfigMaps were created in each member.
      assert.ok(
        creates(s, cluster) >= creates(before, cluster) + NAMES.length + 1,
        `${cluster}: ${creates(before, cluster)} -> ${creates(s, cluster)} creates`,
      );
      assert.ok((value(s, 'rest_client_requests_total', { cluster, method: 'POST', code: '201' }) ?? 0) > 0);
    }
    assert.ok(
      (value(s, 'workqueue_adds_total', { name: 'federatedconfigmap' }) ?? 0) >=
        (value(before, 'workqueue_adds_total', { name: 'federatedconfigmap' }) ?? 0) + NAMES.length,
    );
    assert.notEqual(value(s, 'workqueue_depth', { name: 'federatedconfigmap' }), undefined);
    assert.ok((value(s, 'workqueue_work_duration_seconds_count', { name: 'federatedconfigmap' }) ?? 0) > 0);

    // An update and a deletion are timed as such.
    const updates = (x: Sample[]) =>
      value(x, 'dispatch_operation_duration_seconds_count', { action: 'update' }) ?? 0;
    const deletes = (x: Sample[]) =>
      value(x, 'dispatch_operation_duration_seconds_count', { action: 'delete' }) ?? 0;
    const obj = await host.get<KubeObject & { spec: Record<string, unknown> }>(T.fcm, 'm-0', NAMESPACE);
    await host.update(T.fcm, { ...obj, spec: { ...obj.spec, template: { data: { n: 'changed' } } } });
    await host.delete(T.fcm, 'm-1', { namespace: NAMESPACE });
    await scrapeUntil(
      'an update and a delete per member',
      (x) => updates(x) >= updates(s) + 2 && deletes(x) >= deletes(s) + 2,
    );
  });

  test('a stopped member shows as offline while the other stays ready', async () => {
    await fed.cluster('cluster2').stopApiServer();
    const s = await scrapeUntil(
      'cluster2 offline',
      (s) => value(s, 'kubefedcluster_total', { state: 'offline', cluster: 'cluster2' }) === 1,
    );
    assert.equal(value(s, 'kubefedcluster_total', { state: 'ready', cluster: 'cluster2' }), 0);
    assert.equal(value(s, 'kubefedcluster_total', { state: 'ready', cluster: 'cluster1' }), 1);
    // Failed requests to the stopped member are counted against it, without an HTTP code.
    await scrapeUntil(
      'failed requests to cluster2 counted',
      (x) => (value(x, 'rest_client_requests_total', { cluster: 'cluster2', code: '<error>' }) ?? 0) > 0,
    );
    await fed.cluster('cluster2').startApiServer();
    await scrapeUntil(
      'cluster2 ready again',
      (x) => value(x, 'kubefedcluster_total', { state: 'ready', cluster: 'cluster2' }) === 1,
      60_000,
    );
  });
});
