// A resource template claimed at admission: with kubefed-admission-webhook registered as an install registers
// it, the controller manager keeps the claim webhook's rules to the kinds the policies select, and a template
// created after its policy carries the claim from its first version, so the detector writes only its binding.
// One federation (a host and one bare member) for the file.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  PP_NAME_ANNOTATION,
  PP_NAMESPACE_ANNOTATION,
  PP_PERMANENT_ID_LABEL,
} from '../../src/api/policy/v1alpha1/index.ts';
import { CoreTypes, type KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import { BindingTypes } from '../../src/sources/policy/bindings.ts';
import { PolicyTypes } from '../../src/sources/policy/policies.ts';
import {
  type AdmissionWebhookProcess,
  registerAdmissionWebhooks,
  startAdmissionWebhook,
} from '../../src/testing/admission-webhook-process.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { MUTATING_CONFIGURATION_NAME, WebhookName } from '../../src/webhook/configurations.ts';
import { eventually, getOrUndefined, startPropagation } from './federation-helpers.ts';
import { NS } from './helpers.ts';

const NSA = 'claims';
const CM = CoreTypes.configMaps;

type Configuration = KubeObject & {
  webhooks: Array<{ name: string; rules?: Array<{ resources: string[] }> }>;
};
type Binding = KubeObject & {
  status?: { conditions?: Array<{ type: string; status: string }> };
};

const configMap = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NSA, labels: { app: 'shop' } },
  data: { color: 'blue' },
});

describe('a resource template claimed at admission', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let webhook: AdmissionWebhookProcess;

  const claimRules = async () =>
    (
      await host.get<Configuration>(CoreTypes.mutatingWebhookConfigurations, MUTATING_CONFIGURATION_NAME)
    ).webhooks.find((w) => w.name === WebhookName.ResourceTemplates)?.rules ?? [];

  before(async () => {
    fed = await startFederation({ members: ['cluster1'] });
    ({ host, cm } = await startPropagation(fed));
    webhook = await startAdmissionWebhook({
      dir: join(fed.dir, 'webhook'),
      logFile: join(fed.dir, 'kubefed-admission-webhook.log'),
      kubeconfig: fed.kubeconfigPath,
      kubefedNamespace: NS,
    });
    await registerAdmissionWebhooks(host, webhook);
    await host.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NSA } });
  });
  after(async () => {
    await cm?.process.stop();
    await webhook?.process.stop();
    await fed?.stop();
  });

  test('the rules follow the policies; a template created after its policy is never written by the detector', async () => {
    assert.deepEqual(await claimRules(), [], 'no policy yet: no create is sent to the webhook');
    const policy = await host.create<KubeObject>(PolicyTypes.PropagationPolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'shop', namespace: NSA },
      spec: {
        resourceSelectors: [
          { apiVersion: 'v1', kind: 'ConfigMap', labelSelector: { matchLabels: { app: 'shop' } } },
        ],
        placement: { clusterAffinity: { clusterNames: ['cluster1'] } },
      },
    });
    const permanentId = policy.metadata.labels?.[PP_PERMANENT_ID_LABEL];
    assert.ok(permanentId, 'the policy webhook gives the policy its permanent-id at creation');
    await eventually(
      'the claim rules name ConfigMaps',
      claimRules,
      (rules) => rules.length === 1 && rules[0]?.resources.join() === 'configmaps',
    );
    // The webhook's own cache of the policy may trail the controller manager's by a moment.
    let n = 0;
    await eventually(
      'a ConfigMap created claimed',
      async () => (await host.create(CM, configMap(`probe-${n++}`))).metadata.labels?.[PP_PERMANENT_ID_LABEL],
      (id) => id === permanentId,
    );

    const created = await host.create(CM, configMap('settings'));
    assert.equal(created.metadata.labels?.[PP_PERMANENT_ID_LABEL], permanentId);
    assert.equal(created.metadata.labels?.['app'], 'shop', "the user's own labels are kept");
    assert.equal(created.metadata.annotations?.[PP_NAME_ANNOTATION], 'shop');
    assert.equal(created.metadata.annotations?.[PP_NAMESPACE_ANNOTATION], NSA);

    const c1 = fed.cluster('cluster1').client();
    const copy = await eventually(
      'settings in cluster1',
      () => getOrUndefined<KubeObject & { data?: Record<string, string> }>(c1, CM, 'settings', NSA),
      (o) => o?.data?.['color'] === 'blue',
    );
    assert.equal(copy?.metadata.labels?.[PP_PERMANENT_ID_LABEL], permanentId);
    await eventually(
      'the binding fully applied',
      () => getOrUndefined<Binding>(host, BindingTypes.ResourceBinding, 'settings-configmap', NSA),
      (b) => b?.status?.conditions?.some((c) => c.type === 'FullyApplied' && c.status === 'True') === true,
    );
    // The detector found it claimed: the template is the version the user's create made.
    const now = await host.get(CM, 'settings', NSA);
    assert.equal(now.metadata.resourceVersion, created.metadata.resourceVersion);
    // And it still says so, as Karmada's detector does.
    await eventually(
      'ApplyPolicySucceed on the template',
      async () =>
        (await host.list(CoreTypes.events, { namespace: NSA, fieldSelector: 'involvedObject.name=settings' }))
          .items as Array<KubeObject & { reason?: string }>,
      (events) => events.some((e) => e.reason === 'ApplyPolicySucceed'),
    );
  });

  test('a restart writes nothing to the rules; a policy deleted takes its kind out of them', async () => {
    const before = await host.get(CoreTypes.mutatingWebhookConfigurations, MUTATING_CONFIGURATION_NAME);
    await cm.process.stop();
    cm = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      logFile: join(fed.dir, 'kubefed-controller-manager-2.log'),
      args: ['--member-deletion-timeout=8s'],
    });
    // Its caches are loaded and it acts once a new template propagates.
    await host.create(CM, configMap('after-restart'));
    await eventually(
      'after-restart in cluster1',
      () => getOrUndefined(fed.cluster('cluster1').client(), CM, 'after-restart', NSA),
      (o) => o !== undefined,
    );
    const afterRestart = await host.get(CoreTypes.mutatingWebhookConfigurations, MUTATING_CONFIGURATION_NAME);
    assert.equal(afterRestart.metadata.resourceVersion, before.metadata.resourceVersion);

    await host.delete(PolicyTypes.PropagationPolicy, 'shop', { namespace: NSA });
    await eventually('no claim rules', claimRules, (rules) => rules.length === 0);
    const later = await host.create(CM, configMap('unclaimed'));
    assert.equal(later.metadata.labels?.[PP_PERMANENT_ID_LABEL], undefined);
  });
});
