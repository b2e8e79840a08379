import { groupQualifiedName } from '../kube/client/index.ts';

/**
 * The FTC name KubeFed requires for a target type (pkg/apis/core/typeconfig, GroupQualifiedName; checked by
 * the FTC webhook), e.g. `deployments.apps`, `configmaps`.
 */
export function ftcNameFor(target: { plural: string; group: string }): string {
  return groupQualifiedName(target.plural, target.group);
}

export const federatedKindFor = (kind: string): string => `Federated${kind}`;
export const federatedPluralFor = (plural: string): string => `federated${plural}`;
