import type { Command } from 'commander';

/**
 * kubefedctl's argv as kubectl and KubeFed's cobra/pflag users type it, rewritten into what commander parses.
 *
 * KubeFed's root command (pkg/kubefedctl/kubefedctl.go, NewKubeFedCtlCommand) adds klog's flags
 * (`klog.InitFlags`) as persistent flags, so they are valid before or after the subcommand, and normalises
 * every flag name with component-base's WordSepNormalizeFunc (`_` becomes `-`, so `--log_dir` is `--log-dir`).
 * pflag also reads `-n=ns` as `-n ns` and `--dry-run=false` as a bool flag set to false; commander reads neither.
 */

/** klog's flags that take a value (k8s.io/klog v1 and v2 InitFlags, plus component-base's flush frequency). */
export const KLOG_VALUE_FLAGS: readonly string[] = [
  'log-dir',
  'log-file',
  'log-file-max-size',
  'stderrthreshold',
  'vmodule',
  'log-backtrace-at',
  'log-flush-frequency',
];

/** klog's bool flags. */
export const KLOG_BOOL_FLAGS: readonly string[] = [
  'logtostderr',
  'alsologtostderr',
  'add-dir-header',
  'skip-headers',
  'skip-log-headers',
  'one-output',
  'legacy-stderr-threshold-behavior',
];

/** What the normaliser needs to know about the program's own flags. */
export interface FlagShapes {
  /** Flags (`-t`, `--dry-run`) that take no value in every command that has them. */
  booleans: ReadonlySet<string>;
  /**
   * Flags (`-n`, `--kubeconfig`) that need a value in every command that has them: as in pflag, the next
   * argument is that value whatever it looks like (`--namespace -v3` is namespace "-v3", not klog's -v).
   */
  valued?: ReadonlySet<string>;
}

export interface NormalizedArgs {
  /** The arguments for commander: klog's flags removed, `-x=v` split, `--bool=false` dropped. */
  args: string[];
  /** klog's `-v`/`--v` (the last one wins, as in pflag); 0 when absent. */
  verbosity: number;
  /** klog's other flags that were given, by their dashed names: accepted, validated, without effect. */
  ignoredKlogFlags: string[];
}

export type NormalizeResult = { ok: true; value: NormalizedArgs } | { ok: false; error: string };

/** strconv.ParseBool, which pflag's bool flags use. */
function parseBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

const INT32 = /^[+-]?\d+$/;
const SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'FATAL'];

/** klog's own parsing of its value flags (Level, severity, uint64); undefined when the value is valid. */
function klogValueError(name: string, value: string): string | undefined {
  switch (name) {
    case 'v': {
      const n = Number(value);
      return INT32.test(value) && n >= -(2 ** 31) && n < 2 ** 31 ? undefined : 'not a 32-bit integer';
    }
    case 'stderrthreshold':
      return SEVERITIES.includes(value.toUpperCase()) || /^[0-3]$/.test(value)
        ? undefined
        : 'not a severity (INFO, WARNING, ERROR, FATAL or 0-3)';
    case 'log-file-max-size':
      return /^\d+$/.test(value) ? undefined : 'not an unsigned integer';
    default:
      return undefined;
  }
}

const invalid = (value: string, flag: string, why: string) =>
  `invalid argument "${value}" for "${flag}" flag: ${why}`;

/**
 * Rewrites kubefedctl's arguments (argv without node and the script). Stops at `--`: what follows is passed
 * through unchanged. Pure: the same argv and shapes always give the same result.
 */
