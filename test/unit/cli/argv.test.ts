import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type FlagShapes,
  flagShapes,
  invokedName,
  KLOG_BOOL_FLAGS,
  KLOG_VALUE_FLAGS,
  normalizeArgs,
} from '../../../src/cli/argv.ts';
import { buildProgram } from '../../../src/cli/program.ts';

const shapes: FlagShapes = { booleans: new Set(['--dry-run', '-t', '--enable-type', '--force']) };

function ok(argv: string[], s = shapes) {
  const r = normalizeArgs(argv, s);
  assert.ok(r.ok, `expected success for ${JSON.stringify(argv)}, got ${r.ok ? '' : r.error}`);
  return r.value;
}
function fails(argv: string[]) {
  const r = normalizeArgs(argv, shapes);
  assert.ok(!r.ok, `expected an error for ${JSON.stringify(argv)}`);
  return r.error;
}

describe('normalizeArgs', () => {
  test('leaves plain arguments alone', () => {
    const argv = ['federate', 'deployments.apps', 'web', '--namespace', 'apps', '-o', 'yaml'];
    assert.deepEqual(ok(argv), { args: argv, verbosity: 0, ignoredKlogFlags: [] });
    assert.deepEqual(ok(['join', 'c1', '--namespace=ns']).args, ['join', 'c1', '--namespace=ns']);
  });

  test('splits a shorthand with = as pflag does', () => {
    assert.deepEqual(ok(['federate', 'ns', 'x', '-n=apps']).args, ['federate', 'ns', 'x', '-n', 'apps']);
    assert.deepEqual(ok(['enable', '-o=yaml', 'x']).args, ['enable', '-o', 'yaml', 'x']);
    // The value is everything after the first `=`.
    assert.deepEqual(ok(['-s=a=b']).args, ['-s', 'a=b']);
    // A glued value without `=` is commander's own syntax already.
    assert.deepEqual(ok(['-napps']).args, ['-napps']);
  });

  test('takes -v and --v in every spelling, before or after the subcommand; the last wins', () => {
    for (const argv of [
      ['--v=4', 'join', 'c1'],
      ['join', 'c1', '--v=4'],
      ['-v=4', 'join', 'c1'],
      ['join', '-v', '4', 'c1'],
      ['join', 'c1', '--v', '4'],
      ['join', 'c1', '-v4'],
      ['--v=2', 'join', 'c1', '-v=4'],
    ]) {
      assert.deepEqual(
        ok(argv),
        { args: ['join', 'c1'], verbosity: 4, ignoredKlogFlags: [] },
        argv.join(' '),
      );
    }
    assert.equal(ok(['version', '--v=0']).verbosity, 0);
  });

  test('refuses a verbosity that is not a 32-bit integer, as klog does', () => {
    assert.equal(
      fails(['--v=x', 'version']),
      'invalid argument "x" for "-v, --v" flag: not a 32-bit integer',
    );
    assert.match(fails(['-v', '4.5']), /invalid argument "4.5"/);
    assert.match(fails(['-v=2147483648']), /not a 32-bit integer/);
    assert.equal(fails(['version', '-v']), 'flag needs an argument: -v');
    assert.equal(fails(['version', '--v']), 'flag needs an argument: --v');
  });

  test("accepts klog's flags with both `_` and `-` spellings and removes them", () => {
    const r = ok([
      '--alsologtostderr',
      'join',
      '--logtostderr=false',
      '--log_dir',
      '/tmp/logs',
      '--log-file=/tmp/x.log',
      '--skip_headers',
      '--stderrthreshold=WARNING',
      '--vmodule=join=4',
      '--add_dir_header=true',
      '--one_output',
      '--log_file_max_size=10',
      '--skip_log_headers',
      '--log_backtrace_at',
      'join.go:10',
      'c1',
    ]);
    assert.deepEqual(r.args, ['join', 'c1']);
    assert.deepEqual(r.ignoredKlogFlags, [
      '--alsologtostderr',
      '--logtostderr',
      '--log-dir',
      '--log-file',
      '--skip-headers',
      '--stderrthreshold',
      '--vmodule',
      '--add-dir-header',
      '--one-output',
      '--log-file-max-size',
      '--skip-log-headers',
      '--log-backtrace-at',
    ]);
  });

  test('every klog flag in both spellings', () => {
    for (const name of KLOG_VALUE_FLAGS) {
      const value = name === 'stderrthreshold' ? '2' : name === 'log-file-max-size' ? '1' : 'x';
      for (const spelled of [name, name.replaceAll('-', '_')]) {
        assert.deepEqual(ok([`--${spelled}=${value}`, 'version']).args, ['version'], spelled);
        assert.deepEqual(ok(['version', `--${spelled}`, value]).args, ['version'], spelled);
      }
    }
    for (const name of KLOG_BOOL_FLAGS)
      for (const spelled of [name, name.replaceAll('-', '_')])
        assert.deepEqual(ok([`--${spelled}`, 'version']).args, ['version'], spelled);
  });

  test("validates klog's values as klog parses them", () => {
    assert.match(fails(['--logtostderr=maybe']), /invalid argument "maybe" for "--logtostderr" flag/);
    assert.match(fails(['--stderrthreshold=LOUD']), /not a severity/);
    assert.deepEqual(ok(['--stderrthreshold=error']).args, []);
    assert.match(fails(['--log_file_max_size=-1']), /not an unsigned integer/);
    assert.equal(fails(['--log-dir']), 'flag needs an argument: --log-dir');
  });

  test('a bool flag given =true or =false, as pflag reads it', () => {
    assert.deepEqual(ok(['join', 'c1', '--dry-run=true']).args, ['join', 'c1', '--dry-run']);
    assert.deepEqual(ok(['join', 'c1', '--dry-run=false']).args, ['join', 'c1']);
    assert.deepEqual(ok(['federate', '-t=1', 'ns', 'x']).args, ['federate', '-t', 'ns', 'x']);
    assert.deepEqual(ok(['unjoin', 'c1', '--force=F']).args, ['unjoin', 'c1']);
    assert.match(fails(['join', 'c1', '--dry-run=yes']), /invalid argument "yes" for "--dry-run" flag/);
    // A flag with a value is passed on as it is.
    assert.deepEqual(ok(['join', '--secret-name=false']).args, ['join', '--secret-name=false']);
  });

  test('underscores in any flag name become dashes, as in WordSepNormalizeFunc', () => {
    assert.deepEqual(ok(['join', 'c1', '--host_cluster_context=h', '--dry_run=false']).args, [
      'join',
      'c1',
      '--host-cluster-context=h',
    ]);
  });

  test('passes everything after -- through', () => {
    assert.deepEqual(ok(['federate', '--', '-v=4', '--log_dir=x']).args, [
      'federate',
      '--',
      '-v=4',
      '--log_dir=x',
    ]);
  });

  test('leaves a lone - (stdin) and negative-looking words alone', () => {
    assert.deepEqual(ok(['federate', '-f', '-']).args, ['federate', '-f', '-']);
    assert.deepEqual(ok(['plan', '--key', '-1']).args, ['plan', '--key', '-1']);
  });
});

