// labelsOverrider and annotationsOverrider (karmada pkg/util/overridemanager/labelannotationoverrider.go):
// `add` sets each key (creating the map when missing), `replace` and `remove` act only on keys the object
// already has and skip the others; `remove` ignores the values. `/` in a key is escaped as `~1` (`~` is not
// escaped: no valid label or annotation key has one).

import type { LabelAnnotationOverrider } from '../../../api/policy/v1alpha1/index.ts';
import { isPlainObject, type JsonObject } from '../../../propagation/json.ts';
import type { PatchOperation } from './patch.ts';

export type MetadataMap = 'labels' | 'annotations';

/**
 * buildLabelAnnotationOverriderPatches. May create `metadata.<map>` on `obj` in place (as Karmada's
 * SetNestedStringMap does), so the caller passes its own copy.
 */
export function labelAnnotationPatches(
  obj: JsonObject,
  o: LabelAnnotationOverrider,
  map: MetadataMap,
): PatchOperation[] {
  const patches: PatchOperation[] = [];
  for (const [key, value] of Object.entries(o.value ?? {})) {
    const metadata = obj['metadata'];
    const current = isPlainObject(metadata) ? metadata[map] : undefined;
    if (o.operator === 'remove' || o.operator === 'replace') {
      if (!isPlainObject(current) || !Object.hasOwn(current, key)) continue;
    } else if (o.operator === 'add' && !isPlainObject(current)) {
      if (metadata === undefined) obj['metadata'] = { [map]: {} };
      else if (isPlainObject(metadata)) metadata[map] = {};
      else continue;
    }
    patches.push({ op: o.operator, path: `/metadata/${map}/${key.replaceAll('/', '~1')}`, value });
  }
  return patches;
}
