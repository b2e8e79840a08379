import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bindingName } from '../../../../src/sources/policy/binding-name.ts';

describe('bindingName: Karmada names.GenerateBindingName', () => {
  const cases: [string, string, string][] = [
    ['Deployment', 'nginx', 'nginx-deployment'],
    ['ConfigMap', 'My-Config', 'my-config-configmap'],
    ['ClusterRole', 'system:controller:job', 'system.controller.job-clusterrole'],
    ['ClusterRoleBinding', 'a:b', 'a.b-clusterrolebinding'],
    ['Secret', 'a.b_c', 'a.b_c-secret'],
  ];
  for (const [kind, name, expected] of cases)
    test(`${kind} ${name}`, () => assert.equal(bindingName(kind, name), expected));
});
