import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../../src/propagation/json.ts';
import { admitOcm, OcmWebhookPath } from '../../../src/webhook/ocm-admission.ts';
import {
  DEFAULT_MANIFEST_LIMIT,
  executorAccessReview,
  goJson,
  manifestSize,
  reviewManifestWork,
  validateManifests,
} from '../../../src/webhook/validation/manifestwork.ts';
import { manifestWorkReplicaSetDenial } from '../../../src/webhook/validation/manifestworkreplicaset.ts';

// The cases of ocm pkg/work/webhook/common/validator_test.go and v1/manifestwork_validating_test.go.

/** ocm's newManifest(size): a Secret test/test whose data is `size` letters. */
const secret = (size: number) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace: 'test', name: 'test' },
  data: 'a'.repeat(size),
});
const configMap = (name: string, namespace: string, kind = 'ConfigMap') => ({
  apiVersion: 'v1',
  kind,
  metadata: { namespace, name },
});
const work = (manifests: unknown[], executor?: unknown): JsonObject => ({
  apiVersion: 'work.open-cluster-management.io/v1',
  kind: 'ManifestWork',
  metadata: { name: 'w', namespace: 'cluster1' },
  spec: { workload: { manifests }, ...(executor ? { executor } : {}) },
});
const saExecutor = (namespace: string, name: string) => ({
  subject: { type: 'ServiceAccount', serviceAccount: { namespace, name } },
});

describe('validateManifests (OCM common.Validator)', () => {
  test('sizes are RawExtension.Size() of Go’s JSON: two Secrets of 300 and 200 KiB are over the limit', () => {
    assert.equal(DEFAULT_MANIFEST_LIMIT, 512000);
    // OCM's test says 512192: its manifests carry json.Encoder's trailing newline, one byte each, which a
    // manifest inside an AdmissionReview does not have.
    assert.equal(
      validateManifests([secret(300 * 1024), secret(200 * 1024)]),
      'the size of manifests is 512190 bytes which exceeds the 512000 limit',
    );
    // 91 bytes of JSON, a tag byte and a one-byte length.
    assert.equal(manifestSize(secret(0)), 93);
    // Go escapes <, > and & (6 bytes each) and sorts keys; the length does not depend on key order.
    assert.equal(goJson({ b: '<&>', a: 1 }), '{"a":1,"b":"\\u003c\\u0026\\u003e"}');
    assert.equal(manifestSize({ s: '\u2028' }), 2 + '{"s":"\\u2028"}'.length);
    assert.equal(
      validateManifests([secret(10)], 100),
      'the size of manifests is 103 bytes which exceeds the 100 limit',
    );
  });

  test('duplicates: same apiVersion, kind, namespace and name; OCM’s message', () => {
    assert.equal(
      validateManifests([secret(100 * 1024), secret(100 * 1024)]),
      'duplicate manifest for resource test/test with resource type v1.Secret',
    );
    assert.equal(
      validateManifests([
        configMap('test1', 'default'),
        configMap('test2', 'default'),
        configMap('test1', 'default'),
      ]),
      'duplicate manifest for resource default/test1 with resource type v1.ConfigMap',
    );
    assert.equal(validateManifests([configMap('test', 'ns1'), configMap('test', 'ns2')]), undefined);
    assert.equal(
      validateManifests([configMap('test', 'default'), configMap('test', 'default', 'Secret')]),
      undefined,
    );
    // Another apiVersion of the same kind is another key, as in OCM.
    assert.equal(
      validateManifests([
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'n' } },
        { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'd', namespace: 'n' } },
      ]),
      undefined,
    );
  });

  test('each manifest needs a kind and a name and no generateName; the first problem wins', () => {
    assert.equal(validateManifests([]), 'Workload manifests should not be empty');
    assert.equal(validateManifests(undefined), 'Workload manifests should not be empty');
    assert.equal(
      validateManifests([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default' } }]),
      'name must be set in manifest',
    );
    assert.equal(
      validateManifests([
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', generateName: 'a-' } },
      ]),
      'generateName must not be set in manifest',
    );
    assert.equal(
      validateManifests([{ apiVersion: 'v1', metadata: { name: 'a' } }]),
      `Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{"name":"a"}}'`,
    );
    // In spec order: the duplicate at index 1 is reported before the nameless manifest at index 2.
    assert.equal(
      validateManifests([
        configMap('a', 'n'),
        configMap('a', 'n'),
        { apiVersion: 'v1', kind: 'X', metadata: {} },
      ]),
      'duplicate manifest for resource n/a with resource type v1.ConfigMap',
    );
  });
});

