import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WebhookPath } from '../../../src/webhook/admission.ts';
import { webhookConfigurations } from '../../../src/webhook/configurations.ts';

describe('webhookConfigurations', () => {
  test("KubeFed's names, paths, rules and policies, through the chart's Service", () => {
    const { validating, mutating } = webhookConfigurations({
      caBundle: 'Q0E=',
      service: { namespace: 'kube-federation-system', name: 'kubefed-admission-webhook' },
    });
    assert.equal(validating.kind, 'ValidatingWebhookConfiguration');
    assert.equal(validating.metadata.name, 'validations.core.kubefed.io');
    assert.equal(mutating.kind, 'MutatingWebhookConfiguration');
    assert.equal(mutating.metadata.name, 'mutation.core.kubefed.io');
    assert.deepEqual(
      validating.webhooks.map((w) => [w.name, w.clientConfig.service?.path, w.rules[0]?.resources]),
      [
        [
          'federatedtypeconfigs.core.kubefed.io',
          '/validate-federatedtypeconfigs',
          ['federatedtypeconfigs', 'federatedtypeconfigs/status'],
        ],
        [
          'kubefedclusters.core.kubefed.io',
          '/validate-kubefedcluster',
          ['kubefedclusters', 'kubefedclusters/status'],
        ],
        ['kubefedconfigs.core.kubefed.io', '/validate-kubefedconfig', ['kubefedconfigs']],
        ['federated.types.kubefed.io', '/validate-federated', ['*']],
        ['propagationpolicy.karmada.io', '/validate-propagationpolicy', ['propagationpolicies']],
        [
          'clusterpropagationpolicy.karmada.io',
          '/validate-clusterpropagationpolicy',
          ['clusterpropagationpolicies'],
        ],
        ['overridepolicy.karmada.io', '/validate-overridepolicy', ['overridepolicies']],
        ['clusteroverridepolicy.karmada.io', '/validate-clusteroverridepolicy', ['clusteroverridepolicies']],
        [
          'manifestworkvalidators.admission.work.open-cluster-management.io',
          '/validate-work-open-cluster-management-io-v1-manifestwork',
          ['manifestworks'],
        ],
        [
          'manifestworkreplicasetvalidators.admission.work.open-cluster-management.io',
          '/validate-work-open-cluster-management-io-v1alpha1-manifestworkreplicaset',
          ['manifestworkreplicasets'],
        ],
      ],
    );
    // OCM's rules (manifests/cluster-manager/hub/work webhook configuration): any version, the object only.
    assert.deepEqual(validating.webhooks.at(-2)?.rules, [
      {
        operations: ['CREATE', 'UPDATE'],
        apiGroups: ['work.open-cluster-management.io'],
        apiVersions: ['*'],
        resources: ['manifestworks'],
        scope: 'Namespaced',
      },
    ]);
    // A create's validation and the sync finalizer at admission: CREATE only, the objects the validating
    // federated entry sees, and called again when a later mutating webhook changed the object.
    assert.deepEqual(mutating.webhooks[1]?.name, 'federated.types.kubefed.io');
    assert.deepEqual(mutating.webhooks[1]?.clientConfig.service?.path, '/mutate-federated');
    assert.deepEqual(mutating.webhooks[1]?.rules, [
      {
        operations: ['CREATE'],
        apiGroups: ['types.kubefed.io'],
        apiVersions: ['*'],
        resources: ['*'],
        scope: '*',
      },
    ]);
    assert.deepEqual(mutating.webhooks[1]?.sideEffects, 'None');
    assert.equal(mutating.webhooks[1]?.reinvocationPolicy, 'IfNeeded');
    // The template claim: no rules until the controller manager sets them, refuses nothing, waits 2 s.
    const claim = mutating.webhooks.at(-1);
    assert.deepEqual(
      [
        claim?.name,
        claim?.clientConfig.service?.path,
        claim?.rules,
        claim?.failurePolicy,
        claim?.timeoutSeconds,
      ],
      ['resourcetemplates.policy.kubefed.io', '/claim-resource-template', [], 'Ignore', 2],
    );
    assert.equal(claim?.reinvocationPolicy, 'Never');
    // Karmada's names, paths and rules (artifacts/deploy/webhook-configuration.yaml).
    assert.deepEqual(
      mutating.webhooks.slice(2, -1).map((w) => [w.name, w.clientConfig.service?.path, w.rules]),
      [
        [
          'propagationpolicy.karmada.io',
          '/mutate-propagationpolicy',
          [
            {
              operations: ['CREATE', 'UPDATE'],
              apiGroups: ['policy.karmada.io'],
              apiVersions: ['*'],
              resources: ['propagationpolicies'],
              scope: 'Namespaced',
            },
          ],
        ],
        [
          'clusterpropagationpolicy.karmada.io',
          '/mutate-clusterpropagationpolicy',
          [
            {
              operations: ['CREATE', 'UPDATE'],
              apiGroups: ['policy.karmada.io'],
              apiVersions: ['*'],
              resources: ['clusterpropagationpolicies'],
              scope: 'Cluster',
            },
          ],
        ],
      ],
    );
    assert.deepEqual(mutating.webhooks[0], {
      admissionReviewVersions: ['v1'],
      name: 'kubefedconfigs.core.kubefed.io',
      clientConfig: {
        service: {
          namespace: 'kube-federation-system',
          name: 'kubefed-admission-webhook',
          path: '/default-kubefedconfig',
        },
        caBundle: 'Q0E=',
      },
      rules: [
        {
          operations: ['CREATE'],
          apiGroups: ['core.kubefed.io'],
          apiVersions: ['v1beta1'],
          resources: ['kubefedconfigs'],
        },
      ],
      failurePolicy: 'Fail',
      sideEffects: 'None',
    });
    for (const w of validating.webhooks) {
      // The federated entry validates updates; a create is validated by the mutating entry.
      const operations = w.name === 'federated.types.kubefed.io' ? ['UPDATE'] : ['CREATE', 'UPDATE'];
      assert.deepEqual(w.rules[0]?.operations, operations, w.name);
      assert.equal(w.failurePolicy, 'Fail');
      assert.equal(w.sideEffects, 'None');
      assert.equal(w.clientConfig.caBundle, 'Q0E=');
    }
    assert.deepEqual(validating.webhooks[3]?.rules[0]?.apiGroups, ['types.kubefed.io']);
  });

  test('by URL, with the Namespaced-scope suffix and selector', () => {
    const { validating, mutating } = webhookConfigurations({
      caBundle: 'Q0E=',
      url: 'https://127.0.0.1:8443/',
      nameSuffix: 'kube-federation-system',
      namespaceSelector: { matchLabels: { name: 'kube-federation-system' } },
      federatedGroup: 'federation.example.com',
    });
    assert.equal(validating.metadata.name, 'validations.core.kubefed.io-kube-federation-system');
    assert.equal(mutating.metadata.name, 'mutation.core.kubefed.io-kube-federation-system');
    assert.equal(
      mutating.webhooks[0]?.clientConfig.url,
      `https://127.0.0.1:8443${WebhookPath.DefaultKubeFedConfig}`,
    );
    assert.equal(mutating.webhooks[0]?.clientConfig.service, undefined);
    for (const w of [...validating.webhooks, ...mutating.webhooks])
      assert.deepEqual(w.namespaceSelector, { matchLabels: { name: 'kube-federation-system' } });
    assert.deepEqual(validating.webhooks[3]?.rules[0]?.apiGroups, ['federation.example.com']);
    // A namespaceSelector cannot exclude cluster-scoped objects: those are left out by the rule's scope.
    assert.equal(validating.webhooks[3]?.rules[0]?.scope, 'Namespaced');
    assert.deepEqual(
      { ...mutating.webhooks[1]?.rules[0], operations: validating.webhooks[3]?.rules[0]?.operations },
      validating.webhooks[3]?.rules[0],
      'the mutating federated entry sees what the validating one sees',
    );
    assert.equal(
      mutating.webhooks[1]?.clientConfig.url,
      `https://127.0.0.1:8443${WebhookPath.MutateFederated}`,
    );
    // A Namespaced control plane owns no cluster-scoped policies, so it registers no webhook for them.
    for (const w of [...validating.webhooks, ...mutating.webhooks])
      for (const r of w.rules) assert.notEqual(r.scope, 'Cluster', w.name);
    // Nor does it run the native front end: no template claim at admission.
    assert.ok(!mutating.webhooks.some((w) => w.name === 'resourcetemplates.policy.kubefed.io'));
    assert.deepEqual(
      validating.webhooks.slice(4).map((w) => w.name),
      [
        'propagationpolicy.karmada.io',
        'overridepolicy.karmada.io',
        'manifestworkvalidators.admission.work.open-cluster-management.io',
        'manifestworkreplicasetvalidators.admission.work.open-cluster-management.io',
      ],
    );
    assert.equal(
      webhookConfigurations({ caBundle: '', url: 'https://x' }).validating.webhooks[3]?.rules[0]?.scope,
      '*',
    );
    assert.equal(
      webhookConfigurations({ caBundle: '', url: 'https://x', nameSuffix: '-ns' }).validating.metadata.name,
      'validations.core.kubefed.io-ns',
    );
  });

  test('exactly one of service and url', () => {
    assert.throws(() => webhookConfigurations({ caBundle: '' }), /exactly one/);
    assert.throws(
      () => webhookConfigurations({ caBundle: '', url: 'https://x', service: { namespace: 'a', name: 'b' } }),
      /exactly one/,
    );
  });
});
