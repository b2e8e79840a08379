// The kubefed-ts release, printed by `kubefedctl version` and the servers' --version. It is package.json's
// version, read at build time by esbuild for the npm bundles and the kubefedctl SEA, and at run time from the
// tree in the image (which ships package.json), so a release bumps one place.
import packageJson from '../package.json' with { type: 'json' };

/** `v` and package.json's version, e.g. `v0.1.0`. */
export const VERSION = `v${packageJson.version}`;