describe('reviewManifestWork (OCM ManifestWorkWebhook.validateRequest)', () => {
  test('no manifests: OCM’s own message, before the common validator', () => {
    assert.deepEqual(reviewManifestWork(work([]), undefined), {
      kind: 'deny',
      message: 'manifests should not be empty',
    });
    assert.deepEqual(reviewManifestWork({ metadata: {} }, undefined), {
      kind: 'deny',
      message: 'manifests should not be empty',
    });
  });

  test('the limit is the webhook’s --manifest-limit', () => {
    assert.equal(reviewManifestWork(work([secret(10)]), undefined, 200).kind, 'allow');
    assert.deepEqual(reviewManifestWork(work([secret(10)]), undefined, 100), {
      kind: 'deny',
      message: 'the size of manifests is 103 bytes which exceeds the 100 limit',
    });
  });

  test('executor: none admitted; a service account asks execute-as; no service account denied', () => {
    assert.deepEqual(reviewManifestWork(work([secret(1)]), undefined), { kind: 'allow' });
    assert.deepEqual(reviewManifestWork(work([secret(1)], saExecutor('ns1', 'executor1')), undefined), {
      kind: 'executeAs',
      serviceAccount: { namespace: 'ns1', name: 'executor1' },
    });
    assert.deepEqual(
      reviewManifestWork(work([secret(1)], { subject: { type: 'ServiceAccount' } }), undefined),
      {
        kind: 'deny',
        message: 'executor service account can not be nil',
      },
    );
  });

  test('an UPDATE that keeps the executor is not checked again; one that changes it is', () => {
    const old = work([secret(1)], saExecutor('ns1', 'executor1'));
    assert.deepEqual(reviewManifestWork(work([secret(2)], saExecutor('ns1', 'executor1')), old), {
      kind: 'allow',
    });
    assert.equal(
      reviewManifestWork(work([secret(2)], saExecutor('ns1', 'executor2')), old).kind,
      'executeAs',
    );
    // The manifests are still checked on every spec change.
    assert.equal(reviewManifestWork(work([], saExecutor('ns1', 'executor1')), old).kind, 'deny');
  });

  test('the SubjectAccessReview: the user, verb execute-as on manifestworks named after the service account', () => {
    assert.deepEqual(
      executorAccessReview({ username: 'alice', uid: 'u1', groups: ['g1'] }, 'cluster1', {
        namespace: 'ns1',
        name: 'executor1',
      }),
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: 'alice',
          uid: 'u1',
          groups: ['g1'],
          resourceAttributes: {
            group: 'work.open-cluster-management.io',
            resource: 'manifestworks',
            verb: 'execute-as',
            namespace: 'cluster1',
            name: 'system:serviceaccount:ns1:executor1',
          },
        },
      },
    );
  });
});

describe('ManifestWorkReplicaSet: the template’s manifests', () => {
  const mwrs = (manifests: unknown[]): JsonObject => ({
    spec: { placementRefs: [{ name: 'p' }], manifestWorkTemplate: { workload: { manifests } } },
  });
  test('the common validator’s messages, including its own for an empty list', () => {
    assert.equal(manifestWorkReplicaSetDenial(mwrs([configMap('a', 'n')])), undefined);
    assert.equal(manifestWorkReplicaSetDenial(mwrs([])), 'Workload manifests should not be empty');
    assert.equal(manifestWorkReplicaSetDenial({ spec: {} }), 'Workload manifests should not be empty');
    assert.equal(
      manifestWorkReplicaSetDenial(mwrs([configMap('a', 'n'), configMap('a', 'n')])),
      'duplicate manifest for resource n/a with resource type v1.ConfigMap',
    );
    assert.equal(
      manifestWorkReplicaSetDenial(mwrs([secret(10)]), 100),
      'the size of manifests is 103 bytes which exceeds the 100 limit',
    );
  });
});

