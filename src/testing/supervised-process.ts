import { appendFileSync } from 'node:fs';
import type { ManagedProcess } from './process.ts';

const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;

/**
 * A component started again whenever it exits on its own, as the kubelet restarts a control-plane static
 * pod (restartPolicy Always, with back-off). kube-controller-manager exits when building one of its
 * controllers fails — a discovery call or its 10 s wait for a healthy apiserver timing out on a busy
 * machine (cmd/kube-controller-manager/app/controllermanager.go: CreateControllerContext,
 * BuildControllers) — and a cluster whose controller manager is gone never fills a token again.
 */
export class SupervisedProcess {
  readonly name: string;
  readonly #start: () => ManagedProcess;
  #current: ManagedProcess;
  #stopping = false;
  #restarts = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(name: string, start: () => ManagedProcess) {
    this.name = name;
    this.#start = start;
    this.#current = start();
    this.#watch(this.#current);
  }

  /** How many times the component has been started again. */
  get restarts(): number {
    return this.#restarts;
  }

  get running(): boolean {
    return this.#current.running;
  }

  get logFile(): string {
    return this.#current.logFile;
  }

  #watch(proc: ManagedProcess): void {
    void proc.exited.then((code) => {
      if (this.#stopping || proc !== this.#current) return;
      const backoff = Math.min(FIRST_BACKOFF_MS * 2 ** this.#restarts, MAX_BACKOFF_MS);
      this.#restarts++;
      appendFileSync(
        proc.logFile,
        `\n[kubefed-ts harness] ${this.name} exited (code ${code}); starting it again in ${backoff} ms (restart ${this.#restarts})\n`,
      );
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (this.#stopping) return;
        this.#current = this.#start();
        this.#watch(this.#current);
      }, backoff);
      // A pending restart never keeps the test process alive.
      this.#timer.unref();
    });
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#current.stop();
  }

  tail(lines = 20): string {
    return this.#current.tail(lines);
  }
}
