// The four policy kinds, cached once from the federation API server and shared by the policy source's
// controllers, as the decision functions want them.

import {
  COP_KIND,
  COP_PLURAL,
  CPP_KIND,
  CPP_PERMANENT_ID_LABEL,
  CPP_PLURAL,
  GROUP,
  OP_KIND,
  OP_PLURAL,
  type OverridePolicy,
  PP_KIND,
  PP_PERMANENT_ID_LABEL,
  PP_PLURAL,
  type PropagationPolicy,
  VERSION,
} from '../../api/policy/v1alpha1/index.ts';
import type { KubeObject, ResourceType } from '../../kube/client/index.ts';
import type { EventHandlers } from '../../runtime/informer/index.ts';
import type { SharedInformerReader, SharedInformers } from '../../runtime/informer/shared-informers.ts';
import type { CandidatePolicy, PolicyKind } from './matching.ts';
import type { NamedOverridePolicy } from './overrides/select.ts';
import { kindKey } from './templates.ts';

export type PolicyObject = PropagationPolicy & KubeObject;
export type OverrideObject = OverridePolicy & KubeObject;

const type = (plural: string, namespaced: boolean, kind: string): ResourceType & { kind: string } => ({
  group: GROUP,
  version: VERSION,
  plural,
  namespaced,
  kind,
});

export const PolicyTypes = {
  PropagationPolicy: type(PP_PLURAL, true, PP_KIND),
  ClusterPropagationPolicy: type(CPP_PLURAL, false, CPP_KIND),
  OverridePolicy: type(OP_PLURAL, true, OP_KIND),
  ClusterOverridePolicy: type(COP_PLURAL, false, COP_KIND),
} as const;

/** The kinds whose dependencies propagateDeps sends along (karmada dependencies.go). */
export const DEPENDENCY_KINDS = [
  'v1|ConfigMap',
  'v1|Secret',
  'v1|ServiceAccount',
  'v1|PersistentVolumeClaim',
];

export function permanentIdOf(kind: PolicyKind, p: KubeObject): string {
  const label = kind === 'PropagationPolicy' ? PP_PERMANENT_ID_LABEL : CPP_PERMANENT_ID_LABEL;
  return p.metadata.labels?.[label] ?? '';
}

export function candidateOf(kind: PolicyKind, p: PolicyObject): CandidatePolicy {
  return {
    kind,
    namespace: p.metadata.namespace,
    name: p.metadata.name ?? '',
    spec: p.spec,
    permanentId: permanentIdOf(kind, p),
    deleting: p.metadata.deletionTimestamp !== undefined,
  };
}

export type PolicyChange = (kind: keyof typeof PolicyTypes, obj: KubeObject, old?: KubeObject) => void;

export class Policies {
  readonly pp: SharedInformerReader<PolicyObject>;
  readonly cpp: SharedInformerReader<PolicyObject>;
  readonly op: SharedInformerReader<OverrideObject>;
  readonly cop: SharedInformerReader<OverrideObject>;
  readonly #listeners = new Set<PolicyChange>();

  constructor(informers: SharedInformers, namespace?: string) {
    const handlers = <T extends KubeObject>(kind: keyof typeof PolicyTypes): EventHandlers<T> => ({
      onAdd: (o) => this.#tell(kind, o),
      onUpdate: (old, o) => this.#tell(kind, o, old),
      onDelete: (o) => this.#tell(kind, o),
    });
    this.pp = informers.open(
      { type: PolicyTypes.PropagationPolicy, namespace },
      handlers('PropagationPolicy'),
    );
    this.cpp = informers.open(
      { type: PolicyTypes.ClusterPropagationPolicy },
      handlers('ClusterPropagationPolicy'),
    );
    this.op = informers.open({ type: PolicyTypes.OverridePolicy, namespace }, handlers('OverridePolicy'));
    this.cop = informers.open({ type: PolicyTypes.ClusterOverridePolicy }, handlers('ClusterOverridePolicy'));
  }

  #tell(kind: keyof typeof PolicyTypes, obj: KubeObject, old?: KubeObject): void {
    for (const l of this.#listeners) l(kind, obj, old);
  }

  addListener(l: PolicyChange): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  hasSynced(): boolean {
    return this.pp.hasSynced() && this.cpp.hasSynced() && this.op.hasSynced() && this.cop.hasSynced();
  }

  async waitForSync(): Promise<void> {
    await Promise.all([
      this.pp.waitForSync(),
      this.cpp.waitForSync(),
      this.op.waitForSync(),
      this.cop.waitForSync(),
    ]);
  }

  async close(): Promise<void> {
    await Promise.all([this.pp.close(), this.cpp.close(), this.op.close(), this.cop.close()]);
  }

  propagationPolicies(namespace: string | undefined): CandidatePolicy[] {
    return this.pp.store.list(namespace).map((p) => candidateOf('PropagationPolicy', p));
  }

  clusterPropagationPolicies(): CandidatePolicy[] {
    return this.cpp.store.list().map((p) => candidateOf('ClusterPropagationPolicy', p));
  }

  policy(kind: PolicyKind, namespace: string | undefined, name: string): PolicyObject | undefined {
    return kind === 'PropagationPolicy'
      ? this.pp.store.get(`${namespace}/${name}`)
      : this.cpp.store.get(name);
  }

  overridePolicies(namespace: string | undefined): {
    cops: NamedOverridePolicy[];
    ops: NamedOverridePolicy[];
  } {
    const named = (kind: NamedOverridePolicy['kind'], o: OverrideObject): NamedOverridePolicy => ({
      kind,
      name: o.metadata.name ?? '',
      namespace: o.metadata.namespace,
      spec: o.spec ?? {},
    });
    return {
      cops: this.cop.store.list().map((o) => named('ClusterOverridePolicy', o)),
      ops: namespace ? this.op.store.list(namespace).map((o) => named('OverridePolicy', o)) : [],
    };
  }

  /** The template kinds any propagation policy selects, plus the dependency kinds when one propagates them. */
  selectedKinds(): Set<string> {
    const kinds = new Set<string>();
    for (const p of [...this.pp.store.list(), ...this.cpp.store.list()]) {
      for (const s of p.spec?.resourceSelectors ?? []) {
        if (typeof s?.apiVersion === 'string' && typeof s?.kind === 'string') kinds.add(kindKey(s));
      }
      if (p.spec?.propagateDeps || p.spec?.association) for (const k of DEPENDENCY_KINDS) kinds.add(k);
    }
    return kinds;
  }
}