describe('admitOcm: the AdmissionReview shell', () => {
  const review = (request: JsonObject) =>
    JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
  const mwRequest = (object: JsonObject, extra: JsonObject = {}) => ({
    uid: 'r1',
    operation: 'CREATE',
    resource: { group: 'work.open-cluster-management.io', version: 'v1', resource: 'manifestworks' },
    namespace: 'cluster1',
    name: 'w',
    object,
    userInfo: { username: 'bob', uid: 'u2', groups: ['system:authenticated'] },
    ...extra,
  });
  const asked: JsonObject[] = [];
  const opts = (answer: boolean | Error) => ({
    reviewAccess: async (r: JsonObject) => {
      asked.push(r);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  });

  test('executor allowed by the SubjectAccessReview: admitted; denied: OCM’s message, 400 BadRequest', async () => {
    asked.length = 0;
    const body = review(mwRequest(work([secret(1)], saExecutor('default', 'executor1'))));
    const ok = await admitOcm(OcmWebhookPath.ValidateManifestWork, body, opts(true));
    assert.deepEqual(ok.review.response, { uid: 'r1', allowed: true });
    const spec = asked[0]?.['spec'] as JsonObject;
    assert.equal(spec['user'], 'bob');
    assert.deepEqual(spec['groups'], ['system:authenticated']);
    const no = await admitOcm(OcmWebhookPath.ValidateManifestWork, body, opts(false));
    assert.deepEqual(no.review.response, {
      uid: 'r1',
      allowed: false,
      status: {
        metadata: {},
        status: 'Failure',
        code: 400,
        reason: 'BadRequest',
        message:
          'user bob cannot manipulate the Manifestwork with executor default/executor1 in namespace cluster1',
      },
    });
    const failed = await admitOcm(OcmWebhookPath.ValidateManifestWork, body, opts(new Error('boom')));
    assert.equal(failed.decision.allowed, false);
    assert.equal(failed.review.response.status?.message, 'boom');
  });

  test('no executor asks nothing; invalid manifests are denied before any question', async () => {
    asked.length = 0;
    const plain = await admitOcm(
      OcmWebhookPath.ValidateManifestWork,
      review(mwRequest(work([secret(1)]))),
      opts(false),
    );
    assert.equal(plain.decision.allowed, true);
    const dup = await admitOcm(
      OcmWebhookPath.ValidateManifestWork,
      review(mwRequest(work([secret(1), secret(1)], saExecutor('a', 'b')))),
      opts(true),
    );
    assert.equal(
      dup.review.response.status?.message,
      'duplicate manifest for resource test/test with resource type v1.Secret',
    );
    assert.equal(dup.review.response.status?.code, 400);
    assert.equal(asked.length, 0);
  });

  test('status writes, DELETE, other resources and metadata-only updates are not examined', async () => {
    const bad = work([]);
    const allowed = async (extra: JsonObject) =>
      (await admitOcm(OcmWebhookPath.ValidateManifestWork, review(mwRequest(bad, extra)), opts(false)))
        .decision.allowed;
    assert.equal(await allowed({ subResource: 'status' }), true);
    assert.equal(await allowed({ operation: 'DELETE' }), true);
    assert.equal(
      await allowed({ resource: { group: 'work.open-cluster-management.io', version: 'v1', resource: 'x' } }),
      true,
    );
    assert.equal(await allowed({ operation: 'UPDATE', oldObject: bad }), true);
    assert.equal(await allowed({}), false);
  });

  test('ManifestWorkReplicaSet path checks the template', async () => {
    const body = review({
      uid: 'r2',
      operation: 'CREATE',
      resource: {
        group: 'work.open-cluster-management.io',
        version: 'v1alpha1',
        resource: 'manifestworkreplicasets',
      },
      namespace: 'ocm-ns',
      object: {
        spec: { placementRefs: [{ name: 'p' }], manifestWorkTemplate: { workload: { manifests: [] } } },
      },
    });
    const r = await admitOcm(OcmWebhookPath.ValidateManifestWorkReplicaSet, body, opts(true));
    assert.equal(r.review.response.status?.message, 'Workload manifests should not be empty');
  });
});
