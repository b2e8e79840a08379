import { apiVersionOf, errorMessage, type KubeClient } from './client/index.ts';

/** One API resource as discovery reports it, with the group/version it was taken from. */
export interface ApiResourceInfo {
  /** Empty for the core group. */
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  verbs: string[];
  /** Subresource names (`status`, `scale`, ...) of this resource in this version. */
  subresources: string[];
}

export interface DiscoveryFailure {
  groupVersion: string;
  message: string;
}

export interface DiscoveryResult {
  /** Core group first, then the groups in the server's order. */
  resources: ApiResourceInfo[];
  /** Group/versions whose resource list could not be read (e.g. a broken aggregated API). */
  failures: DiscoveryFailure[];
}

interface RawResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
}
interface RawResourceList {
  resources?: RawResource[];
}
interface RawGroupList {
  groups?: Array<{
    name: string;
    versions?: Array<{ version: string }>;
    preferredVersion?: { version: string };
  }>;
}

/**
 * Discovery's "server preferred resources" (client-go's ServerPreferredResources): every group version is
 * read, and each resource is taken from its group's preferred version, else from the first version that
 * serves it. With `version`, each group's resources are taken from that version only (groups without it
 * contribute nothing). Failing group versions are collected, not thrown; failing /api or /apis throws.
 */
export async function discoverApiResources(
  client: KubeClient,
  opts: { version?: string } = {},
): Promise<DiscoveryResult> {
  const [core, groups] = await Promise.all([
    client.request<{ versions?: string[] }>('GET', '/api'),
    client.request<RawGroupList>('GET', '/apis'),
  ]);
  const plan: Array<{ group: string; versions: string[]; preferred: string }> = [];
  const coreVersions = core.versions ?? [];
  plan.push({ group: '', versions: coreVersions, preferred: coreVersions[0] ?? '' });
  for (const g of groups.groups ?? []) {
    const versions = (g.versions ?? []).map((v) => v.version);
    plan.push({ group: g.name, versions, preferred: g.preferredVersion?.version ?? versions[0] ?? '' });
  }
  for (const p of plan) {
    if (opts.version !== undefined && opts.version !== '') {
      p.versions = p.versions.includes(opts.version) ? [opts.version] : [];
    }
  }

  const failures: DiscoveryFailure[] = [];
  const fetched = await Promise.all(
    plan.map((p) =>
      Promise.all(
        p.versions.map(async (version) => {
          const gv = apiVersionOf({ group: p.group, version });
          const path = p.group ? `/apis/${gv}` : `/api/${version}`;
          try {
            const list = await client.request<RawResourceList>('GET', path);
            return { version, resources: toInfos(p.group, version, list.resources ?? []) };
          } catch (e) {
            failures.push({ groupVersion: gv, message: errorMessage(e) });
            return { version, resources: [] };
          }
        }),
      ),
    ),
  );

  const resources: ApiResourceInfo[] = [];
  plan.forEach((p, i) => {
    // The preferred version wins; otherwise the first version (in server order) that lists the resource.
    const chosen = new Map<string, ApiResourceInfo>();
    for (const { version, resources: infos } of fetched[i] ?? []) {
      for (const info of infos) {
        if (!chosen.has(info.plural) || version === p.preferred) chosen.set(info.plural, info);
      }
    }
    resources.push(...chosen.values());
  });
  failures.sort((a, b) => a.groupVersion.localeCompare(b.groupVersion));
  return { resources, failures };
}

/** Folds `deployments/scale` and friends into their parent's subresources list. */
function toInfos(group: string, version: string, raw: RawResource[]): ApiResourceInfo[] {
  const byPlural = new Map<string, ApiResourceInfo>();
  for (const r of raw) {
    if (r.name.includes('/')) continue;
    byPlural.set(r.name, {
      group,
      version,
      kind: r.kind,
      plural: r.name,
      // Old servers leave singularName empty; kubectl falls back to the lower-cased kind as well.
      singular: r.singularName || r.kind.toLowerCase(),
      shortNames: r.shortNames ?? [],
      namespaced: r.namespaced,
      verbs: r.verbs ?? [],
      subresources: [],
    });
  }
  for (const r of raw) {
    const slash = r.name.indexOf('/');
    if (slash < 0) continue;
    byPlural.get(r.name.slice(0, slash))?.subresources.push(r.name.slice(slash + 1));
  }
  return [...byPlural.values()];
}
