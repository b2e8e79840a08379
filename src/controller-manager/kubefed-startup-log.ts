// KubeFed's start-up lines, written as klog writes them, because scripts and KubeFed's own e2e framework
// (test/e2e/defaulting.go: framework.WaitUntilLogStreamContains) wait for these exact substrings — quotes
// included, which a JSON log line would escape. KubeFed logs `Using valid KubeFedConfig "<ns>/<name>"` once
// its KubeFedConfig is loaded and validated (cmd/controller-manager/app/controller-manager.go,
// setOptionsByKubeFedConfig), before leader election, and `Starting cluster controller` when the elected
// leader starts the cluster controller (pkg/controller/kubefedcluster/controller.go, StartClusterController).

/** klog's text header: Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg (UTC here). */
export function klogLine(message: string, now: Date, pid: number, source: string): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  const micros = String(now.getUTCMilliseconds() * 1000).padStart(6, '0');
  const date = `${p2(now.getUTCMonth() + 1)}${p2(now.getUTCDate())}`;
  const time = `${p2(now.getUTCHours())}:${p2(now.getUTCMinutes())}:${p2(now.getUTCSeconds())}.${micros}`;
  return `I${date} ${time} ${String(pid).padStart(7)} ${source}] ${message}\n`;
}

/**
 * KubeFed's `%q` of a util.QualifiedName: "ns/name", or "name" without a namespace (a --kubefed-config file).
 * Names are DNS labels, so Go's quoting never escapes anything.
 */
export const usingValidKubeFedConfig = (namespace: string | undefined, name: string): string =>
  `Using valid KubeFedConfig "${namespace ? `${namespace}/${name}` : name}"`;

export const STARTING_CLUSTER_CONTROLLER = 'Starting cluster controller';

/** Writes one KubeFed start-up line to stderr, beside the JSON log. */
export function logKubeFedLine(message: string, source: string): void {
  process.stderr.write(klogLine(message, new Date(), process.pid, source));
}
