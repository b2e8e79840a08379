// The main script of the single executable (src/build/sea.ts): Node's SEA runs it as CommonJS, which has no
// top-level await, and it embeds its own Node, so there is no version to check.
import { invokedName } from './argv.ts';
import { run } from './program.ts';

void run(process.argv, invokedName(process.argv[1])).then((code) => process.exit(code));
