// Writes the CRD manifests in config/crds and the chart's generated files from the TypeBox schemas in src/api.
// Usage: node src/install/generate-crds.ts [--check]
//   --check  write nothing; exit 1 with one line per stale, missing or obsolete file.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AGENT_CHART_CRD_DIR,
  CHART_CRD_DIR,
  CRD_DIR,
  GENERATED_HEADER,
  MEMBER_CRD_DIR,
  renderChartFiles,
  renderCrds,
} from './manifests.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    // A directory (config/crds/members inside config/crds) is not a generated file.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR') return undefined;
    throw err;
  }
}

/** Files in a generated directory that this generator wrote earlier but no longer produces. */
function obsoleteFiles(expected: Map<string, string>, dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, dir));
  } catch {
    return [];
  }
  return names
    .map((name) => `${dir}/${name}`)
    .filter((rel) => !expected.has(rel) && readIfExists(join(root, rel))?.startsWith(GENERATED_HEADER))
    .sort();
}

function main(argv: string[]): number {
  const check = argv.includes('--check');
  // config/crds, and the Helm chart's copies plus its generated FTC template.
  const files = new Map([...renderCrds(), ...renderChartFiles()]);
  const problems: string[] = [];

  for (const [rel, content] of files) {
    const current = readIfExists(join(root, rel));
    if (current === content) continue;
    if (check) {
      problems.push(`${rel} is stale; run npm run crds`);
    } else {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), content);
      console.log(`wrote ${rel}`);
    }
  }
  for (const rel of [CRD_DIR, MEMBER_CRD_DIR, CHART_CRD_DIR, AGENT_CHART_CRD_DIR].flatMap((dir) =>
    obsoleteFiles(files, dir),
  )) {
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
