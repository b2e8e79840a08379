// Writes the CRD manifests in config/crds from the TypeBox schemas in src/api.
// Usage: node src/api/generate-crds.ts [--check]
//   --check  write nothing; exit 1 with one line per stale, missing or obsolete file.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CRD_DIR, GENERATED_HEADER, renderCrds } from './crds.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Files in config/crds that this generator wrote earlier but no longer produces. */
function obsoleteFiles(expected: Map<string, string>): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, CRD_DIR));
  } catch {
    return [];
  }
  return names
    .map((name) => `${CRD_DIR}/${name}`)
    .filter((rel) => !expected.has(rel) && readIfExists(join(root, rel))?.startsWith(GENERATED_HEADER))
    .sort();
}

function main(argv: string[]): number {
  const check = argv.includes('--check');
  const files = renderCrds();
  const problems: string[] = [];

  for (const [rel, content] of files) {
    const current = readIfExists(join(root, rel));
    if (current === content) continue;
    if (check) {
      problems.push(`${rel} is stale; run npm run crds`);
    } else {
      mkdirSync(join(root, CRD_DIR), { recursive: true });
      writeFileSync(join(root, rel), content);
      console.log(`wrote ${rel}`);
    }
  }
  for (const rel of obsoleteFiles(files)) {
    if (check) {
      problems.push(`${rel} is stale; run npm run crds`);
    } else {
      rmSync(join(root, rel));
      console.log(`removed ${rel}`);
    }
  }

  for (const line of problems) console.error(line);
  return problems.length > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
