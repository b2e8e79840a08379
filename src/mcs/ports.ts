// The ports of a ServiceImport: the union of its exports' ports (KEP-1645 "Constraints and Conflict
// Resolution" / "Service Port"). Like a Service's ports, the result has no two ports of one name (the empty
// name included) and no two of one (protocol, port); ports are merged by name first, then by (protocol, port),
// and a clash resolves to the oldest export's port (conformance/service_import.go "with conflicting ports":
// same name, another port → the oldest export's ports, Conflict on every export).

import type { ServicePort } from '../api/mcs/v1beta1/serviceimport.ts';

/** The ports one cluster's Service exports. */
export interface ExportPorts {
  clusterId: string;
  ports: readonly ServicePort[];
}

export interface MergedPorts {
  ports: ServicePort[];
  /** Some export's port was dropped for clashing with an older one: PortConflict on every valid export. */
  conflict: boolean;
  /** Like the KEP's: `Conflicting ports. Using … from oldest service export in "c1" over … from "c2". 1/2 clusters disagree.`; '' without conflict. */
  message: string;
}

/** How many clashes the message spells out; the rest are counted. */
const LISTED_CLASHES = 3;

/**
 * Merges the ports of `exports`, given oldest first. Output order: the oldest export's ports in its order,
 * then each port new to the union in export order. Protocol defaults to TCP (core/v1 ServicePort); an absent
 * and an empty appProtocol are the same.
 */
export function mergePorts(exports: readonly ExportPorts[]): MergedPorts {
  const kept: Array<{ port: ServicePort; clusterId: string }> = [];
  const byName = new Map<string, { port: ServicePort; clusterId: string }>();
  const byProtocolPort = new Map<string, { port: ServicePort; clusterId: string }>();
  const clashes: string[] = [];
  const disagreeing = new Set<string>();

  for (const exp of exports) {
    for (const raw of exp.ports) {
      const port = normalizedPort(raw);
      const sameName = byName.get(port.name ?? '');
      const samePort = byProtocolPort.get(protocolPortKey(port));
      if (sameName && samePort === sameName && equalPorts(sameName.port, port)) continue; // the same port again
      const older = sameName ?? samePort;
      if (older) {
        disagreeing.add(exp.clusterId);
        clashes.push(
          `${describePort(older.port)} from oldest service export in "${older.clusterId}" over ${describePort(port)} from "${exp.clusterId}"`,
        );
        continue;
      }
      const entry = { port, clusterId: exp.clusterId };
      kept.push(entry);
      byName.set(port.name ?? '', entry);
      byProtocolPort.set(protocolPortKey(port), entry);
    }
  }

  const ports = kept.map((k) => k.port);
  if (clashes.length === 0) return { ports, conflict: false, message: '' };
  const listed = clashes.slice(0, LISTED_CLASHES).join(', ');
  const more = clashes.length > LISTED_CLASHES ? ` and ${clashes.length - LISTED_CLASHES} more` : '';
  return {
    ports,
    conflict: true,
    message: `Conflicting ports. Using ${listed}${more}. ${disagreeing.size}/${exports.length} clusters disagree.`,
  };
}

/** The port as a ServiceImport carries it: protocol always set, no empty name or appProtocol. */
function normalizedPort(p: ServicePort): ServicePort {
  return {
    ...(p.name ? { name: p.name } : {}),
    protocol: p.protocol || 'TCP',
    ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
    port: p.port,
  };
}

const protocolPortKey = (p: ServicePort): string => `${p.protocol}/${p.port}`;

function equalPorts(a: ServicePort, b: ServicePort): boolean {
  return (
    (a.name ?? '') === (b.name ?? '') &&
    a.protocol === b.protocol &&
    a.port === b.port &&
    (a.appProtocol ?? '') === (b.appProtocol ?? '')
  );
}

function describePort(p: ServicePort): string {
  return `"${p.name ?? ''}" ${p.protocol}/${p.port}${p.appProtocol ? ` (appProtocol ${p.appProtocol})` : ''}`;
}
