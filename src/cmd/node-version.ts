/**
 * The oldest Node.js kubefed-ts runs on: package.json `engines`, set by its dependencies (undici needs
 * 22.19; commander 22.12).
 */
export const MIN_NODE = '22.19.0';

/** Whether Node version `version` (`24.1.0`, with or without `v`) is at least `min`. */
export function nodeAtLeast(version: string, min = MIN_NODE): boolean {
  const parse = (v: string) => v.replace(/^v/, '').split('.').map(Number);
  const [a, b] = [parse(version), parse(min)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

/** Entry points call this first: under an older Node the failure would be an obscure import error. */
export function requireNode(min = MIN_NODE): void {
  if (!nodeAtLeast(process.versions.node, min)) {
    process.stderr.write(
      `kubefed-ts needs Node.js >= ${min} (this is ${process.versions.node}); in a clone, npm scripts and npx use the project's Node 24\n`,
    );
    process.exit(1);
  }
}
