#!/usr/bin/env node
import { requireNode } from '../cmd/node-version.ts';

requireNode();
const { run } = await import('./program.ts');
const { invokedName } = await import('./argv.ts');
process.exit(await run(process.argv, invokedName(process.argv[1])));
