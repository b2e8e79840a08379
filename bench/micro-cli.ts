// The command line of a micro-benchmark (`npm run bench:<name>`): parsed by commander, with a usage mistake
// as one line on stderr and exit code 2, not a stack trace.
import type { Command } from 'commander';
import { BenchUsageError } from './args.ts';

/** Parses `argv` into `cmd`; returns the function that reports a later usage mistake the same way. */
export function parseMicroBenchCommand(cmd: Command, argv: readonly string[]): (message: string) => never {
  const usage = (message: string): never => {
    process.stderr.write(`${cmd.name()}: ${message}\n`);
    process.exit(2);
  };
  try {
    cmd.parse(argv);
  } catch (e) {
    if (e instanceof BenchUsageError) usage(e.message);
    throw e;
  }
  return usage;
}