export function normalizeArgs(argv: readonly string[], shapes: FlagShapes): NormalizeResult {
  const args: string[] = [];
  const ignoredKlogFlags: string[] = [];
  let verbosity = 0;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      args.push(...argv.slice(i));
      break;
    }
    // The value of a klog value flag: after `=`, glued to a shorthand (`-v4`), or the next argument.
    const takeValue = (inline: string | undefined, flag: string): string | { error: string } => {
      if (inline !== undefined) return inline;
      if (i + 1 >= argv.length) return { error: `flag needs an argument: ${flag}` };
      i++;
      return argv[i] as string;
    };
    if (shapes.valued?.has(arg) && i + 1 < argv.length) {
      args.push(arg, argv[i + 1] as string);
      i++;
      continue;
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      const name = (eq < 0 ? arg.slice(2) : arg.slice(2, eq)).replaceAll('_', '-');
      const inline = eq < 0 ? undefined : arg.slice(eq + 1);
      const flag = `--${name}`;
      if (name === 'v' || KLOG_VALUE_FLAGS.includes(name)) {
        const value = takeValue(inline, flag);
        if (typeof value !== 'string') return { ok: false, error: value.error };
        const why = klogValueError(name, value);
        if (why) return { ok: false, error: invalid(value, name === 'v' ? '-v, --v' : flag, why) };
        if (name === 'v') verbosity = Number(value);
        else ignoredKlogFlags.push(flag);
        continue;
      }
      if (KLOG_BOOL_FLAGS.includes(name)) {
        if (inline !== undefined && parseBool(inline) === undefined)
          return { ok: false, error: invalid(inline, flag, 'not a boolean') };
        ignoredKlogFlags.push(flag);
        continue;
      }
      if (inline !== undefined && shapes.booleans.has(flag)) {
        const b = parseBool(inline);
        if (b === undefined) return { ok: false, error: invalid(inline, flag, 'not a boolean') };
        if (b) args.push(flag);
        continue;
      }
      args.push(inline === undefined ? flag : `${flag}=${inline}`);
      continue;
    }
    if (/^-[A-Za-z]/.test(arg)) {
      const flag = arg.slice(0, 2);
      const rest = arg.slice(2);
      if (flag === '-v') {
        const value = takeValue(rest.startsWith('=') ? rest.slice(1) : rest || undefined, flag);
        if (typeof value !== 'string') return { ok: false, error: value.error };
        const why = klogValueError('v', value);
        if (why) return { ok: false, error: invalid(value, '-v, --v', why) };
        verbosity = Number(value);
        continue;
      }
      if (rest.startsWith('=')) {
        const value = rest.slice(1);
        if (shapes.booleans.has(flag)) {
          const b = parseBool(value);
          if (b === undefined) return { ok: false, error: invalid(value, flag, 'not a boolean') };
          if (b) args.push(flag);
        } else {
          args.push(flag, value);
        }
        continue;
      }
    }
    args.push(arg);
  }
  return { ok: true, value: { args, verbosity, ignoredKlogFlags } };
}

/** The flag shapes of a commander program and all its subcommands. */
export function flagShapes(program: Command): FlagShapes {
  const bool = new Set<string>();
  const optional = new Set<string>();
  const required = new Set<string>();
  const visit = (cmd: Command) => {
    for (const o of cmd.options) {
      if (o.negate) continue;
      const target = o.required ? required : o.optional ? optional : bool;
      for (const token of [o.short, o.long]) if (token) target.add(token);
    }
    for (const sub of cmd.commands) visit(sub);
  };
  visit(program);
  const klog = (f: string) => f === '-v' || f === '--v';
  return {
    booleans: new Set([...bool].filter((f) => !required.has(f) && !optional.has(f))),
    // Only a value every command needs: an optional one, or a bool elsewhere, never takes the next argument.
    valued: new Set([...required].filter((f) => !bool.has(f) && !optional.has(f) && !klog(f))),
  };
}

/**
 * The name kubefedctl was called by, from the path of the script or executable (argv[1]): kubectl runs a
 * plugin `kubectl-kubefed` for `kubectl kubefed ...`, so help and errors then say `kubectl kubefed`.
 */
export function invokedName(path: string | undefined): string {
  const base = (path ?? '').split(/[/\\]/).at(-1) ?? '';
  return /^kubectl-kubefed(\.[cm]?js|\.exe)?$/.test(base) ? 'kubectl kubefed' : 'kubefedctl';
}
