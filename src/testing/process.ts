import { type ChildProcess, spawn } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every process the harness starts is tracked here and killed when the owning process exits — normally,
 * on an uncaught error, or on SIGINT/SIGTERM. A pid file per child also lets the next run reap what a
 * SIGKILLed run (which no handler can catch) left behind.
 */
const live = new Set<ManagedProcess>();
/**
 * When set (by `kubefedctl local-up`), processes are started detached so they outlive the command, and
 * their pids are appended to this file for `local-down` instead of being killed at exit.
 */
let detachedPidFile: string | undefined;
export function setDetachedPidFile(file: string | undefined): void {
  detachedPidFile = file;
}
const registryDir = join(tmpdir(), 'kubefed-ts-harness', String(process.pid));
let hooksInstalled = false;

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  reapOrphans();
  process.on('exit', () => {
    for (const p of live) p.killNow();
    rmSync(registryDir, { recursive: true, force: true });
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      for (const p of live) p.killNow();
      process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  }
}

/** Kills children recorded by harness owners that are no longer alive. */
export function reapOrphans(): void {
  const root = join(tmpdir(), 'kubefed-ts-harness');
  if (!existsSync(root)) return;
  for (const owner of readdirSync(root)) {
    if (owner === String(process.pid) || isAlive(Number(owner))) continue;
    const dir = join(root, owner);
    for (const file of readdirSync(dir)) {
      const pid = Number(file);
      try {
        // Only kill a pid that still runs the binary we started (pids get reused).
        if (runsBinary(pid, readFileSync(join(dir, file), 'utf8'))) process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** True while `pid` runs `binary` (argv[0] as it was started), so a reused pid is never mistaken for ours. */
export function runsBinary(pid: number, binary: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === binary;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export class ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  #exitCode: number | null | undefined;

  private constructor(name: string, logFile: string, child: ChildProcess) {
    this.name = name;
    this.logFile = logFile;
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exitCode = code ?? (signal ? -1 : null);
        live.delete(this);
        rmSync(join(registryDir, String(child.pid)), { force: true });
        resolve(code);
      });
    });
  }

  static start(
    name: string,
    binary: string,
    args: string[],
    opts: { logFile: string; env?: NodeJS.ProcessEnv; cwd?: string },
  ): ManagedProcess {
    if (detachedPidFile) {
      const fd = openSync(opts.logFile, 'a');
      const child = spawn(binary, args, {
        env: opts.env ?? process.env,
        cwd: opts.cwd,
        stdio: ['ignore', fd, fd],
        detached: true,
      });
      closeSync(fd);
      child.unref();
      appendFileSync(detachedPidFile, `${child.pid} ${binary}\n`);
      return new ManagedProcess(name, opts.logFile, child);
    }
    installHooks();
    const out = createWriteStream(opts.logFile, { flags: 'a' });
    const child = spawn(binary, args, {
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    const p = new ManagedProcess(name, opts.logFile, child);
    if (child.pid) {
      live.add(p);
      mkdirSync(registryDir, { recursive: true });
      writeFileSync(join(registryDir, String(child.pid)), binary);
    }
    return p;
  }

  get running(): boolean {
    return this.#exitCode === undefined && this.child.exitCode === null;
  }

  /** SIGTERM, then SIGKILL if the process is still there after graceMs. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(t);
  }

  killNow(): void {
    if (this.running) this.child.kill('SIGKILL');
  }

  /** SIGKILL and wait for the exit: a crash, with no chance to clean up. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** The last lines of the process's log, for error messages when it fails to start. */
  tail(lines = 20): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}
