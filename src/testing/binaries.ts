import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths.ts';

export type Binary =
  | 'kube-apiserver'
  | 'kube-controller-manager'
  | 'kube-scheduler'
  | 'kubectl'
  | 'etcd'
  | 'kwok'
  | 'kwokctl';

let cached: string | undefined;

/**
 * The directory with the Kubernetes binaries: KUBEFED_TS_BIN_DIR when it is complete, otherwise the
 * versioned cache filled by hack/install-k8s-binaries.sh (which this runs; it is a no-op when cached).
 */
export function binDir(): string {
  if (cached) return cached;
  const out = execFileSync('bash', [join(REPO_ROOT, 'hack/install-k8s-binaries.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const dir = out.trim().split('\n').at(-1) ?? '';
  if (!existsSync(join(dir, 'kube-apiserver')))
    throw new Error(`install-k8s-binaries.sh printed no usable bin dir: "${dir}"`);
  cached = dir;
  return dir;
}

export function binary(name: Binary): string {
  return join(binDir(), name);
}
