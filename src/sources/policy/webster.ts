// The Webster (Sainte-Laguë) method Karmada divides replicas by static weight with (karmada
// pkg/util/helper/webstermethod.go AllocateWebsterSeats, karmada#6772/#6793): each replica in turn goes
// to the cluster with the highest weight / (2·replicas + 1). Unlike the older floor-then-remainder
// split it never takes a replica from a cluster when the total grows (karmada#6735).

export interface WebsterParty {
  name: string;
  weight: number;
}

/** 32-bit FNV-1a over the UTF-8 bytes of `s` (Go's hash/fnv New32a). */
export function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(s)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * Allocates `seats` among the parties. Priorities are compared as Go float64 quotients, like Karmada's
 * queue. Equal priorities go first to the party with fewer seats, then by name: ascending when
 * fnv32a(tieKey) is even, descending when odd, so that equal-weight clusters do not always get the odd
 * replica in name order across bindings (Karmada keys this by the binding's resource UID). Returns the
 * seats per party name.
 */
export function websterSeats(
  seats: number,
  parties: readonly WebsterParty[],
  tieKey: string,
): Map<string, number> {
  const ascending = fnv32a(tieKey) % 2 === 0;
  const state = parties.map((p) => ({ name: p.name, weight: p.weight, seats: 0 }));
  const wins = (a: (typeof state)[number], b: (typeof state)[number]): boolean => {
    const pa = a.weight / (2 * a.seats + 1);
    const pb = b.weight / (2 * b.seats + 1);
    if (pa !== pb) return pa > pb;
    if (a.seats !== b.seats) return a.seats < b.seats;
    return ascending ? a.name < b.name : a.name > b.name;
  };
  for (let n = 0; n < seats && state.length > 0; n++) {
    let next = state[0];
    for (const p of state) if (next !== undefined && wins(p, next)) next = p;
    if (next) next.seats++;
  }
  return new Map(state.map((p) => [p.name, p.seats]));
}
