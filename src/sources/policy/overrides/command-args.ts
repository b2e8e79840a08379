// commandOverrider and argsOverrider (karmada pkg/util/overridemanager/commandargsoverride.go): for every
// container named containerName, `add` appends the values and `remove` drops every item equal to one of
// them. A container without the field gets it (`add` of the result, so `remove` there leaves an empty list).

import type { CommandArgsOverrider } from '../../../api/policy/v1alpha1/index.ts';
import { isPlainObject, type JsonObject } from '../../../propagation/json.ts';
import { podSpecPath } from './image.ts';
import type { PatchOperation } from './patch.ts';

export class CommandArgsOverrideError extends Error {
  override name = 'CommandArgsOverrideError';
}

export type CommandArgsTarget = 'command' | 'args';

/** overrideCommandArgs: any other operator leaves the list as it is. */
function overrideList(current: readonly string[], o: CommandArgsOverrider): string[] {
  const values = o.value ?? [];
  if (o.operator === 'add') return [...current, ...values];
  if (o.operator === 'remove') {
    const drop = new Set(values);
    return current.filter((v) => !drop.has(v));
  }
  return [...current];
}

/** buildCommandArgsPatches: the same kinds as the imageOverrider, matched by kind alone. */
export function commandArgsPatches(
  target: CommandArgsTarget,
  obj: JsonObject,
  o: CommandArgsOverrider,
): PatchOperation[] {
  const specPath = podSpecPath(typeof obj['kind'] === 'string' ? obj['kind'] : undefined);
  if (!specPath) return [];
  const containersPath = [...specPath, 'containers'];
  let containers: unknown = obj;
  for (const p of containersPath)
    containers = isPlainObject(containers) && Object.hasOwn(containers, p) ? containers[p] : undefined;
  if (containers === undefined || containers === null) return [];
  if (!Array.isArray(containers))
    throw new CommandArgsOverrideError(
      `failed to retrieves path(${containersPath.join('/')}) from rawObj, error: .${containersPath.join('.')} accessor error: ${JSON.stringify(containers)} is of the type ${typeof containers}, expected []interface{}`,
    );
  const patches: PatchOperation[] = [];
  containers.forEach((container, i) => {
    if (!isPlainObject(container))
      throw new CommandArgsOverrideError(`${containersPath.join('/')}/${i} is not an object`);
    if (container['name'] !== o.containerName) return;
    const path = `/${containersPath.join('/')}/${i}/${target}`;
    const current = container[target];
    if (current === undefined || current === null) {
      patches.push({ op: 'add', path, value: overrideList([], o) });
      return;
    }
    if (!Array.isArray(current))
      throw new CommandArgsOverrideError(`${path.slice(1)} is not a list of strings`);
    // Karmada formats each item with %s; items are strings in any valid pod spec.
    patches.push({ op: 'replace', path, value: overrideList(current.map(String), o) });
  });
  return patches;
}
