// Events of the failover controllers, on the binding (Karmada's EvictWorkloadFromCluster*) or on its template
// (EvictionBlocked, where users look). Best effort.

import type { KubeObject } from '../../../kube/client/index.ts';
import type { EventRecorder } from '../../../runtime/events.ts';
import type { BindingObject } from '../binding-spec.ts';
import { bindingTypeOf } from '../bindings.ts';

export function bindingEvent(
  events: EventRecorder,
  b: BindingObject,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): void {
  const obj: KubeObject = { ...b, apiVersion: 'work.karmada.io/v1alpha2', kind: bindingTypeOf(b).kind };
  void events.record(obj, type, reason, message).catch(() => {});
}

export function templateEvent(
  events: EventRecorder,
  b: BindingObject,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): void {
  const r = b.spec.resource;
  const obj: KubeObject = {
    apiVersion: r.apiVersion,
    kind: r.kind,
    metadata: {
      name: r.name,
      ...(r.namespace ? { namespace: r.namespace } : {}),
      ...(r.uid ? { uid: r.uid } : {}),
    },
  };
  void events.record(obj, type, reason, message).catch(() => {});
}
