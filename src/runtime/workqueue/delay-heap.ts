// Binary min-heap of (readyAt, key) for WorkQueue.addAfter. One entry per key: the
// earliest requested delivery wins (client-go's delaying queue and KubeFed's
// delaying deliverer both behave this way).

export interface DelayEntry {
  readonly key: string;
  readonly readyAt: number;
}

interface Node {
  key: string;
  readyAt: number;
  // Insertion order breaks ties so equal deadlines are delivered FIFO.
  seq: number;
  index: number;
}

export class DelayHeap {
  readonly #nodes: Node[] = [];
  readonly #byKey = new Map<string, Node>();
  #seq = 0;

  get size(): number {
    return this.#nodes.length;
  }

  has(key: string): boolean {
    return this.#byKey.has(key);
  }

  /** The pending deadline of `key`, if any. */
  readyAt(key: string): number | undefined {
    return this.#byKey.get(key)?.readyAt;
  }

  /**
   * Schedules `key` at `readyAt`. A key already scheduled earlier keeps its time; a
   * later one is moved earlier. Returns true if the heap changed.
   */
  push(key: string, readyAt: number): boolean {
    const existing = this.#byKey.get(key);
    if (existing !== undefined) {
      if (readyAt >= existing.readyAt) return false;
      existing.readyAt = readyAt;
      existing.seq = this.#seq++;
      this.#up(existing.index);
      return true;
    }
    const node: Node = { key, readyAt, seq: this.#seq++, index: this.#nodes.length };
    this.#nodes.push(node);
    this.#byKey.set(key, node);
    this.#up(node.index);
    return true;
  }

  peek(): DelayEntry | undefined {
    const top = this.#nodes[0];
    return top === undefined ? undefined : { key: top.key, readyAt: top.readyAt };
  }

  pop(): DelayEntry | undefined {
    const top = this.#nodes[0];
    if (top === undefined) return undefined;
    this.#removeAt(0);
    return { key: top.key, readyAt: top.readyAt };
  }

  /** Removes and returns, earliest first, every key whose deadline is <= now. */
  popReady(now: number): string[] {
    const ready: string[] = [];
    for (let top = this.#nodes[0]; top !== undefined && top.readyAt <= now; top = this.#nodes[0]) {
      this.#removeAt(0);
      ready.push(top.key);
    }
    return ready;
  }

  delete(key: string): boolean {
    const node = this.#byKey.get(key);
    if (node === undefined) return false;
    this.#removeAt(node.index);
    return true;
  }

  clear(): void {
    this.#nodes.length = 0;
    this.#byKey.clear();
  }

  #removeAt(i: number): void {
    const node = this.#nodes[i]!;
    const last = this.#nodes.pop()!;
    this.#byKey.delete(node.key);
    if (last === node) return;
    last.index = i;
    this.#nodes[i] = last;
    // The moved node may belong above or below its new slot.
    this.#up(i);
    this.#down(last.index);
  }

  #less(a: Node, b: Node): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const a = this.#nodes[i]!;
    const b = this.#nodes[j]!;
    this.#nodes[i] = b;
    this.#nodes[j] = a;
    b.index = i;
    a.index = j;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#nodes[i]!, this.#nodes[parent]!)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#nodes.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < n && this.#less(this.#nodes[l]!, this.#nodes[min]!)) min = l;
      if (r < n && this.#less(this.#nodes[r]!, this.#nodes[min]!)) min = r;
      if (min === i) return;
      this.#swap(i, min);
      i = min;
    }
  }
}
