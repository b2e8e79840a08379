/** Entry points call this first: under the system's old Node the failure would be an obscure import error. */
export function requireNode(minMajor = 22): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < minMajor) {
    process.stderr.write(
      `kubefed-ts needs Node.js >= ${minMajor} (this is ${process.versions.node}); run it through npm scripts or npx, which use the project's Node 24\n`,
    );
    process.exit(1);
  }
}
