// The name of a template's ResourceBinding or ClusterResourceBinding (karmada pkg/util/names
// GenerateBindingName), so the binding a Karmada user looks for is where they expect it.

/**
 * Lower-case `<name>-<kind>`; a `:` in the name (RBAC objects such as `system:controller:x`) becomes `.`,
 * since binding names must be DNS subdomains. Karmada handles no other character, nor do we.
 */
export function bindingName(kind: string, name: string): string {
  return `${name.replaceAll(':', '.')}-${kind}`.toLowerCase();
}
