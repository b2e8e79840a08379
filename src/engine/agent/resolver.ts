// Finds where a manifest goes on the member: its plural resource and scope from the member's discovery, as
// OCM's agent does with a RESTMapper (ocm pkg/work/spoke/controllers/manifestcontroller: the rest mapper is
// reset when a kind is not found). Discovery is read once and again only when a kind is unknown, at most
// every `refreshMs`, so a bundle with a CRD and its CR resolves once the CRD is served.

import type { KubeClient, KubeObject, ResourceType } from '../../kube/client/index.ts';
import { type ApiResourceInfo, discoverApiResources } from '../../kube/discovery.ts';
import { isPlainObject } from '../../propagation/json.ts';
import type { ResolvedManifest } from './types.ts';

/** `group/version` and kind of a manifest: group '' for the core group. */
export function groupVersionKind(manifest: KubeObject): { group: string; version: string; kind: string } {
  const apiVersion = typeof manifest?.apiVersion === 'string' ? manifest.apiVersion : '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return { group, version, kind: typeof manifest?.kind === 'string' ? manifest.kind : '' };
}

/** The REST type of a resolved manifest. */
export function resourceTypeOf(
  r: Pick<ResolvedManifest, 'group' | 'version' | 'resource' | 'namespaced' | 'kind'>,
): ResourceType {
  return { group: r.group, version: r.version, plural: r.resource, namespaced: r.namespaced, kind: r.kind };
}

export class ManifestResolver {
  readonly #client: KubeClient;
  readonly #refreshMs: number;
  #byGvk: Map<string, ApiResourceInfo> | undefined;
  #byGvr = new Map<string, ApiResourceInfo>();
  #readAt = 0;
  #reading: Promise<void> | undefined;

  constructor(client: KubeClient, opts: { refreshMs?: number } = {}) {
    this.#client = client;
    this.#refreshMs = opts.refreshMs ?? 2_000;
  }

  /**
   * The manifest with its resource filled in; resource '' when the member does not serve the kind (the
   * manifest then gets OCM's failed Applied condition). Throws only when discovery itself cannot be read.
   */
  async resolve(raw: KubeObject & Record<string, unknown>, ordinal: number): Promise<ResolvedManifest> {
    // A hub without the webhook may hand us anything: a manifest that is not an object resolves to nothing.
    const manifest = isPlainObject(raw) ? raw : ({ metadata: {} } as KubeObject & Record<string, unknown>);
    const gvk = groupVersionKind(manifest);
    if (!gvk.kind || !gvk.version) {
      return { ordinal, manifest, ...gvk, resource: '', namespaced: false, name: '', namespace: '' };
    }
    let info = await this.#lookup(gvk);
    if (!info && performance.now() - this.#readAt >= this.#refreshMs) {
      await this.#read();
      info = this.#byGvk?.get(gvkKey(gvk));
    }
    return {
      ordinal,
      manifest,
      ...gvk,
      resource: info?.plural ?? '',
      namespaced: info?.namespaced ?? false,
      name: typeof manifest.metadata?.name === 'string' ? manifest.metadata.name : '',
      // A cluster-scoped object keeps no namespace even when the manifest gives one.
      namespace:
        info && !info.namespaced
          ? ''
          : typeof manifest.metadata?.namespace === 'string'
            ? manifest.metadata.namespace
            : '',
    };
  }

  /** The resource a recorded applied resource names, for deleting it; undefined when no longer served. */
  async typeOf(r: { group?: string; version: string; resource: string }): Promise<ResourceType | undefined> {
    if (!this.#byGvk) await this.#read();
    const info = this.#byGvr.get(`${r.group ?? ''}/${r.version}/${r.resource}`);
    if (info)
      return {
        group: info.group,
        version: r.version,
        plural: info.plural,
        namespaced: info.namespaced,
        kind: info.kind,
      };
    // Served in another version only (discovery keeps the preferred one): the scope is the same.
    for (const i of this.#byGvr.values()) {
      if (i.group === (r.group ?? '') && i.plural === r.resource) {
        return {
          group: i.group,
          version: r.version,
          plural: i.plural,
          namespaced: i.namespaced,
          kind: i.kind,
        };
      }
    }
    return undefined;
  }

  async #lookup(gvk: { group: string; version: string; kind: string }): Promise<ApiResourceInfo | undefined> {
    if (!this.#byGvk) await this.#read();
    return this.#byGvk?.get(gvkKey(gvk));
  }

  async #read(): Promise<void> {
    this.#reading ??= (async () => {
      try {
        // Every served version, not only the preferred one: a manifest may name any of them.
        const all = await discoverApiResources(this.#client);
        const byGvk = new Map<string, ApiResourceInfo>();
        const byGvr = new Map<string, ApiResourceInfo>();
        for (const r of all.resources) {
          byGvk.set(gvkKey(r), r);
          byGvr.set(`${r.group}/${r.version}/${r.plural}`, r);
        }
        await this.#otherVersions(all.resources, byGvk, byGvr);
        this.#byGvk = byGvk;
        this.#byGvr = byGvr;
        this.#readAt = performance.now();
      } finally {
        this.#reading = undefined;
      }
    })();
    await this.#reading;
  }

  /** Adds the non-preferred versions of each group (apps/v1beta1 is gone, but CRDs often serve several). */
  async #otherVersions(
    preferred: ApiResourceInfo[],
    byGvk: Map<string, ApiResourceInfo>,
    byGvr: Map<string, ApiResourceInfo>,
  ): Promise<void> {
    const groups = await this.#client.request<{
      groups?: Array<{
        name: string;
        versions?: Array<{ version: string }>;
        preferredVersion?: { version: string };
      }>;
    }>('GET', '/apis');
    const seen = new Set(preferred.map((r) => `${r.group}/${r.version}`));
    const extra = (groups.groups ?? []).flatMap((g) =>
      (g.versions ?? [])
        .map((v) => ({ group: g.name, version: v.version }))
        .filter((gv) => !seen.has(`${gv.group}/${gv.version}`)),
    );
    await Promise.all(
      extra.map(async ({ group, version }) => {
        try {
          const list = await this.#client.request<{
            resources?: Array<{ name: string; namespaced: boolean; kind: string }>;
          }>('GET', `/apis/${group}/${version}`);
          for (const r of list.resources ?? []) {
            if (r.name.includes('/')) continue;
            const info: ApiResourceInfo = {
              group,
              version,
              kind: r.kind,
              plural: r.name,
              singular: r.kind.toLowerCase(),
              shortNames: [],
              namespaced: r.namespaced,
              verbs: [],
              subresources: [],
            };
            if (!byGvk.has(gvkKey(info))) byGvk.set(gvkKey(info), info);
            if (!byGvr.has(`${group}/${version}/${r.name}`)) byGvr.set(`${group}/${version}/${r.name}`, info);
          }
        } catch {
          // A broken aggregated API: its kinds stay unknown, like discovery's own failures.
        }
      }),
    );
  }
}

function gvkKey(r: { group: string; version: string; kind: string }): string {
  return `${r.group}/${r.version}/${r.kind}`;
}
