import {
  type KubeClient,
  type KubeObject,
  type ResourceType,
  resourcePath,
} from '../../src/kube/client/index.ts';

/**
 * Every change a member's API server makes to the watched collection, from a list's resourceVersion on:
 * the ground truth of how often the control plane wrote to that member. Re-opens the watch from the last
 * seen resourceVersion if the server ends it.
 */
export class WriteLog {
  readonly events: Array<{ type: string; name: string; rv: string }> = [];
  readonly #abort = new AbortController();
  #done: Promise<void> | undefined;

  async start(client: KubeClient, type: ResourceType, namespace: string): Promise<void> {
    const list = await client.list(type, { namespace });
    let rv = list.metadata?.resourceVersion ?? '';
    const path = resourcePath(type, { namespace });
    this.#done = (async () => {
      while (!this.#abort.signal.aborted) {
        const why = await client.watch<KubeObject>(
          path,
          { resourceVersion: rv, allowWatchBookmarks: true },
          (e) => {
            rv = e.object.metadata.resourceVersion ?? rv;
            if (e.type === 'BOOKMARK') return;
            this.events.push({ type: e.type, name: e.object.metadata.name ?? '', rv });
          },
          { signal: this.#abort.signal },
        );
        if (why === 'aborted') return;
      }
    })();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#done?.catch(() => {});
  }

  count(name: string, type?: string): number {
    return this.events.filter((e) => e.name === name && (type === undefined || e.type === type)).length;
  }
}
