#!/usr/bin/env node
import { requireNode } from '../cmd/node-version.ts';

requireNode();
const { run } = await import('./program.ts');
process.exit(await run(process.argv));
