import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultKubeFedConfigSpec } from '../../../src/config/index.ts';
import { type AdmissionReviewResponse, admit, WebhookPath } from '../../../src/webhook/admission.ts';

type Req = Record<string, unknown>;

const review = (request: Req | undefined, apiVersion = 'admission.k8s.io/v1') =>
  JSON.stringify({ apiVersion, kind: 'AdmissionReview', ...(request ? { request } : {}) });

const core = (resource: string) => ({ group: 'core.kubefed.io', version: 'v1beta1', resource });

const request = (over: Req): Req => ({
  uid: 'f0b5e6a2-1',
  operation: 'CREATE',
  namespace: 'kube-federation-system',
  name: 'x',
  ...over,
});

const badCluster = { spec: { apiEndpoint: '', secretRef: { name: 'x' } } };
const goodCluster = { spec: { apiEndpoint: 'https://10.0.0.1', secretRef: { name: 'x' } } };

function respond(path: WebhookPath, body: string): AdmissionReviewResponse['response'] {
  return admit(path, body).review.response;
}

describe('admit: AdmissionReview encoding', () => {
  test('the uid is echoed, the apiVersion follows the request', () => {
    const r = admit(
      WebhookPath.ValidateKubeFedCluster,
      review(request({ resource: core('kubefedclusters'), object: goodCluster }), 'admission.k8s.io/v1beta1'),
    );
    assert.deepEqual(r.review, {
      apiVersion: 'admission.k8s.io/v1beta1',
      kind: 'AdmissionReview',
      response: { uid: 'f0b5e6a2-1', allowed: true },
    });
  });

  test('a validation failure is a 403 Forbidden with the aggregated field errors', () => {
    const res = respond(
      WebhookPath.ValidateKubeFedCluster,
      review(request({ resource: core('kubefedclusters'), object: badCluster })),
    );
    assert.deepEqual(res, {
      uid: 'f0b5e6a2-1',
      allowed: false,
      status: {
        metadata: {},
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message: 'spec.apiEndpoint: Required value',
      },
    });
  });

  test('defaulting answers a base64 JSON patch on CREATE only', () => {
    const create = respond(
      WebhookPath.DefaultKubeFedConfig,
      review(request({ resource: core('kubefedconfigs'), object: { spec: { scope: 'Cluster' } } })),
    );
    assert.equal(create.allowed, true);
    assert.equal(create.patchType, 'JSONPatch');
    assert.deepEqual(JSON.parse(Buffer.from(create.patch ?? '', 'base64').toString()), [
      { op: 'replace', path: '/spec', value: defaultKubeFedConfigSpec({ scope: 'Cluster' }) },
    ]);
    const update = respond(
      WebhookPath.DefaultKubeFedConfig,
      review(
        request({
          operation: 'UPDATE',
          resource: core('kubefedconfigs'),
          object: { spec: { scope: 'Cluster' } },
        }),
      ),
    );
    assert.deepEqual(update, { uid: 'f0b5e6a2-1', allowed: true });
    const complete = respond(
      WebhookPath.DefaultKubeFedConfig,
      review(
        request({
          resource: core('kubefedconfigs'),
          object: { spec: defaultKubeFedConfigSpec({ scope: 'Cluster' }) },
        }),
      ),
    );
    assert.deepEqual(complete, { uid: 'f0b5e6a2-1', allowed: true });
  });

  test('warnings are passed on', () => {
    const res = respond(
      WebhookPath.ValidateFederated,
      review(
        request({
          resource: { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' },
          object: { spec: { template: { metadata: { annotations: { a: 'b' } } } } },
        }),
      ),
    );
    assert.equal(res.allowed, true);
    assert.equal(res.warnings?.length, 1);
  });
});

describe('admit: what each handler examines', () => {
  test('only CREATE and UPDATE', () => {
    for (const operation of ['DELETE', 'CONNECT']) {
      const res = respond(
        WebhookPath.ValidateKubeFedCluster,
        review(request({ operation, resource: core('kubefedclusters'), object: badCluster })),
      );
      assert.equal(res.allowed, true, operation);
    }
    const update = respond(
      WebhookPath.ValidateKubeFedCluster,
      review(
        request({
          operation: 'UPDATE',
          resource: core('kubefedclusters'),
          object: badCluster,
          oldObject: goodCluster,
        }),
      ),
    );
    assert.equal(update.allowed, false);
  });

  test('an UPDATE that leaves the spec unchanged is allowed, so that old objects can still be finalized', () => {
    const stored = { metadata: { name: 'x', finalizers: ['example.com/hold'] }, ...badCluster };
    const finalizerRemoved = { metadata: { name: 'x' }, ...badCluster };
    const update = (object: unknown, subResource = '') =>
      respond(
        WebhookPath.ValidateKubeFedCluster,
        review(
          request({
            operation: 'UPDATE',
            resource: core('kubefedclusters'),
            subResource,
            object,
            oldObject: stored,
          }),
        ),
      );
    assert.equal(update(finalizerRemoved).allowed, true);
    assert.equal(
      update({ ...finalizerRemoved, spec: { ...badCluster.spec, proxyURL: 'http://p' } }).allowed,
      false,
    );
    // A status update is judged on the status.
    assert.equal(update({ ...stored, status: { conditions: [{ type: 'X' }] } }, 'status').allowed, false);
    const fed = { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatedconfigmaps' };
    const bad = {
      metadata: { name: 'c' },
      spec: { overrides: [{ clusterName: 'a', clusterOverrides: [{ path: '/kind', value: 'x' }] }] },
    };
    const fedUpdate = (object: unknown) =>
      respond(
        WebhookPath.ValidateFederated,
        review(request({ operation: 'UPDATE', resource: fed, object, oldObject: bad })),
      );
    assert.equal(fedUpdate({ ...bad, metadata: { name: 'c', labels: { a: 'b' } } }).allowed, true);
    assert.equal(fedUpdate({ ...bad, spec: { ...bad.spec, placement: {} } }).allowed, false);
  });

  test('fields of the object cannot pass for a decision', () => {
    const res = respond(
      WebhookPath.ValidateKubeFedCluster,
      review(request({ resource: core('kubefedclusters'), object: { ...badCluster, allowed: true } })),
    );
    assert.equal(res.allowed, false);
  });

  test('only its own group and resource', () => {
    for (const resource of [
      { group: 'core.kubefed.io', version: 'v1beta1', resource: 'kubefedconfigs' },
      { group: 'example.com', version: 'v1beta1', resource: 'kubefedclusters' },
    ]) {
      const res = respond(
        WebhookPath.ValidateKubeFedCluster,
        review(request({ resource, object: badCluster })),
      );
      assert.equal(res.allowed, true, JSON.stringify(resource));
    }
  });

  test('status subresources get the status rules', () => {
    const obj = { ...badCluster, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    const res = respond(
      WebhookPath.ValidateKubeFedCluster,
      review(
        request({
          operation: 'UPDATE',
          resource: core('kubefedclusters'),
          subResource: 'status',
          object: obj,
        }),
      ),
    );
    assert.equal(res.status?.message, 'status.conditions[0].lastProbeTime: Required value');
    const ftc = respond(
      WebhookPath.ValidateFederatedTypeConfigs,
      review(
        request({
          operation: 'UPDATE',
          resource: core('federatedtypeconfigs'),
          subResource: 'status',
          object: { status: { propagationController: 'Running' } },
        }),
      ),
    );
    assert.equal(ftc.allowed, true);
  });

  test('KubeFedConfig: scope immutable on UPDATE', () => {
    const spec = defaultKubeFedConfigSpec({ scope: 'Cluster' });
    const res = respond(
      WebhookPath.ValidateKubeFedConfig,
      review(
        request({
          operation: 'UPDATE',
          resource: core('kubefedconfigs'),
          object: { spec: { ...spec, scope: 'Namespaced' } },
          oldObject: { spec },
        }),
      ),
    );
    assert.equal(res.status?.message, 'spec.scope: Invalid value: "Namespaced": field is immutable');
    const noOld = respond(
      WebhookPath.ValidateKubeFedConfig,
      review(request({ operation: 'UPDATE', resource: core('kubefedconfigs'), object: { spec } })),
    );
    assert.equal(noOld.status?.code, 400);
  });

  test('federated objects: any federated resource outside the KubeFed API groups, no subresource', () => {
    const forbiddenOverride = {
      spec: { overrides: [{ clusterName: 'c', clusterOverrides: [{ path: '/kind', value: 'x' }] }] },
    };
    const at = (group: string, resource: string, subResource = '') =>
      respond(
        WebhookPath.ValidateFederated,
        review(
          request({
            resource: { group, version: 'v1beta1', resource },
            subResource,
            object: forbiddenOverride,
          }),
        ),
      );
    assert.equal(at('types.kubefed.io', 'federateddeployments').allowed, false);
    assert.equal(at('federation.example.com', 'federatedwidgets').allowed, false);
    assert.equal(at('types.kubefed.io', 'federateddeployments', 'status').allowed, true);
    assert.equal(at('core.kubefed.io', 'federatedtypeconfigs').allowed, true);
    assert.equal(at('types.kubefed.io', 'deployments').allowed, true);
    const fns = respond(
      WebhookPath.ValidateFederated,
      review(
        request({
          namespace: 'apps',
          resource: { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatednamespaces' },
          object: { metadata: { name: 'other' }, spec: {} },
        }),
      ),
    );
    assert.equal(
      fns.status?.message,
      'metadata.name: Invalid value: "other": the name of a federated namespace must match the name of its containing namespace',
    );
  });
});

describe('admit: bad input is a 400, never an exception', () => {
  const bodies: Array<[string, string]> = [
    ['not JSON', 'garbage{'],
    ['empty body', ''],
    ['a JSON list', '[]'],
    ['no request', review(undefined)],
    [
      'wrong apiVersion',
      review(request({ resource: core('kubefedclusters'), object: goodCluster }), 'admission.k8s.io/v2'),
    ],
    [
      'wrong kind',
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'Pod',
        request: request({ resource: core('kubefedclusters') }),
      }),
    ],
    [
      'request is a string',
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: 'x' }),
    ],
    ['no uid', review({ operation: 'CREATE', resource: core('kubefedclusters'), object: goodCluster })],
    ['uid is a number', review(request({ uid: 7, resource: core('kubefedclusters'), object: goodCluster }))],
    ['no resource', review(request({ object: goodCluster }))],
    ['operation is a list', review(request({ operation: ['CREATE'], resource: core('kubefedclusters') }))],
    ['object is a string', review(request({ resource: core('kubefedclusters'), object: 'x' }))],
    ['object missing', review(request({ resource: core('kubefedclusters') }))],
  ];
  for (const [what, body] of bodies) {
    test(what, () => {
      const res = respond(WebhookPath.ValidateKubeFedCluster, body);
      assert.equal(res.allowed, false);
      assert.equal(res.status?.code, 400);
      assert.equal(res.status?.reason, 'BadRequest');
      assert.ok(res.status?.message, 'a message says what was wrong');
    });
  }

  test('every handler survives wrongly typed objects', () => {
    const objects: unknown[] = [
      {},
      { spec: null },
      { spec: 1 },
      {
        spec: {
          placement: 'x',
          overrides: 5,
          template: [],
          apiEndpoint: {},
          secretRef: [],
          targetType: 'x',
          featureGates: {},
        },
      },
      { metadata: 'x', spec: { scope: {}, leaderElect: [], syncController: 1, disabledTLSValidations: 'x' } },
      { status: 'x', spec: { federatedType: { group: 5 } } },
    ];
    const resources = ['kubefedclusters', 'federatedtypeconfigs', 'kubefedconfigs'];
    for (const path of Object.values(WebhookPath)) {
      for (const object of objects) {
        for (const operation of ['CREATE', 'UPDATE']) {
          for (const resource of [
            ...resources.map(core),
            { group: 'types.kubefed.io', version: 'v1beta1', resource: 'federatednamespaces' },
          ]) {
            for (const subResource of ['', 'status']) {
              const res = respond(
                path,
                review(request({ operation, resource, subResource, object, oldObject: object })),
              );
              assert.notEqual(
                res.status?.code,
                500,
                `${path} ${JSON.stringify(object)}: ${res.status?.message}`,
              );
            }
          }
        }
      }
    }
  });
});
