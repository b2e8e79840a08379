import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: generated CRDs, hack/ scripts and entry points are found relative to it. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
