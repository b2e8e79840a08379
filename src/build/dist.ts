// Builds the JavaScript that the npm package ships (`npm pack` runs this as `prepack`): Node refuses to strip
// the types of files under node_modules, so an installed kubefed-ts cannot run its .ts sources. One ESM bundle
// per command, dependencies left as imports (npm installs them from the package's `dependencies`).
//
//   node src/build/dist.ts   (npm run build) -> dist/{kubefedctl,kubefed-controller-manager,kubefed-admission-webhook,kubefed-agent}.js
//
// The bundles sit one directory below the package root, as src/paths.ts does, so REPO_ROOT still finds
// config/ and hack/ beside them. See docs/kubefedctl.md ("Installing").
import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from '../paths.ts';

/** Node versions the bundles are built for: package.json `engines`. */
export const NODE_TARGET = 'node22';

/** dist/<command>.js from its entry point; kubectl-kubefed is kubefedctl.js under another name. */
export const DIST_ENTRY_POINTS: Record<string, string> = {
  kubefedctl: 'src/cli/kubefedctl.ts',
  'kubefed-controller-manager': 'src/cmd/controller-manager.ts',
  'kubefed-admission-webhook': 'src/cmd/webhook.ts',
  'kubefed-agent': 'src/cmd/agent.ts',
};

export async function buildDist(outDir = join(REPO_ROOT, 'dist')): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  await build({
    entryPoints: Object.entries(DIST_ENTRY_POINTS).map(([out, entry]) => ({
      in: join(REPO_ROOT, entry),
      out,
    })),
    outdir: outDir,
    // Each entry point checks the Node version before it imports the rest (src/cmd/node-version.ts): with
    // splitting, that dynamic import stays a separate file, so an old Node gets the message, not a crash in
    // a dependency that needs a newer one.
    splitting: true,
    // In dist/ itself, beside the entry points: src/paths.ts takes the root to be one directory up.
    chunkNames: '_[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: NODE_TARGET,
    packages: 'external',
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const name of Object.keys(DIST_ENTRY_POINTS)) chmodSync(join(outDir, `${name}.js`), 0o755);
}

if (import.meta.main) {
  await buildDist();
  process.stderr.write(`[build-dist] wrote ${Object.keys(DIST_ENTRY_POINTS).join(', ')} into dist/\n`);
}
