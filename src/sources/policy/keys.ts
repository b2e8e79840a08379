// Work-queue keys of the policy source. `|` separates the parts: it appears in no Kubernetes name.

import type { KubeObject } from '../../kube/client/index.ts';
import { bindingName } from './binding-name.ts';
import { kindKey, type TemplateKind } from './templates.ts';

export interface TemplateKey extends TemplateKind {
  namespace?: string;
  name: string;
}

export function templateKey(
  kind: TemplateKind,
  obj: { metadata: { namespace?: string; name?: string } },
): string {
  return `${kindKey(kind)}|${obj.metadata.namespace ?? ''}|${obj.metadata.name ?? ''}`;
}

export function parseTemplateKey(key: string): TemplateKey {
  const [apiVersion = '', kind = '', namespace = '', name = ''] = key.split('|');
  return { apiVersion, kind, namespace: namespace || undefined, name };
}

/** A ResourceBinding `ns/name` or a ClusterResourceBinding `name`. */
export interface BindingKey {
  namespace?: string;
  name: string;
}

export function bindingKey(b: { metadata: { namespace?: string; name?: string } }): string {
  return b.metadata.namespace ? `${b.metadata.namespace}/${b.metadata.name}` : `${b.metadata.name}`;
}

export function parseBindingKey(key: string): BindingKey {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** The key of the binding a template has (or would have). */
export function bindingKeyOfTemplate(template: KubeObject): string {
  const name = bindingName(template.kind ?? '', template.metadata.name ?? '');
  return template.metadata.namespace ? `${template.metadata.namespace}/${name}` : name;
}

/** A policy `Kind|ns|name`. */
export function policyKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}|${namespace ?? ''}|${name}`;
}

export function parsePolicyKey(key: string): { kind: string; namespace?: string; name: string } {
  const [kind = '', namespace = '', name = ''] = key.split('|');
  return { kind, namespace: namespace || undefined, name };
}