describe('values of flags that take one', () => {
  const withValued: FlagShapes = { ...shapes, valued: new Set(['-n', '--namespace', '--kubeconfig']) };
  test('the next argument is the value, even when it looks like a flag, as in pflag', () => {
    assert.deepEqual(ok(['federate', '--namespace', '-v3', 'x'], withValued), {
      args: ['federate', '--namespace', '-v3', 'x'],
      verbosity: 0,
      ignoredKlogFlags: [],
    });
    assert.deepEqual(ok(['join', '-n', '--log_dir=/x', '-v', '2'], withValued).args, [
      'join',
      '-n',
      '--log_dir=/x',
    ]);
    assert.equal(ok(['join', '-n', '--log_dir=/x', '-v', '2'], withValued).verbosity, 2);
    // Without the shapes' knowledge the same argv would lose its value to klog.
    assert.deepEqual(ok(['federate', '--namespace', '-v3', 'x']).args, ['federate', '--namespace', 'x']);
  });
});

describe('flagShapes', () => {
  test("knows kubefedctl's bool and value flags", () => {
    const { booleans } = flagShapes(buildProgram());
    for (const f of [
      '--dry-run',
      '--force',
      '-t',
      '--enable-type',
      '-c',
      '--contents',
      '--delete-crd',
      '--live',
    ])
      assert.ok(booleans.has(f), f);
    for (const f of ['-n', '--namespace', '-o', '-f', '--kubeconfig', '--error-on-existing', '-v', '--v'])
      assert.ok(!booleans.has(f), f);
    const { valued } = flagShapes(buildProgram());
    for (const f of ['-n', '--namespace', '--kubeconfig', '--host-cluster-context'])
      assert.ok(valued?.has(f), f);
    for (const f of ['-v', '--v', '--dry-run']) assert.ok(!valued?.has(f), f);
  });
});

describe('invokedName', () => {
  test('kubectl-kubefed is the kubectl plugin', () => {
    assert.equal(invokedName('/usr/local/bin/kubectl-kubefed'), 'kubectl kubefed');
    assert.equal(invokedName('/opt/kubefed-ts/dist/kubectl-kubefed.js'), 'kubectl kubefed');
    assert.equal(invokedName('/usr/local/bin/kubefedctl'), 'kubefedctl');
    assert.equal(invokedName('/repo/src/cli/kubefedctl.ts'), 'kubefedctl');
    assert.equal(invokedName('/usr/local/bin/kubectl-kubefedx'), 'kubefedctl');
    assert.equal(invokedName(undefined), 'kubefedctl');
  });
});
