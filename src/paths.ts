import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root, or the root of the installed npm package: generated CRDs, samples, hack/ scripts and
 * entry points are found relative to it. From the sources this file is src/paths.ts; in the package it is
 * bundled into dist/<entry>.js (src/build/dist.ts): either way the root is one directory up.
 */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The processes kubefedctl local-up (and the test harness) start. */
export type EntryPoint = 'controller-manager' | 'webhook' | 'agent';

const SOURCES: Record<EntryPoint, string> = {
  'controller-manager': 'src/cmd/controller-manager.ts',
  webhook: 'src/cmd/webhook.ts',
  agent: 'src/cmd/agent.ts',
};
/** Their bundles in the npm package, named as its `bin` commands. */
const BUNDLES: Record<EntryPoint, string> = {
  'controller-manager': 'dist/kubefed-controller-manager.js',
  webhook: 'dist/kubefed-admission-webhook.js',
  agent: 'dist/kubefed-agent.js',
};

/**
 * The script to run with `process.execPath` for an entry point: the TypeScript source in a clone, the
 * bundle in the npm package (which ships no sources).
 */
export function entryPointScript(entry: EntryPoint, root = REPO_ROOT): string {
  const source = join(root, SOURCES[entry]);
  return existsSync(source) ? source : join(root, BUNDLES[entry]);
}
