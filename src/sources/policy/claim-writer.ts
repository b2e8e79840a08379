// The writes of claiming and unclaiming: a template's claim labels and annotations, and the binding's.
// Karmada's order on unclaim (detector.go CleanupResourceBindingClaimMetadata, then the template): the
// binding first, because the template is found by its label and would not be listed again once that is gone.

import type { KubeClient, KubeObject, ResourceType } from '../../kube/client/index.ts';
import { isNotFound } from '../../kube/client/index.ts';
import { type BindingObject, unclaimedBinding } from './binding-spec.ts';
import { bindingTypeOf } from './bindings.ts';
import { withoutClaim } from './claim.ts';

type Meta = { labels: Record<string, string>; annotations: Record<string, string> };

/** A merge patch that turns the object's labels and annotations into `next`, guarded by its resourceVersion. */
export function metadataPatch(obj: KubeObject, next: Meta): unknown {
  const diff = (from: Record<string, string> | undefined, to: Record<string, string>) => {
    const out: Record<string, string | null> = {};
    for (const k of Object.keys(from ?? {})) if (!(k in to)) out[k] = null;
    for (const [k, v] of Object.entries(to)) if (from?.[k] !== v) out[k] = v;
    return out;
  };
  return {
    metadata: {
      resourceVersion: obj.metadata.resourceVersion,
      labels: diff(obj.metadata.labels, next.labels),
      annotations: diff(obj.metadata.annotations, next.annotations),
    },
  };
}

export async function patchTemplateMetadata(
  host: KubeClient,
  type: ResourceType,
  template: KubeObject,
  next: Meta,
): Promise<KubeObject> {
  return host.patch(type, template.metadata.name ?? '', metadataPatch(template, next), {
    namespace: template.metadata.namespace,
  });
}

/**
 * Removes a policy's claim from a template and its binding (both only if the permanent-id still matches:
 * a template another policy claimed meanwhile is left alone, karmada#5307). The binding and the member copies
 * stay. Conflicts throw; the caller retries.
 */
export async function unclaim(
  host: KubeClient,
  type: ResourceType,
  template: KubeObject,
  binding: BindingObject | undefined,
  permanentId: string,
): Promise<void> {
  const b = binding ? unclaimedBinding(binding, permanentId) : undefined;
  if (b) {
    try {
      await host.update(bindingTypeOf(b), b);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  const next = withoutClaim(template.metadata, permanentId);
  if (next) {
    try {
      await patchTemplateMetadata(host, type, template, next);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
