#!/usr/bin/env node
import { requireNode } from './node-version.ts';

requireNode();
const { main } = await import('../agent/main.ts');
process.exit(await main(process.argv));
